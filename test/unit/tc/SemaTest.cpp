//===- SemaTest.cpp - Names, types and index variables --------------------===//
//
// The message of every diagnostic is checked by the lit tests in
// test/lit/tc/sema; these tests look at what Sema records in the tree.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

const ComprehensionStmt &stmtAt(const Program &program, size_t def,
                                size_t stmt) {
  return llvm::cast<ComprehensionStmt>(
      *program.getDefs()[def]->getBody()[stmt]);
}

TEST(TcSemaTest, IndexAndReductionVariablesInOrder) {
  TcSource source("def f(float(N, K) A, float(K) B) -> (O) {\n"
                  "  O(i) +=! A(i, k) * B(k) + C where j in 0:2, C = A(i, 0)\n"
                  "}\n");
  Program *program = source.load(/*inferAllRanges=*/false);
  ASSERT_NE(program, nullptr);
  const ComprehensionStmt &stmt = stmtAt(*program, 0, 0);
  // Where clauses first, then the RHS left to right.
  EXPECT_EQ(std::vector<std::string>(stmt.getIndexVars().begin(),
                                     stmt.getIndexVars().end()),
            (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(stmt.getReductionVars().size(), 2u);
}

TEST(TcSemaTest, TensorTableAndTypes) {
  TcSource source("def f(int8(N) A, double(N) D) -> (O, int32(N) P) {\n"
                  "  T(i) = A(i) + 1\n"
                  "  O(i) = T(i) * D(i)\n"
                  "  P(i) = A(i)\n"
                  "}\n");
  Program *program = source.load(/*inferAllRanges=*/false);
  ASSERT_NE(program, nullptr) << source.messages.front();
  const Def &def = *program->getDefs()[0];
  EXPECT_EQ(def.getSizeVars().size(), 1u);
  const TensorInfo *t = def.lookupTensor("T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->role, TensorInfo::Role::Temporary);
  // int8 + int32 literal promotes to int32.
  EXPECT_EQ(t->type, ScalarType::Int32);
  EXPECT_EQ(def.lookupTensor("O")->type, ScalarType::Double);
  // A wider annotation is applied (TC only checked it).
  EXPECT_EQ(def.lookupTensor("P")->type, ScalarType::Int32);
  EXPECT_EQ(def.lookupTensor("A")->role, TensorInfo::Role::Input);
}

TEST(TcSemaTest, ExpressionTypes) {
  TcSource source("def f(float(N) A, int32(N) I, half(N) H) -> (O) {\n"
                  "  O(i) = A(i) < 1 ? exp(I(i)) : sqrt(H(i)) + 2.0l\n"
                  "}\n");
  Program *program = source.load(/*inferAllRanges=*/false);
  ASSERT_NE(program, nullptr);
  const auto &ternary =
      llvm::cast<TernaryExpr>(stmtAt(*program, 0, 0).getRhs());
  EXPECT_EQ(ternary.getCond().getType(), ScalarType::Bool);
  // Builtins compute in at least float.
  EXPECT_EQ(ternary.getTrueValue().getType(), ScalarType::Float);
  EXPECT_EQ(ternary.getFalseValue().getType(), ScalarType::Double);
  EXPECT_EQ(ternary.getType(), ScalarType::Double);
}

TEST(TcSemaTest, ResolvesNames) {
  TcSource source("def f(float(N) A, float s) -> (O) {\n"
                  "  O(i) = A(i) * s + N + x where x = i\n"
                  "}\n");
  Program *program = source.load(/*inferAllRanges=*/false);
  ASSERT_NE(program, nullptr);
  // ((A(i) * s) + N) + x
  const auto &outer = llvm::cast<BinaryExpr>(stmtAt(*program, 0, 0).getRhs());
  const auto &x = llvm::cast<IdentExpr>(outer.getRhs());
  EXPECT_EQ(x.getRef(), IdentExpr::Ref::Let);
  const auto &middle = llvm::cast<BinaryExpr>(outer.getLhs());
  EXPECT_EQ(llvm::cast<IdentExpr>(middle.getRhs()).getRef(),
            IdentExpr::Ref::Size);
  const auto &product = llvm::cast<BinaryExpr>(middle.getLhs());
  EXPECT_EQ(llvm::cast<IdentExpr>(product.getRhs()).getRef(),
            IdentExpr::Ref::Tensor);
  EXPECT_TRUE(llvm::cast<ApplyExpr>(product.getLhs()).isTensorRead());
}

TEST(TcSemaTest, CallsRecordTheCallee) {
  TcSource source("def g(float(N) X) -> (Y) { Y(i) = X(i) }\n"
                  "def f(float(N) A) -> (B) { B = g(A) }\n");
  Program *program = source.load(/*inferAllRanges=*/false);
  ASSERT_NE(program, nullptr);
  const auto &call = llvm::cast<CallStmt>(*program->getDefs()[1]->getBody()[0]);
  EXPECT_EQ(call.getCalleeDef(), program->getDefs()[0].get());
  EXPECT_EQ(program->getDefs()[1]->lookupTensor("B")->rank, 1u);
}

TEST(TcSemaTest, ReportsEveryErrorOfADef) {
  TcSource source("def f(float(N) A) -> (O) {\n"
                  "  A(i) = 1\n"
                  "  O(i) = B(i) + A(i, i)\n"
                  "}\n");
  EXPECT_EQ(source.load(), nullptr);
  EXPECT_EQ(source.messages.size(), 3u);
}

} // namespace
