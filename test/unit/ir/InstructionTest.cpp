//===- InstructionTest.cpp - Descriptors, views, uses, visitor ------------===//
#include "comprehend/ir/Builder.h"
#include "comprehend/ir/InstVisitor.h"

#include "gtest/gtest.h"

#include <set>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

TEST(InstructionTest, EveryMnemonicRoundTrips) {
  std::set<std::string> mnemonics;
  for (unsigned i = 0; i < kNumInstKinds; ++i) {
    auto kind = static_cast<InstKind>(i);
    const InstDescriptor &desc = getDescriptor(kind);
    EXPECT_EQ(desc.kind, kind);
    EXPECT_EQ(lookupMnemonic(desc.mnemonic), kind) << desc.mnemonic.str();
    EXPECT_TRUE(mnemonics.insert(desc.mnemonic.str()).second);
    EXPECT_FALSE(desc.summary.empty()) << desc.mnemonic.str();
  }
  EXPECT_FALSE(lookupMnemonic("gemm.atomic"));
  EXPECT_FALSE(lookupMnemonic(""));
}

TEST(InstructionTest, SpecInstructionsArePresent) {
  // One of each family of the spec.
  for (const char *name : {"alloca",
                           "axpby",
                           "cumsum",
                           "foreach",
                           "foreach_tile",
                           "gemm",
                           "gemv",
                           "ger",
                           "hadamard",
                           "parallel",
                           "sum",
                           "lifetime_stop",
                           "add",
                           "xor",
                           "abs",
                           "re",
                           "associated",
                           "atomic_load",
                           "atomic_store",
                           "atomic_add",
                           "atomic_min",
                           "atomic_max",
                           "barrier",
                           "group_id",
                           "num_groups",
                           "num_subgroups",
                           "subgroup_size",
                           "cast",
                           "equal",
                           "less_than_equal",
                           "constant",
                           "expand",
                           "for",
                           "fuse",
                           "if",
                           "load",
                           "native_log2",
                           "size",
                           "subview",
                           "store",
                           "yield",
                           "subgroup_id",
                           "subgroup_linear_id",
                           "subgroup_local_id",
                           "cooperative_matrix_apply",
                           "cooperative_matrix_atomic_load",
                           "cooperative_matrix_atomic_store",
                           "cooperative_matrix_atomic_min",
                           "cooperative_matrix_construct",
                           "cooperative_matrix_extract",
                           "cooperative_matrix_insert",
                           "cooperative_matrix_load",
                           "cooperative_matrix_mul_add",
                           "cooperative_matrix_prefetch",
                           "cooperative_matrix_reduce_max",
                           "cooperative_matrix_scale",
                           "cooperative_matrix_store",
                           "subgroup_broadcast",
                           "subgroup_exclusive_scan_min",
                           "subgroup_inclusive_scan_add",
                           "subgroup_reduce_max"})
    EXPECT_TRUE(lookupMnemonic(name)) << name;
}

TEST(InstructionTest, DescriptorContents) {
  const InstDescriptor &gemm = getDescriptor(InstKind::Gemm);
  EXPECT_EQ(gemm.category, InstCategory::Collective);
  ASSERT_EQ(gemm.operands.size(), 5u);
  EXPECT_EQ(gemm.operands[1].name, "A");
  EXPECT_EQ(gemm.operands[1].constraint, "a memref of order 2");
  ASSERT_EQ(gemm.properties.size(), 3u);
  EXPECT_EQ(gemm.properties[0].kind, PropertyKind::Flag);
  EXPECT_EQ(gemm.properties[0].spellings[0], ".atomic");
  EXPECT_EQ(gemm.properties[1].spellings[1], ".t");
  EXPECT_EQ(gemm.findProperty("transpose_b"), 2u);
  const InstDescriptor &load = getDescriptor(InstKind::Load);
  EXPECT_EQ(load.operands[1].arity, Arity::Variadic);
  const InstDescriptor &yield = getDescriptor(InstKind::Yield);
  EXPECT_TRUE(yield.isTerminator);
  const InstDescriptor &ifDesc = getDescriptor(InstKind::If);
  ASSERT_EQ(ifDesc.regions.size(), 2u);
  EXPECT_TRUE(ifDesc.regions[1].optional);
  EXPECT_EQ(getDescriptor(InstKind::Foreach).regions[0].kind, RegionKind::Spmd);
  EXPECT_EQ(getDescriptor(InstKind::SubgroupId).category, InstCategory::Spmd);
  EXPECT_TRUE(getDescriptor(InstKind::SubgroupId).properties[0].alwaysPrint);
  EXPECT_EQ(getDescriptor(InstKind::AtomicAdd).properties[0].defaultValue,
            static_cast<int64_t>(MemoryScope::WorkGroup));
}

