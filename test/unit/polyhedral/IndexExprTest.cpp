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

TEST(IndexExpr, VariablesInFirstUseOrder) {
  IndexExpr expr =
      V("j") + 2 * V("i") - P("N") + IndexExpr::opaque({"k", "j"}) + V("i");
  EXPECT_EQ(expr.getVariables(),
            (llvm::SmallVector<std::string, 4>{"j", "i", "k"}));
  EXPECT_TRUE((P("N") + C(1)).getVariables().empty());
}

} // namespace
