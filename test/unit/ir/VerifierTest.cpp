//===- VerifierTest.cpp - Verifier rules on IR built in code --------------===//
//
// The text-level diagnostics (with locations) are tested in
// test/lit/ir/verify/; these tests cover IR that only a Builder creates
// (no source locations) and the reporting of several errors at once.
//
//===----------------------------------------------------------------------===//
#include "comprehend/ir/Verifier.h"
#include "comprehend/ir/Builder.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::ir;

namespace {

struct VerifierTest : public ::testing::Test {
  VerifierTest() {
    diags.setHandler([&](const Diagnostic &d) { reported.push_back(d); });
  }

  /// Verifies the program and returns the error messages.
  std::vector<std::string> run() {
    reported.clear();
    LogicalResult result = verify(program, diags);
    std::vector<std::string> messages;
    for (const Diagnostic &d : reported)
      messages.push_back(d.message);
    EXPECT_EQ(failed(result), !messages.empty());
    return messages;
  }

  const MemRefType *memref(llvm::ArrayRef<int64_t> shape,
                           ScalarKind kind = ScalarKind::F32) {
    return MemRefType::get(ctx, kind, shape);
  }
  Value *constant(double value, ScalarKind kind = ScalarKind::F32) {
    return b.createConstant(Location(), value, ScalarType::get(ctx, kind));
  }

  Context ctx;
  Program program{ctx};
  Builder b{ctx};
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  std::vector<Diagnostic> reported;
};

TEST_F(VerifierTest, GemmOrderIsAGeneratedConstraint) {
  Function &f = b.createFunction(
      program, "k",
      {{"A", memref({4})}, {"B", memref({4, 4})}, {"C", memref({4, 4})}});
  Value *one = constant(1.0);
  b.create<GemmInst>(Location(), one, f.getParameter(0), f.getParameter(1), one,
                     f.getParameter(2));
  EXPECT_EQ(run(), std::vector<std::string>{
                       "operand 'A' of 'gemm' must be a memref of order 2, "
                       "but has type memref<f32x4>"});
}

TEST_F(VerifierTest, GemmShapesAndAtomicBeta) {
  Function &f = b.createFunction(
      program, "k",
      {{"A", memref({4, 8})}, {"B", memref({4, 4})}, {"C", memref({4, 5})}});
  Value *one = constant(1.0);
  Value *two = constant(2.0);
  b.create<GemmInst>(Location(), one, f.getParameter(0), f.getParameter(1), two,
                     f.getParameter(2), /*atomic=*/true);
  EXPECT_EQ(run(),
            (std::vector<std::string>{
                "'gemm' requires columns(op(A)) = rows(op(B)), but 8 != 4",
                "'gemm' requires columns(C) = columns(op(B)), but 5 != 4",
                "operand 'beta' of 'gemm.atomic' must be a constant 0 or 1"}));
}

TEST_F(VerifierTest, PromotionRelations) {
  Function &f = b.createFunction(program, "k",
                                 {{"A", memref({4, 4})},
                                  {"B", memref({4, 4})},
                                  {"C", memref({4, 4}, ScalarKind::F16)}});
  Value *alpha = constant(1.0, ScalarKind::F64);
  Value *beta = constant(1.0);
  b.create<GemmInst>(Location(), alpha, f.getParameter(0), f.getParameter(1),
                     beta, f.getParameter(2));
  // The three relations fail independently; all are reported.
  std::vector<std::string> messages = run();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0],
            "type of operand 'alpha' of 'gemm' must be promotable to "
            "promote(element type of operand 'A', element type of operand "
            "'B'), but f64 is not promotable to f32");
  EXPECT_EQ(messages[1],
            "promote(element type of operand 'A', element type of operand "
            "'B') of 'gemm' must be promotable to element type of operand "
            "'C', but f32 is not promotable to f16");
  EXPECT_EQ(messages[2],
            "type of operand 'beta' of 'gemm' must be promotable to element "
            "type of operand 'C', but f32 is not promotable to f16");
}