struct Fixture : public ::testing::Test {
  Context ctx;
  Program program{ctx};
  Builder b{ctx};
  const Type *f32 = ScalarType::get(ctx, ScalarKind::F32);
  const Type *index = ScalarType::get(ctx, ScalarKind::Index);
};

TEST_F(Fixture, ViewsAndCasts) {
  const MemRefType *vec = MemRefType::get(ctx, ScalarKind::F32, {8});
  Function &f = b.createFunction(program, "k", {{"x", vec}});
  Value *i = b.createIndexConstant({}, 3);
  auto load = b.create<LoadInst>(Location(), f.getParameter(0),
                                 llvm::ArrayRef<Value *>{i});
  EXPECT_EQ(load.getResult()->getType(), f32); // inferred
  Instruction *inst = load;
  EXPECT_TRUE(llvm::isa<LoadInst>(inst));
  EXPECT_FALSE(llvm::isa<StoreInst>(inst));
  EXPECT_FALSE(llvm::dyn_cast<StoreInst>(inst));
  auto again = llvm::dyn_cast<LoadInst>(inst);
  ASSERT_TRUE(again);
  EXPECT_EQ(again.getTensor(), f.getParameter(0));
  EXPECT_EQ(again.getIndices().size(), 1u);
  const Instruction *constInst = inst;
  EXPECT_TRUE(llvm::isa<LoadInst>(constInst));
  EXPECT_EQ(llvm::cast<LoadInst>(constInst).getIndices()[0], i);
  EXPECT_EQ(inst->getName(), "load");
  EXPECT_EQ(inst->getParentRegion(), &f.getBody());
}

TEST_F(Fixture, UseListsAndReplace) {
  Function &f = b.createFunction(program, "k", {});
  (void)f;
  Value *one = b.createConstant({}, 1.0, f32);
  Value *two = b.createConstant({}, 2.0, f32);
  auto add = b.create<AddInst>(Location(), one, one);
  EXPECT_EQ(add.getResult()->getType(), f32);
  EXPECT_EQ(one->getNumUses(), 2u);
  EXPECT_FALSE(two->hasUses());
  add->setOperand(1, two);
  EXPECT_EQ(one->getNumUses(), 1u);
  EXPECT_EQ(two->getNumUses(), 1u);
  one->replaceAllUsesWith(two);
  EXPECT_FALSE(one->hasUses());
  EXPECT_EQ(two->getNumUses(), 2u);
  EXPECT_EQ(add.getA(), two);
  f.getBody().erase(add);
  EXPECT_FALSE(two->hasUses());
  EXPECT_EQ(f.getBody().size(), 2u);
}

TEST_F(Fixture, InsertionPoints) {
  Function &f = b.createFunction(program, "k", {});
  Value *last = b.createIndexConstant({}, 2);
  b.setInsertionPoint(last->getDefiningInstruction());
  Value *first = b.createIndexConstant({}, 1);
  b.setInsertionPointAfter(last->getDefiningInstruction());
  Value *third = b.createIndexConstant({}, 3);
  llvm::SmallVector<Instruction *, 3> order;
  for (Instruction &inst : f.getBody())
    order.push_back(&inst);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], first->getDefiningInstruction());
  EXPECT_EQ(order[1], last->getDefiningInstruction());
  EXPECT_EQ(order[2], third->getDefiningInstruction());
}

TEST_F(Fixture, RegionParametersFromBuildHooks) {
  b.createFunction(program, "k", {});
  Value *from =
      b.create<ConstantInst>(Location(), ScalarType::get(ctx, ScalarKind::I32),
                             ConstantValue(int64_t(0)))
          .getResult();
  Value *to =
      b.create<ConstantInst>(Location(), ScalarType::get(ctx, ScalarKind::I32),
                             ConstantValue(int64_t(8)))
          .getResult();
  Value *init = b.createConstant({}, 0.0, f32);
  auto loop = b.create<ForInst>(Location(), from, to, nullptr,
                                llvm::ArrayRef<Value *>{init});
  ASSERT_EQ(loop.getResults().size(), 1u);
  EXPECT_EQ(loop.getResults()[0]->getType(), f32);
  EXPECT_EQ(loop.getStep(), nullptr);
  ASSERT_EQ(loop.getBody().getNumParameters(), 2u);
  EXPECT_EQ(loop.getBody().getParameter(0)->getType(), from->getType());
  EXPECT_EQ(loop.getBody().getParameter(1)->getType(), f32);
  EXPECT_EQ(loop.getBody().getParentInstruction(), loop.getInstruction());
  EXPECT_EQ(loop.getBody().getEnclosingFunction(), &*program.begin());
}

