//===- RangesTest.cpp - TC statements to range inference ------------------===//
#include "TcTestUtil.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

/// Infers \p entry of \p text under \p sizes.
std::optional<DefRanges> infer(TcSource &source,
                               const llvm::StringMap<int64_t> &sizes) {
  Program *program = source.load(/*inferAllRanges=*/false);
  if (!program)
    return std::nullopt;
  return inferRanges(*program, *findEntry(*program, ""), sizes, source.diags);
}

TEST(TcRangesTest, StridedConvolution) {
  TcSource source("def f(float(H) I, float(KH) W) -> (O) {\n"
                  "  O(h) +=! I(2 * h + kh) * W(kh)\n"
                  "}\n");
  std::optional<DefRanges> ranges = infer(source, {{"H", 9}, {"KH", 3}});
  ASSERT_TRUE(ranges);
  const poly::VarRange *h = ranges->statements[0].ranges.lookup("h");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->hiExpr.str(), "floord(H - KH, 2) + 1");
  EXPECT_EQ(h->hi, 4);
  EXPECT_EQ(ranges->shapes["O"].extent[0], 4);
}

TEST(TcRangesTest, LongestReductionIsTheLargestProductOfReductionRanges) {
  // 3 x 7 terms per element of C (a reduction over k and l), 5 of s, none
  // of the elementwise D.
  TcSource source("def f(float(M, K, L) A, float(N, K) B) -> (C, s, D) {\n"
                  "  C(m, n) +=! A(m, k, l) * B(n, k)\n"
                  "  s(n) +=! B(n, k) where k in 0:K - 2\n"
                  "  D(m) = A(m, 0, 0)\n"
                  "}\n");
  std::optional<DefRanges> ranges =
      infer(source, {{"M", 2}, {"K", 7}, {"L", 3}, {"N", 4}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(getLongestReduction(*ranges), 21);
  TcSource elementwise("def g(float(N) A) -> (B) {\n"
                       "  B(i) = A(i)\n"
                       "}\n");
  std::optional<DefRanges> none = infer(elementwise, {{"N", 4}});
  ASSERT_TRUE(none);
  EXPECT_EQ(getLongestReduction(*none), 1);
}

TEST(TcRangesTest, GatherSubscriptsAreOpaque) {
  // l is bounded by idx(l); table(idx(l)) cannot bound anything.
  TcSource source("def f(float(N) T, int32(L) idx) -> (O) {\n"
                  "  O(l) = T(idx(l))\n"
                  "}\n");
  std::optional<DefRanges> ranges = infer(source, {{"N", 5}, {"L", 3}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->statements[0].ranges.lookup("l")->hi, 3);
}

TEST(TcRangesTest, ModuloByVariableNeedsWhere) {
  TcSource source("def f(float(N) A) -> (B) {\n"
                  "  B(i) = A(i % N) where i in 0:2 * N\n"
                  "}\n");
  std::optional<DefRanges> ranges = infer(source, {{"N", 4}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->statements[0].ranges.lookup("i")->hi, 8);
}

TEST(TcRangesTest, DimensionAccessInWhereBound) {
  TcSource source("def f(float(N, M) A) -> (B) {\n"
                  "  B(i) +=! A(i, j) where j in 0:A.1 - 1\n"
                  "}\n");
  std::optional<DefRanges> ranges = infer(source, {{"N", 2}, {"M", 5}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->statements[0].ranges.lookup("j")->hi, 4);
}

TEST(TcRangesTest, CallResultsTakeTheCalleeShape) {
  TcSource source("def g(float(N) X) -> (Y) { Y(i) +=! X(i + k) where k in "
                  "0:3 }\n"
                  "def f(float(M) A) -> (B) {\n"
                  "  T = g(A)\n"
                  "  B(i) = T(i)\n"
                  "}\n");
  std::optional<DefRanges> ranges = infer(source, {{"M", 10}});
  ASSERT_TRUE(ranges);
  EXPECT_EQ(ranges->shapes["B"].extentExprs[0].str(), "M - 2");
  EXPECT_EQ(ranges->shapes["B"].extent[0], 8);
}

} // namespace