TEST_F(VerifierTest, SameTypeOperands) {
  b.createFunction(program, "k", {});
  Value *x = constant(1.0);
  Value *y = constant(1.0, ScalarKind::F64);
  b.create<AddInst>(Location(), x, y);
  Value *c = b.createConstant(Location(), std::complex<double>(1, 2),
                              ScalarType::get(ctx, ScalarKind::C32));
  b.create<RemInst>(Location(), c, c);
  EXPECT_EQ(run(), (std::vector<std::string>{
                       "operand 'b' of 'add' must have the type of 'a' (f32), "
                       "but has type f64",
                       "operand 'a' of 'rem' must be an integer or floating "
                       "type, or a coopmatrix of such, but has type c32"}));
}

TEST_F(VerifierTest, Nesting) {
  Function &f = b.createFunction(program, "k", {{"A", memref({4, 4})}});
  b.create<SubgroupLocalIdInst>(Location());
  auto parallel = b.create<ParallelInst>(Location());
  b.setInsertionPointToEnd(parallel.getBody());
  Value *one = constant(1.0);
  b.create<AxpbyInst>(Location(), one, f.getParameter(0), one,
                      f.getParameter(0));
  auto loop = b.create<ForeachInst>(
      Location(), llvm::ArrayRef<Value *>{b.createIndexConstant({}, 0)},
      llvm::ArrayRef<Value *>{b.createIndexConstant({}, 4)});
  (void)loop;
  EXPECT_EQ(run(), (std::vector<std::string>{
                       "SPMD instruction 'subgroup_local_id' must not appear "
                       "in a collective region",
                       "collective instruction 'axpby' must not appear in an "
                       "SPMD region",
                       "collective instruction 'foreach' must not appear in "
                       "an SPMD region"}));
}

TEST_F(VerifierTest, MixedRegionsInheritTheirContext) {
  b.createFunction(program, "k", {});
  auto parallel = b.create<ParallelInst>(Location());
  b.setInsertionPointToEnd(parallel.getBody());
  Value *cond = b.createConstant(Location(), true, BoolType::get(ctx));
  auto branch =
      b.create<IfInst>(Location(), llvm::ArrayRef<const Type *>{}, cond);
  b.setInsertionPointToEnd(branch.getThen());
  b.create<SubgroupLocalIdInst>(Location()); // fine: SPMD context
  b.create<ParallelInst>(Location());        // collective in SPMD
  EXPECT_EQ(run(), std::vector<std::string>{
                       "collective instruction 'parallel' must not appear in "
                       "an SPMD region"});
}

TEST_F(VerifierTest, YieldAndLoopResults) {
  b.createFunction(program, "k", {});
  Value *from = b.createIndexConstant({}, 0);
  Value *to = b.createIndexConstant({}, 8);
  Value *init = constant(0.0);
  auto loop = b.create<ForInst>(Location(), from, to, nullptr,
                                llvm::ArrayRef<Value *>{init});
  b.setInsertionPointToEnd(loop.getBody());
  b.create<YieldInst>(Location(), llvm::ArrayRef<Value *>{});
  b.setInsertionPointAfter(loop);
  auto loop2 = b.create<ForInst>(Location(), from, to, nullptr,
                                 llvm::ArrayRef<Value *>{init});
  b.setInsertionPointToEnd(loop2.getBody());
  Value *wrong = constant(1.0, ScalarKind::F64);
  b.create<YieldInst>(Location(), llvm::ArrayRef<Value *>{wrong});
  EXPECT_EQ(run(), (std::vector<std::string>{
                       "'yield' must return 1 value as 'for' declares, but "
                       "returns 0",
                       "value 0 of 'yield' has type f64, but 'for' declares "
                       "f32"}));
}

TEST_F(VerifierTest, UseBeforeDefinitionIsReported) {
  b.createFunction(program, "k", {});
  Value *one = constant(1.0);
  auto add = b.create<AddInst>(Location(), one, one);
  b.setInsertionPoint(one->getDefiningInstruction());
  b.create<AddInst>(Location(), add.getResult(), one); // before its operand
  std::vector<std::string> messages = run();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0],
            "operand 'a' of 'add' is not visible here: its definition does "
            "not precede it in this or an enclosing region");
}

