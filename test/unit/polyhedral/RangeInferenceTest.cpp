//===- RangeInferenceTest.cpp - TC range inference with isl ---------------===//
//
// The worked examples of TC range inference (docs/range-inference.md),
// built directly from IndexExpr. Symbolic results are compared as text where the text is
// part of the contract (`N - K + 1`, `floord(H - KH, 2) + 1`) and every
// result is checked against its closed form under random concrete sizes.
//
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

using namespace comprehend;
using namespace comprehend::poly;
using namespace comprehend::poly::test;

namespace {

using Sizes = llvm::StringMap<int64_t>;
/// var -> [lo, hi) expected for one statement.
using ExpectedRanges = std::map<std::string, std::pair<int64_t, int64_t>>;

/// Runs \p def under \p trials random size assignments drawn from
/// \p paramRanges (inclusive) and compares the concrete ranges of statement
/// \p stmt with \p expected.
void checkConcrete(
    const Def &def,
    const std::map<std::string, std::pair<int64_t, int64_t>> &paramRanges,
    const std::function<ExpectedRanges(const Sizes &)> &expected, unsigned stmt,
    unsigned trials = 8) {
  std::mt19937 rng(1234);
  for (unsigned trial = 0; trial < trials; ++trial) {
    Sizes sizes;
    std::string description;
    for (const auto &[name, bounds] : paramRanges) {
      int64_t value = std::uniform_int_distribution<int64_t>(
          bounds.first, bounds.second)(rng);
      sizes[name] = value;
      description += name + "=" + std::to_string(value) + " ";
    }
    SCOPED_TRACE(description);
    Outcome outcome = infer(def, sizes);
    ASSERT_TRUE(outcome.ok) << outcome.firstMessage(Severity::Error);
    for (const auto &[var, bounds] : expected(sizes)) {
      const VarRange &range = outcome.range(stmt, var);
      ASSERT_TRUE(range.lo && range.hi) << var;
      EXPECT_EQ(*range.lo, bounds.first) << var;
      EXPECT_EQ(*range.hi, bounds.second) << var;
    }
  }
}

int64_t floorDivide(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

Def conv1d() {
  // O(i) +=! I(i + k) * W(k)
  return {{"N", "K"},
          {{"I", {P("N")}}, {"W", {P("K")}}},
          {statement("O", {"i"},
                     {read("I", {V("i") + V("k")}), read("W", {V("k")})})}};
}

TEST(RangeInference, Conv1DSymbolic) {
  Outcome outcome = infer(conv1d());
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "k").loExpr.str(), "0");
  EXPECT_EQ(outcome.range(0, "k").hiExpr.str(), "K");
  EXPECT_EQ(outcome.range(0, "i").loExpr.str(), "0");
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "N - K + 1");
  EXPECT_FALSE(outcome.range(0, "i").lo.has_value());
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(), "N - K + 1");
  EXPECT_TRUE(outcome.diagnostics.empty());
}

TEST(RangeInference, Conv1DConcrete) {
  checkConcrete(
      conv1d(), {{"N", {5, 60}}, {"K", {1, 5}}},
      [](const Sizes &s) {
        return ExpectedRanges{{"k", {0, s.lookup("K")}},
                              {"i", {0, s.lookup("N") - s.lookup("K") + 1}}};
      },
      0);
}

TEST(RangeInference, Conv1DEmptyUnderGivenSizes) {
  Outcome outcome = infer(conv1d(), Sizes{{"N", 3}, {"K", 5}});
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.firstMessage(Severity::Error),
            "inferred an empty range for index 'i' with the given sizes");
}

Def stridedConv() {
  // O(h) +=! I(2 * h + kh) * W(kh)
  return {
      {"H", "KH"},
      {{"I", {P("H")}}, {"W", {P("KH")}}},
      {statement("O", {"h"},
                 {read("I", {2 * V("h") + V("kh")}), read("W", {V("kh")})})}};
}

TEST(RangeInference, StridedConvolution) {
  Outcome outcome = infer(stridedConv());
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "h").loExpr.str(), "0");
  EXPECT_EQ(outcome.range(0, "h").hiExpr.str(), "floord(H - KH, 2) + 1");
  checkConcrete(
      stridedConv(), {{"H", {4, 50}}, {"KH", {1, 4}}},
      [](const Sizes &s) {
        return ExpectedRanges{
            {"h", {0, floorDivide(s.lookup("H") - s.lookup("KH"), 2) + 1}},
            {"kh", {0, s.lookup("KH")}}};
      },
      0);
}

