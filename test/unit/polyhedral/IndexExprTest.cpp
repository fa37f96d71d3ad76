//===- IndexExprTest.cpp - Integer expressions for the polyhedral layer ---===//
#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace comprehend::poly;
using namespace comprehend::poly::test;

namespace {

TEST(IndexExpr, PrintsWithMinimalParentheses) {
  EXPECT_EQ((V("i") + V("k") - 1).str(), "i + k - 1");
  EXPECT_EQ(((V("i") + 1) * C(2)).str(), "(i + 1) * 2");
  EXPECT_EQ((V("i") - (V("j") - V("k"))).str(), "i - (j - k)");
  EXPECT_EQ((V("i") + (V("j") + V("k"))).str(), "i + j + k");
  EXPECT_EQ(IndexExpr::neg(V("i") + V("j")).str(), "-(i + j)");
  EXPECT_EQ(floorDiv(P("H") - P("KH"), C(2)).str(), "floord(H - KH, 2)");
  EXPECT_EQ(mod(V("i"), C(3)).str(), "i % 3");
  EXPECT_EQ(IndexExpr::binary(IndexExpr::Kind::Min, P("N"), P("M")).str(),
            "min(N, M)");
}

TEST(IndexExpr, PrintsSelectsLikeC) {
  auto cmp = [](IndexExpr::Kind kind, IndexExpr lhs, IndexExpr rhs) {
    return IndexExpr::binary(kind, std::move(lhs), std::move(rhs));
  };
  using Kind = IndexExpr::Kind;
  IndexExpr small = cmp(Kind::Le, P("N"), C(4));
  IndexExpr both = cmp(Kind::And, cmp(Kind::Ge, 2 * P("N"), 3 * P("M") + 1),
                       cmp(Kind::Eq, mod(P("N") + P("M") - 1, C(4)), C(0)));
  EXPECT_EQ(both.str(), "2 * N >= 3 * M + 1 && (N + M - 1) % 4 == 0");
  IndexExpr chain =
      IndexExpr::select(small, C(2), IndexExpr::select(both, P("N") - 2, C(0)));
  EXPECT_EQ(chain.str(), "N <= 4 ? 2 : 2 * N >= 3 * M + 1 && (N + M - 1) % 4 "
                         "== 0 ? N - 2 : 0");
  EXPECT_EQ((IndexExpr::select(small, C(2), C(3)) + C(1)).str(),
            "(N <= 4 ? 2 : 3) + 1");
  EXPECT_EQ(IndexExpr::select(cmp(Kind::Or, small, cmp(Kind::Eq, P("M"), C(1))),
                              IndexExpr::select(small, C(1), C(2)), C(3))
                .str(),
            "N <= 4 || M == 1 ? (N <= 4 ? 1 : 2) : 3");
  EXPECT_TRUE(chain.hasSelect());
  EXPECT_TRUE((C(1) - chain).hasSelect());
  EXPECT_FALSE(both.hasSelect());
}

TEST(IndexExpr, VariablesInFirstUseOrder) {
  IndexExpr expr =
      V("j") + 2 * V("i") - P("N") + IndexExpr::opaque({"k", "j"}) + V("i");
  EXPECT_EQ(expr.getVariables(),
            (llvm::SmallVector<std::string, 4>{"j", "i", "k"}));
  EXPECT_TRUE((P("N") + C(1)).getVariables().empty());
}

} // namespace