TEST_F(VerifierTest, AllocaAndParameters) {
  const Type *coop =
      CoopMatrixType::get(ctx, ScalarKind::F32, 8, 8, MatrixUse::Acc);
  b.createFunction(program, "k", {{"m", coop}});
  b.create<AllocaInst>(Location(), memref({4, kDynamic}));
  EXPECT_EQ(run(), (std::vector<std::string>{
                       "parameter 'm' of function '@k' must not have type "
                       "coopmatrix<f32x8x8,matrix_acc>",
                       "result of 'alloca' must have a static shape and "
                       "stride, but has type memref<f32x4x?>",
                       "result of 'alloca' must be in the local address "
                       "space, but has type memref<f32x4x?>"}));
}

TEST_F(VerifierTest, NoteAtDefinition) {
  auto buffer = llvm::MemoryBuffer::getMemBuffer("%x = something\n", "t.ir");
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  const char *start = sourceMgr.getMemoryBuffer(id)->getBufferStart();
  Location xLoc(llvm::SMLoc::getFromPointer(start),
                llvm::SMLoc::getFromPointer(start + 2));
  Function &f = b.createFunction(program, "k", {});
  Value *x = b.createConstant(Location(), std::complex<double>(1, 0),
                              ScalarType::get(ctx, ScalarKind::C32));
  x->setName("x");
  x->setLoc(xLoc);
  b.create<LessThanInst>(xLoc, x, x);
  (void)f;
  EXPECT_EQ(run().size(), 1u);
  ASSERT_EQ(reported.size(), 1u);
  ASSERT_EQ(reported[0].notes.size(), 1u);
  EXPECT_EQ(reported[0].notes[0].message, "'x' defined here");
  EXPECT_EQ(reported[0].notes[0].loc.Start, xLoc.Start);
}

TEST_F(VerifierTest, ViewResultTypes) {
  Function &f = b.createFunction(program, "k", {{"A", memref({32, 16})}});
  Value *i = b.createIndexConstant({}, 1);
  // Rank reduction and invariant strides.
  b.create<SubviewInst>(
      Location(), MemRefType::get(ctx, ScalarKind::F32, {8}), f.getParameter(0),
      llvm::ArrayRef<Value *>{i}, llvm::ArrayRef<Value *>{},
      llvm::ArrayRef<int64_t>{4, kDynamic}, llvm::ArrayRef<int64_t>{8, 0});
  b.create<SubviewInst>(
      Location(), MemRefType::get(ctx, ScalarKind::F32, {8, 4}, {1, 32}),
      f.getParameter(0), llvm::ArrayRef<Value *>{}, llvm::ArrayRef<Value *>{},
      llvm::ArrayRef<int64_t>{4, 8}, llvm::ArrayRef<int64_t>{8, 4});
  b.create<SubviewInst>(
      Location(), MemRefType::get(ctx, ScalarKind::F32, {8, 4}),
      f.getParameter(0), llvm::ArrayRef<Value *>{}, llvm::ArrayRef<Value *>{},
      llvm::ArrayRef<int64_t>{4, 8}, llvm::ArrayRef<int64_t>{8, 4});
  b.create<FuseInst>(Location(), memref({512}), f.getParameter(0), 0, 1);
  b.create<ExpandInst>(Location(),
                       MemRefType::get(ctx, ScalarKind::F32, {4, 8, 16}),
                       f.getParameter(0), llvm::ArrayRef<Value *>{}, 0,
                       llvm::ArrayRef<int64_t>{4, 8});
  b.create<ExpandInst>(Location(),
                       MemRefType::get(ctx, ScalarKind::F32, {4, 4, 16}),
                       f.getParameter(0), llvm::ArrayRef<Value *>{}, 0,
                       llvm::ArrayRef<int64_t>{4, 4});
  EXPECT_EQ(run(), (std::vector<std::string>{
                       "result of 'subview' has type memref<f32x8x4>, but "
                       "mode 1 must have stride 32 or '?'",
                       "product of the expand shape of 'expand' must equal "
                       "the size 32 of mode 0, but is 16"}));
}

} // namespace