TEST_F(Fixture, ResultTypesAreInferredFromCapturedVariables) {
  const MemRefType *vec = MemRefType::get(ctx, ScalarKind::F64, {8});
  const Type *coop =
      CoopMatrixType::get(ctx, ScalarKind::F16, 16, 8, MatrixUse::A);
  Function &f = b.createFunction(program, "k", {{"x", vec}});
  Value *i = b.createIndexConstant({}, 0);
  Value *v = b.createConstant({}, 1.0, ScalarType::get(ctx, ScalarKind::F64));
  // (MemRef $e):$tensor ... (Number $e):$result
  auto atomic = b.create<AtomicAddInst>(Location(), v, f.getParameter(0),
                                        llvm::ArrayRef<Value *>{i});
  EXPECT_EQ(atomic.getResult()->getType()->str(), "f64");
  EXPECT_EQ(atomic.getScope(), MemoryScope::WorkGroup);
  EXPECT_EQ(atomic.getSemantics(), MemorySemantics::Relaxed);
  // (RealOf $a): the component type of a complex scalar.
  Value *z = b.createConstant({}, std::complex<double>(1, 1),
                              ScalarType::get(ctx, ScalarKind::C64));
  EXPECT_EQ(b.create<AbsInst>(Location(), z).getResult()->getType()->str(),
            "f64");
  EXPECT_EQ(b.create<ConjInst>(Location(), z).getResult()->getType()->str(),
            "c64");
  // Fixed result types.
  EXPECT_EQ(b.create<LessThanInst>(Location(), v, v).getResult()->getType(),
            BoolType::get(ctx));
  EXPECT_EQ(b.create<NumSubgroupsInst>(Location(), Comp3::Y)
                .getResult()
                ->getType()
                ->str(),
            "i32");
  EXPECT_EQ(b.create<SizeInst>(Location(), f.getParameter(0), 0)
                .getResult()
                ->getType(),
            index);
  // (Coop $k):$mat ... (Number $k):$result
  Value *m =
      b.create<CooperativeMatrixConstructInst>(
           Location(), coop,
           b.createConstant({}, 0.0, ScalarType::get(ctx, ScalarKind::F16)))
          .getResult();
  EXPECT_EQ(b.create<CooperativeMatrixExtractInst>(Location(), m, 0)
                .getResult()
                ->getType()
                ->str(),
            "f16");
  // (ElementOf $tensor) of a group is its memref type.
  const GroupType *group = GroupType::get(ctx, vec, kDynamic);
  Function &g = b.createFunction(program, "g", {{"G", group}});
  Value *j = b.createIndexConstant({}, 0);
  EXPECT_EQ(b.create<LoadInst>(Location(), g.getParameter(0),
                               llvm::ArrayRef<Value *>{j})
                .getResult()
                ->getType(),
            vec);
}

struct Counter : InstVisitor<Counter> {
  void visitGemm(GemmInst) { ++gemms; }
  void visitConstant(ConstantInst constant) {
    if (std::holds_alternative<double>(constant.getValue()))
      ++floats;
  }
  void visitInstruction(Instruction &) { ++others; }
  unsigned gemms = 0, floats = 0, others = 0;
};

TEST_F(Fixture, Visitor) {
  const MemRefType *m = MemRefType::get(ctx, ScalarKind::F32, {4, 4});
  Function &f = b.createFunction(program, "k", {{"A", m}, {"B", m}, {"C", m}});
  Value *alpha = b.createConstant({}, 1.0, f32);
  b.createIndexConstant({}, 0);
  b.create<GemmInst>(Location(), alpha, f.getParameter(0), f.getParameter(1),
                     alpha, f.getParameter(2));
  Counter counter;
  for (Instruction &inst : f.getBody())
    counter.dispatch(inst);
  EXPECT_EQ(counter.gemms, 1u);
  EXPECT_EQ(counter.floats, 1u);
  EXPECT_EQ(counter.others, 0u); // the index constant is a ConstantInst too
}

} // namespace
