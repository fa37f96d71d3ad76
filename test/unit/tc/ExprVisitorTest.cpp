//===- ExprVisitorTest.cpp - Dispatch over and walks of TC expressions ----===//
#include "TcTestUtil.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

/// The right-hand side of the first statement of the first def of \p text.
const Expr &getRhs(TcSource &source) {
  const Def &def = *source.program->getDefs().front();
  return llvm::cast<ComprehensionStmt>(*def.getBody().front()).getRhs();
}

std::string printed(const Expr &expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(expr, os);
  return text;
}

constexpr llvm::StringLiteral kSource =
    "def f(float(N) A, float(N) B, float S) -> (O) {\n"
    "  O(i) = A(i) > 0 ? exp(A(i) * S) : -B(N - 1 - i) + float(i)\n"
    "}\n";

TEST(TcExprVisitorTest, WalkVisitsParentsFirstOrLast) {
  TcSource source(kSource);
  ASSERT_TRUE(source.load()) << source.messages.front();
  const Expr &rhs = getRhs(source);
  std::vector<std::string> pre, post;
  walk(rhs, [&](const Expr &expr) { pre.push_back(printed(expr)); });
  walk(
      rhs, [&](const Expr &expr) { post.push_back(printed(expr)); },
      WalkOrder::PostOrder);
  ASSERT_EQ(pre.size(), post.size());
  EXPECT_EQ(pre.front(), printed(rhs));
  EXPECT_EQ(post.back(), printed(rhs));
  EXPECT_EQ(pre[1], "(A(i) > 0)");
  EXPECT_EQ(post.front(), "i");
}

TEST(TcExprVisitorTest, WalkFiltersSkipsAndStops) {
  TcSource source(kSource);
  ASSERT_TRUE(source.load()) << source.messages.front();
  const Expr &rhs = getRhs(source);
  std::vector<std::string> applies;
  walk<ApplyExpr>(rhs, [&](const ApplyExpr &apply) {
    applies.push_back(apply.getCallee().name.str());
  });
  EXPECT_EQ(applies, (std::vector<std::string>{"A", "exp", "A", "B"}));

  // Skipping the operands of `?:` leaves the root alone.
  unsigned visited = 0;
  walk(rhs, [&](const Expr &expr) {
    ++visited;
    return llvm::isa<TernaryExpr>(expr) ? WalkResult::skip()
                                        : WalkResult::advance();
  });
  EXPECT_EQ(visited, 1u);

  // Stopping at the first builtin call.
  std::vector<std::string> before;
  WalkResult result = walk(rhs, [&](const Expr &expr) {
    const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr);
    if (apply && !apply->isTensorRead())
      return WalkResult::interrupt();
    before.push_back(printed(expr));
    return WalkResult::advance();
  });
  EXPECT_TRUE(result.wasInterrupted());
  // The root, the condition and its three nodes; not the true value.
  EXPECT_EQ(before.size(), 5u);
  EXPECT_EQ(before.back(), "0");
  EXPECT_TRUE(llvm::none_of(before, [](const std::string &text) {
    return llvm::StringRef(text).startswith("exp");
  }));
}

TEST(TcExprVisitorTest, TensorReadsIncludeZeroDimensionalOnes) {
  TcSource source(kSource);
  ASSERT_TRUE(source.load()) << source.messages.front();
  std::vector<std::string> reads;
  forEachTensorRead(getRhs(source), [&](const Expr &, llvm::StringRef name) {
    reads.push_back(name.str());
  });
  EXPECT_EQ(reads, (std::vector<std::string>{"A", "A", "S", "B"}));
}

/// Counts nodes per class through the dispatch.
struct KindCounter : ConstExprVisitor<KindCounter, unsigned> {
  unsigned visitExpr(const Expr &expr) {
    unsigned count = 0;
    forEachOperand(expr, [&](const Expr &operand) { count += visit(operand); });
    return count;
  }
  unsigned visitApply(const ApplyExpr &apply) { return 1 + visitExpr(apply); }
};

TEST(TcExprVisitorTest, VisitorDefaultsToVisitExpr) {
  TcSource source(kSource);
  ASSERT_TRUE(source.load()) << source.messages.front();
  EXPECT_EQ(KindCounter().visit(getRhs(source)), 4u);
}

} // namespace