TEST(RangeInference, Shift1DHasMinOne) {
  // O(i) = I(i - 1)
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i") - 1})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").loExpr.str(), "1");
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "N + 1");
  EXPECT_EQ(outcome.shapes["O"].loExprs[0].str(), "1");
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(), "N");
  checkConcrete(
      def, {{"N", {1, 100}}},
      [](const Sizes &s) {
        return ExpectedRanges{{"i", {1, s.lookup("N") + 1}}};
      },
      0);
}

TEST(RangeInference, ShiftByFiveHasNegativeMin) {
  // O(i) = I(i + 5)
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i") + 5})})}};
  Outcome outcome = infer(def, Sizes{{"N", 17}});
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").lo, -5);
  EXPECT_EQ(outcome.range(0, "i").hi, 12);
  EXPECT_EQ(outcome.shapes["O"].extent[0], 17);
}

TEST(RangeInference, LargeStride) {
  // O(i) = I(123 * i): extent (N + 122) / 123
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {123 * V("i")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "floord(N + 122, 123)");
  checkConcrete(
      def, {{"N", {1, 1000}}},
      [](const Sizes &s) {
        return ExpectedRanges{{"i", {0, (s.lookup("N") + 122) / 123}}};
      },
      0, 16);
}

TEST(RangeInference, Transpose) {
  // O(i, j) = I(j, i)
  Def def{{"N", "M"},
          {{"I", {P("N"), P("M")}}},
          {statement("O", {"i", "j"}, {read("I", {V("j"), V("i")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(), "M");
  EXPECT_EQ(outcome.shapes["O"].extentExprs[1].str(), "N");
}

TEST(RangeInference, TCASolvesInTwoRounds) {
  // O(i) +=! I(j, i + j, k): j, k in round 1, then i in [0, I1 - I0].
  Def def{
      {"A", "B", "C"},
      {{"I", {P("A"), P("B"), P("C")}}},
      {statement("O", {"i"}, {read("I", {V("j"), V("i") + V("j"), V("k")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "-A + B + 1");
  checkConcrete(
      def, {{"A", {1, 10}}, {"B", {10, 30}}, {"C", {1, 5}}},
      [](const Sizes &s) {
        return ExpectedRanges{{"i", {0, s.lookup("B") - s.lookup("A") + 1}},
                              {"j", {0, s.lookup("A")}},
                              {"k", {0, s.lookup("C")}}};
      },
      0);
}

TEST(RangeInference, TCFIntersectsUses) {
  // O2(j, k, l) +=! B(j, k, l) + A(i, j, k)
  Def def{
      {"B0", "B1", "B2", "A0", "A1", "A2"},
      {{"B", {P("B0"), P("B1"), P("B2")}}, {"A", {P("A0"), P("A1"), P("A2")}}},
      {statement("O2", {"j", "k", "l"},
                 {read("B", {V("j"), V("k"), V("l")}),
                  read("A", {V("i"), V("j"), V("k")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["O2"].extentExprs[0].str(), "min(B0, A1)");
  EXPECT_EQ(outcome.shapes["O2"].extentExprs[1].str(), "min(B1, A2)");
  EXPECT_EQ(outcome.shapes["O2"].extentExprs[2].str(), "B2");
  checkConcrete(
      def,
      {{"B0", {1, 9}},
       {"B1", {1, 9}},
       {"B2", {1, 9}},
       {"A0", {1, 9}},
       {"A1", {1, 9}},
       {"A2", {1, 9}}},
      [](const Sizes &s) {
        return ExpectedRanges{
            {"j", {0, std::min(s.lookup("B0"), s.lookup("A1"))}},
            {"k", {0, std::min(s.lookup("B1"), s.lookup("A2"))}},
            {"l", {0, s.lookup("B2")}},
            {"i", {0, s.lookup("A0")}}};
      },
      0);
}

TEST(RangeInference, TCBCannotBeSolved) {
  // O(i) +=! A(i + j, i + j, i + j): no single-variable subscript.
  Def def{{"N"},
          {{"A", {P("N"), P("N"), P("N")}}},
          {statement("O", {"i"},
                     {read("A", {V("i") + V("j"), V("i") + V("j"),
                                 V("i") + V("j")})})}};
  Outcome outcome = infer(def);
  EXPECT_FALSE(outcome.ok);
  ASSERT_EQ(outcome.count(Severity::Error), 2u);
  EXPECT_EQ(outcome.diagnostics[0].message,
            "could not infer the range of index 'i'; add a where clause such "
            "as 'where i in 0:N'");
  EXPECT_EQ(outcome.diagnostics[1].message,
            "could not infer the range of index 'j'; add a where clause such "
            "as 'where j in 0:N'");
}

TEST(RangeInference, AmbiguousRotateCannotBeSolved) {
  // O(i, j) = I(10 + i - j, i + j)
  Def def{{"N", "M"},
          {{"I", {P("N"), P("M")}}},
          {statement("O", {"i", "j"},
                     {read("I", {10 + V("i") - V("j"), V("i") + V("j")})})}};
  Outcome outcome = infer(def);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.count(Severity::Error), 2u);
}

TEST(RangeInference, UnambiguousRotate) {
  // O(i, j) = I(10 + i - j, i + j) where i in 0:10
  Def def{{"N", "M"},
          {{"I", {P("N"), P("M")}}},
          {statement("O", {"i", "j"},
                     {read("I", {10 + V("i") - V("j"), V("i") + V("j")})},
                     {where("i", C(0), C(10))})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok) << outcome.firstMessage(Severity::Error);
  EXPECT_EQ(outcome.count(Severity::Warning), 0u);
  checkConcrete(
      def, {{"N", {15, 40}}, {"M", {25, 40}}},
      [](const Sizes &s) {
        int64_t n = s.lookup("N"), m = s.lookup("M");
        int64_t lo = 20 - std::min<int64_t>(n, 20);
        int64_t extent =
            std::min<int64_t>(m - 10, 10) + std::min<int64_t>(n, 20) - 19;
        return ExpectedRanges{{"i", {0, 10}}, {"j", {lo, lo + extent}}};
      },
      0);
}

Def tcc() {
  // O(i) +=! I(i, i + j, j)
  return {
      {"A", "B", "C"},
      {{"I", {P("A"), P("B"), P("C")}}},
      {statement("O", {"i"}, {read("I", {V("i"), V("i") + V("j"), V("j")})})}};
}

TEST(RangeInference, TCCPreconditionIsAWarning) {
  Outcome outcome = infer(tcc());
  ASSERT_TRUE(outcome.ok);
  ASSERT_EQ(outcome.count(Severity::Warning), 1u);
  EXPECT_EQ(outcome.firstMessage(Severity::Warning),
            "precondition '0 <= i + j < B' of the read of 'I' is not checked "
            "at run time");
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "A");
  EXPECT_EQ(outcome.range(0, "j").hiExpr.str(), "C");
}

TEST(RangeInference, TCCPreconditionProvableUnderSizes) {
  Outcome provable = infer(tcc(), Sizes{{"A", 10}, {"B", 19}, {"C", 10}});
  ASSERT_TRUE(provable.ok);
  EXPECT_EQ(provable.count(Severity::Warning), 0u);
  // B = 18: I(9, 18, 9) would be read, out of bounds.
  Outcome violated = infer(tcc(), Sizes{{"A", 10}, {"B", 18}, {"C", 10}});
  EXPECT_FALSE(violated.ok);
  EXPECT_EQ(violated.firstMessage(Severity::Error),
            "the read of 'I' is out of bounds at these sizes: precondition "
            "'0 <= i + j < B' does not hold");
}

TEST(RangeInference, PartialCopyKeepsWhereMins) {
  // O(i, j) = I(i, j) where i in 3:N-1
  Def def{{"N", "M"},
          {{"I", {P("N"), P("M")}}},
          {statement("O", {"i", "j"}, {read("I", {V("i"), V("j")})},
                     {where("i", C(3), P("N") - 1)})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.count(Severity::Warning), 0u);
  EXPECT_EQ(outcome.shapes["O"].loExprs[0].str(), "3");
  EXPECT_EQ(outcome.shapes["O"].loExprs[1].str(), "0");
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(), "N - 4");
  EXPECT_EQ(outcome.shapes["O"].extentExprs[1].str(), "M");
}

TEST(RangeInference, AveragePoolIntersectsBothReads) {
  // A(i) = B(2 * i) + B(2 * i + 1): [0, (I + 1) / 2) and [0, I / 2).
  Def def{{"I"},
          {{"B", {P("I")}}},
          {statement("A", {"i"},
                     {read("B", {2 * V("i")}), read("B", {2 * V("i") + 1})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "floord(I, 2)");
  checkConcrete(
      def, {{"I", {2, 101}}},
      [](const Sizes &s) {
        return ExpectedRanges{{"i", {0, s.lookup("I") / 2}}};
      },
      0);
}

TEST(RangeInference, ConvGradHasNonZeroMin) {
  // d_I(h) +=! d_O(h - kh) * W1(kh): h in [KH - 1, OH - 1].
  Def def{
      {"OH", "KH"},
      {{"d_O", {P("OH")}}, {"W1", {P("KH")}}},
      {statement("d_I", {"h"},
                 {read("d_O", {V("h") - V("kh")}), read("W1", {V("kh")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["d_I"].loExprs[0].str(), "KH - 1");
  EXPECT_EQ(outcome.shapes["d_I"].extentExprs[0].str(), "OH - KH + 1");
}

TEST(RangeInference, ReadsOfDefinedTensorsUseTheirRanges) {
  // pad(h) = I(h - 2 - 3); tmp(h) +=! pad(2 * h + kh) * W1(kh)
  Def def{{"H", "KH"},
          {{"I", {P("H")}}, {"W1", {P("KH")}}},
          {statement("pad", {"h"}, {read("I", {V("h") - 2 - 3})}),
           statement(
               "tmp", {"h"},
               {read("pad", {2 * V("h") + V("kh")}), read("W1", {V("kh")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["pad"].loExprs[0].str(), "5");
  EXPECT_EQ(outcome.shapes["pad"].extentExprs[0].str(), "H");
  EXPECT_EQ(outcome.shapes["tmp"].loExprs[0].str(), "3");
  checkConcrete(
      def, {{"H", {6, 40}}, {"KH", {1, 4}}},
      [](const Sizes &s) {
        int64_t extent = floorDivide(s.lookup("H") - s.lookup("KH") + 1, 2);
        return ExpectedRanges{{"h", {3, 3 + extent}},
                              {"kh", {0, s.lookup("KH")}}};
      },
      1);
}

TEST(RangeInference, LaterStatementsOverwriteBounds) {
  // O(i) = I(i); O(i) = O(i) + 1 where i in 0:N-1; X(j) = O(j)
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i")})}),
           statement("O", {"i"}, {read("O", {V("i")})},
                     {where("i", C(0), P("N") - 1)}),
           statement("X", {"j"}, {read("O", {V("j")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(), "N - 1");
  EXPECT_EQ(outcome.range(2, "j").hiExpr.str(), "N - 1");
}

TEST(RangeInference, GatherIsInferredFromTheIndexTensor) {
  // O(i) = B(C(i)): i from C(i); `0 <= C(i) < M` is a precondition.
  Def def{{"N", "M"},
          {{"B", {P("M")}}, {"C", {P("N")}}},
          {statement(
              "O", {"i"},
              {read("B", {IndexExpr::opaque({"i"})}), read("C", {V("i")})})}};
  Outcome outcome = infer(def, Sizes{{"N", 7}, {"M", 3}});
  ASSERT_TRUE(outcome.ok) << outcome.firstMessage(Severity::Error);
  EXPECT_EQ(outcome.range(0, "i").hi, 7);
  ASSERT_EQ(outcome.count(Severity::Warning), 1u);
  EXPECT_EQ(outcome.firstMessage(Severity::Warning),
            "precondition '0 <= <opaque> < M' of the read of 'B' is not "
            "checked at run time");
}

TEST(RangeInference, GatherPreconditionQuotesTheSource) {
  llvm::SourceMgr sourceMgr;
  llvm::StringRef source = "O(i) = B(C(i))";
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(source, "gather.tc"), llvm::SMLoc());
  const char *start = sourceMgr.getMemoryBuffer(1)->getBufferStart();
  TensorAccess gather = read("B", {IndexExpr::opaque({"i"})});
  gather.subscriptLocs.push_back(
      Location(llvm::SMLoc::getFromPointer(start + 9),
               llvm::SMLoc::getFromPointer(start + 13)));
  Def def{{"N", "M"},
          {{"B", {P("M")}}, {"C", {P("N")}}},
          {statement("O", {"i"}, {gather, read("C", {V("i")})})}};
  Outcome outcome = infer(def, {}, &sourceMgr);
  ASSERT_TRUE(outcome.ok);
  ASSERT_EQ(outcome.count(Severity::Warning), 1u);
  EXPECT_EQ(outcome.diagnostics[0].message,
            "precondition '0 <= C(i) < M' of the read of 'B' is not checked "
            "at run time");
  EXPECT_EQ(outcome.diagnostics[0].loc.Start.getPointer(), start + 9);
}

TEST(RangeInference, OnlyGatheredVariableIsUnsolvable) {
  // O(i) = B(C(i)) without a read of C bounding i.
  Def def{{"M"},
          {{"B", {P("M")}}},
          {statement("O", {"i"}, {read("B", {IndexExpr::opaque({"i"})})})}};
  Outcome outcome = infer(def);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.firstMessage(Severity::Error),
            "could not infer the range of index 'i'; add a where clause such "
            "as 'where i in 0:N'");
}

TEST(RangeInference, ModuloIsAPreconditionCheckedUnderSizes) {
  // b(i) = a(i % 3) where i in 0:N
  Def def{{"N", "M"},
          {{"a", {P("M")}}},
          {statement("b", {"i"}, {read("a", {mod(V("i"), C(3))})},
                     {where("i", C(0), P("N"))})}};
  EXPECT_EQ(infer(def).count(Severity::Warning), 1u);
  EXPECT_EQ(infer(def, Sizes{{"N", 10}, {"M", 3}}).count(Severity::Warning),
            0u);
  // M = 2: a(2) would be read, out of bounds.
  EXPECT_EQ(infer(def, Sizes{{"N", 10}, {"M", 2}}).count(Severity::Error), 1u);
  // With N = 2 only i % 3 in {0, 1} is read.
  EXPECT_EQ(infer(def, Sizes{{"N", 2}, {"M", 2}}).count(Severity::Warning), 0u);
}

TEST(RangeInference, ConditionalReadsKeepTheirPreconditionsAsWarnings) {
  // O(i) = M > 3 ? I(3) : I(i): with M = 2 the branch that reads I(3) is
  // never taken, so the violated precondition stays a warning.
  TensorAccess guarded = read("I", {C(3)});
  guarded.conditional = true;
  Def def{{"M"},
          {{"I", {P("M")}}},
          {statement("O", {"i"}, {guarded, read("I", {V("i")})})}};
  Outcome outcome = infer(def, Sizes{{"M", 2}});
  ASSERT_TRUE(outcome.ok) << outcome.firstMessage(Severity::Error);
  EXPECT_EQ(outcome.count(Severity::Warning), 1u);
  // Unconditional, the same read is an error at these sizes only.
  def.statements[0].accesses[0].conditional = false;
  EXPECT_FALSE(infer(def, Sizes{{"M", 2}}).ok);
  EXPECT_TRUE(infer(def, Sizes{{"M", 4}}).ok);
  EXPECT_TRUE(infer(def).ok);
}

TEST(RangeInference, WhereRangeIsTakenAsGiven) {
  // O(i) = I(i) where i in 0:N+3: the where wins, the read may overflow.
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i")})},
                     {where("i", C(0), P("N") + 3)})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "N + 3");
  EXPECT_EQ(outcome.firstMessage(Severity::Warning),
            "precondition '0 <= i < N' of the read of 'I' is not checked at "
            "run time");
}

TEST(RangeInference, LastWhereWins) {
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i")})},
                     {where("i", C(0), C(4)), where("i", C(1), C(3))})}};
  Outcome outcome = infer(def, Sizes{{"N", 9}});
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").lo, 1);
  EXPECT_EQ(outcome.range(0, "i").hi, 3);
}

TEST(RangeInference, LhsIndexOnlyInWhere) {
  // O(i, j) = 3 where i in 4:8, j in 3:20
  Def def{{},
          {},
          {statement("O", {"i", "j"}, {},
                     {where("i", C(4), C(8)), where("j", C(3), C(20))})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.shapes["O"].lo[0], 4);
  EXPECT_EQ(outcome.shapes["O"].lo[1], 3);
  EXPECT_EQ(outcome.shapes["O"].extent[0], 4);
  EXPECT_EQ(outcome.shapes["O"].extent[1], 17);
}

TEST(RangeInference, LhsIndexNeverSolved) {
  // O(i, j) = 3 (PartialAssignWithoutWhere); O(i, j, m) = I(j, i) (5-D
  // transpose in small).
  Def assign{{}, {}, {statement("O", {"i", "j"}, {})}};
  EXPECT_EQ(infer(assign).count(Severity::Error), 2u);
  Def transpose{
      {"N", "M"},
      {{"I", {P("N"), P("M")}}},
      {statement("O", {"i", "j", "m"}, {read("I", {V("j"), V("i")})})}};
  Outcome outcome = infer(transpose);
  EXPECT_FALSE(outcome.ok);
  ASSERT_EQ(outcome.count(Severity::Error), 1u);
  EXPECT_EQ(outcome.firstMessage(Severity::Error),
            "could not infer the range of index 'm'; add a where clause such "
            "as 'where m in 0:N'");
}

TEST(RangeInference, ProvablyEmptyRange) {
  // O(i) = I(i) + J(i + N): [0, N) and [-N, 0) never meet.
  Def def{{"N"},
          {{"I", {P("N")}}, {"J", {P("N")}}},
          {statement("O", {"i"},
                     {read("I", {V("i")}), read("J", {V("i") + P("N")})})}};
  Outcome outcome = infer(def);
  EXPECT_FALSE(outcome.ok);
  ASSERT_EQ(outcome.count(Severity::Error), 1u);
  EXPECT_EQ(outcome.firstMessage(Severity::Error),
            "inferred an empty range for index 'i'");
  EXPECT_EQ(outcome.diagnostics[0].notes.size(), 2u);
}

TEST(RangeInference, ConstantSubscripts) {
  // O(i) = I(i, 0) is fine; O(i) = I(i, N) always reads out of bounds.
  Def fine{{"N"},
           {{"I", {P("N"), P("N")}}},
           {statement("O", {"i"}, {read("I", {V("i"), C(0)})})}};
  EXPECT_EQ(infer(fine).diagnostics.size(), 0u);
  Def outside{{"N"},
              {{"I", {P("N"), P("N")}}},
              {statement("O", {"i"}, {read("I", {V("i"), P("N")})})}};
  Outcome outcome = infer(outside);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.firstMessage(Severity::Warning),
            "precondition '0 <= N < N' of the read of 'I' is not checked at "
            "run time");
}

TEST(RangeInference, FloorDivisionSubscript) {
  // O(i) = I(i / 2): i in [0, 2 * N).
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {floorDiv(V("i"), C(2))})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").hiExpr.str(), "2 * N");
}

TEST(RangeInference, ScalarReadsAndConstantExtents) {
  // O(i) = S() * I(i) with float(4) I.
  Def def{{},
          {{"S", {}}, {"I", {C(4)}}},
          {statement("O", {"i"}, {read("S", {}), read("I", {V("i")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.range(0, "i").lo, 0);
  EXPECT_EQ(outcome.range(0, "i").hi, 4);
}

TEST(RangeInference, NonAffineWhereIsAnError) {
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {read("I", {V("i")})},
                     {where("i", C(0), P("N") * P("N"))})}};
  Outcome outcome = infer(def);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.firstMessage(Severity::Error),
            "the bounds of 'i' must be affine expressions of the size "
            "variables");
}

TEST(RangeInference, BoundsAsIndexExprs) {
  Outcome conv = infer(conv1d());
  ASSERT_TRUE(conv.ok);
  EXPECT_EQ(conv.range(0, "i").hiExpr.str(), "N - K + 1");
  EXPECT_EQ(conv.range(0, "i").loExpr.str(), "0");
  EXPECT_EQ(conv.shapes["O"].extentExprs[0].str(), "N - K + 1");

  Outcome strided = infer(stridedConv());
  ASSERT_TRUE(strided.ok);
  EXPECT_EQ(strided.range(0, "h").hiExpr.str(), "floord(H - KH, 2) + 1");

  // TCF: a minimum of two sizes.
  Def tcf{{"B0", "A1"},
          {{"B", {P("B0")}}, {"A", {P("A1")}}},
          {statement("O", {"j"}, {read("B", {V("j")}), read("A", {V("j")})})}};
  Outcome min = infer(tcf);
  ASSERT_TRUE(min.ok);
  EXPECT_EQ(min.range(0, "j").hiExpr.str(), "min(B0, A1)");
}

TEST(RangeInference, PiecewiseBoundsAreSelects) {
  // O(i) = I(3 - i) + I(i): i in [max(0, 4 - N), min(3, N - 1)], non-empty
  // only for N >= 3, where isl's bounds are neither affine nor a min/max
  // of the pieces it keeps.
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"},
                     {read("I", {C(3) - V("i")}), read("I", {V("i")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  const VarRange &i = outcome.range(0, "i");
  EXPECT_EQ(i.loExpr.str(), "N >= 4 ? 0 : 1");
  EXPECT_EQ(i.hiExpr.str(), "N == 3 ? 3 : 4");
  // The extent reads as `hi - lo` rather than a select of its own.
  EXPECT_EQ(outcome.shapes["O"].extentExprs[0].str(),
            "(N == 3 ? 3 : 4) - (N >= 4 ? 0 : 1)");
  checkConcrete(
      def, {{"N", {3, 20}}},
      [](const Sizes &s) {
        int64_t n = s.lookup("N");
        return ExpectedRanges{
            {"i",
             {std::max<int64_t>(0, 4 - n), std::min<int64_t>(3, n - 1) + 1}}};
      },
      0);
}

TEST(RangeInference, Conv2DWithSevenIndices) {
  // tmp(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)
  Def def{{"N", "C", "H", "W", "M", "KH", "KW"},
          {{"I", {P("N"), P("C"), P("H"), P("W")}},
           {"W1", {P("M"), P("C"), P("KH"), P("KW")}}},
          {statement(
              "tmp", {"n", "m", "h", "w"},
              {read("I", {V("n"), V("c"), V("h") + V("kh"), V("w") + V("kw")}),
               read("W1", {V("m"), V("c"), V("kh"), V("kw")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  llvm::SmallVector<std::string, 4> extents;
  for (const IndexExpr &extent : outcome.shapes["tmp"].extentExprs)
    extents.push_back(extent.str());
  EXPECT_EQ(extents, (llvm::SmallVector<std::string, 4>{"N", "M", "H - KH + 1",
                                                        "W - KW + 1"}));
  EXPECT_EQ(outcome.range(0, "c").hiExpr.str(), "C");
  EXPECT_TRUE(outcome.diagnostics.empty());
}

TEST(RangeInference, EmptyWhereRangeWarns) {
  // TC accepts `8:4` silently (extent -4); we keep the range and warn.
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"}, {}, {where("i", C(8), C(4))})}};
  Outcome outcome = infer(def, Sizes{{"N", 5}});
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.firstMessage(Severity::Warning),
            "the range of 'i' is empty");
  EXPECT_EQ(outcome.shapes["O"].extent[0], -4);
}

TEST(RangeInference, OperationBudget) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  std::vector<Diagnostic> reported;
  diags.setHandler([&](const Diagnostic &diag) { reported.push_back(diag); });
  Def def = tcc();
  RangeInference inference(def.params, diags);
  for (const auto &[name, extents] : def.inputs)
    inference.declareInput(name, extents);
  inference.setMaxOperations(5);
  EXPECT_FALSE(inference.inferStatement(def.statements[0]));
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].message,
            "range inference for this statement exceeds the isl operation "
            "limit");
  // The context recovers for the next statement.
  inference.setMaxOperations(0);
  EXPECT_TRUE(inference.inferStatement(def.statements[0]));

  // Whatever step runs out of budget, the outcome is a result or the quota
  // error, never a crash or another isl error.
  for (unsigned long budget = 1; budget < 20000; budget = budget * 3 + 1) {
    reported.clear();
    inference.setMaxOperations(budget);
    if (inference.inferStatement(def.statements[0]))
      continue;
    ASSERT_FALSE(reported.empty()) << budget;
    EXPECT_EQ(reported[0].message,
              "range inference for this statement exceeds the isl operation "
              "limit")
        << budget;
  }
}

TEST(RangeInference, RandomStatementsReadInBounds) {
  // Soundness: when inference succeeds without an unchecked precondition,
  // every point of the inferred box reads every tensor in bounds.
  std::mt19937 rng(42);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  unsigned checked = 0, twoRounds = 0;
  const char *const sizeNames[] = {"N0", "N1", "N2"};
  const char *const tensorNames[] = {"T0", "T1", "T2"};
  for (unsigned trial = 0; trial < 300; ++trial) {
    Sizes sizes{{"N0", pick(1, 12)}, {"N1", pick(1, 12)}, {"N2", pick(1, 12)}};
    struct Read {
      int a, b, c;
      unsigned tensor;
    };
    std::vector<Read> reads;
    std::vector<TensorAccess> accesses;
    for (int count = pick(2, 4), r = 0; r < count; ++r) {
      // Mostly single-variable subscripts, so that both variables can be
      // solved; some mixed ones become constraints of the second round.
      int pattern = r == 0 ? 0 : r == 1 ? pick(1, 2) : pick(0, 2);
      auto coefficient = [&] { return pick(0, 1) ? pick(1, 3) : -pick(1, 2); };
      Read term{pattern == 1 ? 0 : coefficient(),
                pattern == 0 ? 0 : coefficient(), pick(-3, 3),
                static_cast<unsigned>(pick(0, 2))};
      reads.push_back(term);
      IndexExpr subscript = C(term.c);
      if (term.a != 0)
        subscript = term.a * V("i") + subscript;
      if (term.b != 0)
        subscript = term.b * V("j") + subscript;
      accesses.push_back(read(tensorNames[term.tensor], {subscript}));
    }
    Def def{{"N0", "N1", "N2"},
            {{"T0", {P("N0")}}, {"T1", {P("N1")}}, {"T2", {P("N2")}}},
            {statement("O", {"i", "j"}, accesses)}};
    Outcome outcome = infer(def, sizes);
    if (!outcome.ok || outcome.count(Severity::Warning) != 0)
      continue;
    ++checked;
    // `j` only in mixed subscripts: solved in the second round.
    twoRounds += llvm::none_of(
        reads, [](const Read &read) { return read.a == 0 && read.b != 0; });
    const VarRange &i = outcome.range(0, "i"), &j = outcome.range(0, "j");
    // Maximality: one step beyond either end of a range breaks one of the
    // single-variable reads that bound it.
    auto breaks = [&](bool isI, int64_t value) {
      return llvm::any_of(reads, [&](const Read &read) {
        int64_t own = isI ? read.a : read.b, other = isI ? read.b : read.a;
        int64_t extent = sizes.lookup(sizeNames[read.tensor]);
        int64_t subscript = own * value + read.c;
        return own != 0 && other == 0 && (subscript < 0 || subscript >= extent);
      });
    };
    EXPECT_TRUE(breaks(true, *i.lo - 1) && breaks(true, *i.hi)) << trial;
    if (llvm::none_of(reads, [](const Read &read) {
          return read.a != 0 && read.b != 0;
        })) {
      EXPECT_TRUE(breaks(false, *j.lo - 1) && breaks(false, *j.hi)) << trial;
    }
    for (int64_t vi = *i.lo; vi < *i.hi; ++vi)
      for (int64_t vj = *j.lo; vj < *j.hi; ++vj)
        for (const Read &read : reads) {
          int64_t value = read.a * vi + read.b * vj + read.c;
          int64_t extent = sizes.lookup(sizeNames[read.tensor]);
          ASSERT_TRUE(value >= 0 && value < extent)
              << "trial " << trial << " i=" << vi << " j=" << vj;
        }
  }
  // The generator must exercise the solver, not only its error paths.
  EXPECT_GT(checked, 30u);
  EXPECT_GT(twoRounds, 5u);
}

TEST(RangeInference, InputShapes) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  RangeInference inference({"N", "K"}, diags, Sizes{{"N", 8}});
  inference.declareInput("I", {P("N"), P("K") + 1, C(3)});
  std::optional<TensorShape> shape = inference.getShape("I");
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->extentExprs[0].str(), "N");
  EXPECT_EQ(shape->extentExprs[1].str(), "K + 1");
  EXPECT_EQ(shape->extent[0], std::nullopt); // K is unknown
  EXPECT_FALSE(inference.getShape("J"));
}

} // namespace
