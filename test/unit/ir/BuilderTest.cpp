//===- BuilderTest.cpp - Building IR in code, printing and re-parsing -----===//
#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::ir;

namespace {

/// Builds the batched GEMM kernel
///
///   func @batched_gemm(%A: memref<f32x16x8x?>, %B: memref<f32x8x32x?>,
///                      %C: memref<f32x16x32x?>) {
///     %gid = group_id.x : index
///     %a = subview %A[0:16, 0:8, %gid] : memref<f32x16x8>  (and %b, %c)
///     %alpha = constant 1.0 : f32
///     %beta = constant 0.0 : f32
///     gemm.n.t %alpha, %a, %b, %beta, %c
///   }
///
/// with B stored transposed (32x8 per batch).
Function &buildBatchedGemm(Context &ctx, Program &program) {
  Builder b(ctx);
  auto memref = [&](llvm::ArrayRef<int64_t> shape) {
    return MemRefType::get(ctx, ScalarKind::F32, shape);
  };
  Function &f = b.createFunction(program, "batched_gemm",
                                 {{"A", memref({16, 8, kDynamic})},
                                  {"B", memref({32, 8, kDynamic})},
                                  {"C", memref({16, 32, kDynamic})}});
  Value *gid = b.create<GroupIdInst>(Location(), Comp3::X).getResult();
  gid->setName("gid");
  auto slice = [&](Value *batched, llvm::StringRef name) {
    const auto *type = llvm::cast<MemRefType>(batched->getType());
    int64_t rows = type->getShape(0), cols = type->getShape(1);
    Value *view = b.create<SubviewInst>(Location(), memref({rows, cols}),
                                        batched, llvm::ArrayRef<Value *>{gid},
                                        llvm::ArrayRef<Value *>{},
                                        llvm::ArrayRef<int64_t>{0, 0, kDynamic},
                                        llvm::ArrayRef<int64_t>{rows, cols, 0})
                      .getResult();
    view->setName(name);
    return view;
  };
  Value *a = slice(f.getParameter(0), "a");
  Value *bv = slice(f.getParameter(1), "b");
  Value *c = slice(f.getParameter(2), "c");
  const Type *f32 = ScalarType::get(ctx, ScalarKind::F32);
  Value *alpha = b.createConstant(Location(), 1.0, f32);
  alpha->setName("alpha");
  Value *beta = b.createConstant(Location(), 0.0, f32);
  beta->setName("beta");
  b.create<GemmInst>(Location(), alpha, a, bv, beta, c, /*atomic=*/false,
                     Transpose::N, Transpose::T);
  return f;
}

TEST(BuilderTest, BatchedGemmVerifies) {
  Context ctx;
  Program program(ctx);
  Function &f = buildBatchedGemm(ctx, program);
  EXPECT_EQ(f.getBody().size(), 7u);
  llvm::SourceMgr sourceMgr;
  std::string errors;
  llvm::raw_string_ostream os(errors);
  DiagnosticEngine diags(sourceMgr, os);
  EXPECT_TRUE(succeeded(verify(program, diags))) << errors;
  auto gemm = llvm::cast<GemmInst>(&f.getBody().back());
  EXPECT_EQ(gemm.getTransposeB(), Transpose::T);
  EXPECT_EQ(gemm.getB()->getName(), "b");
  EXPECT_EQ(gemm.getA()->getType()->str(), "memref<f32x16x8>");
}

TEST(BuilderTest, BatchedGemmPrintsAndReparses) {
  Context ctx;
  Program program(ctx);
  buildBatchedGemm(ctx, program);
  std::string text;
  llvm::raw_string_ostream os(text);
  print(program, os);
  os.flush();
  for (llvm::StringRef expected :
       {"func @batched_gemm(%A: memref<f32x16x8x?>, %B: memref<f32x32x8x?>, "
        "%C: memref<f32x16x32x?>)",
        "%gid = group_id.x : index",
        "%a = subview %A[0:16, 0:8, %gid] : memref<f32x16x8>",
        "%alpha = constant 1.0 : f32", "gemm.n.t %alpha, %a, %b, %beta, %c"}) {
    EXPECT_NE(llvm::StringRef(text).find(expected), llvm::StringRef::npos)
        << "missing '" << expected.str() << "' in:\n"
        << text;
  }

  // The printed text parses and verifies, and prints the same again.
  Context ctx2;
  llvm::SourceMgr sourceMgr;
  std::string errors;
  llvm::raw_string_ostream errs(errors);
  DiagnosticEngine diags(sourceMgr, errs);
  std::unique_ptr<Program> reparsed = parseSource(ctx2, diags, text);
  ASSERT_TRUE(reparsed) << errs.str() << "\n" << text;
  EXPECT_TRUE(succeeded(verify(*reparsed, diags))) << errs.str();
  std::string again;
  llvm::raw_string_ostream os2(again);
  print(*reparsed, os2);
  EXPECT_EQ(os2.str(), text);
}

} // namespace
