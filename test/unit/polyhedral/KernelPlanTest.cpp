//===- KernelPlanTest.cpp - Dependences, kernels and tiling ---------------===//
#include "comprehend/polyhedral/KernelPlan.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace comprehend::poly;
using namespace comprehend::poly::test;

namespace {

/// `lhs(lhsIndices) = reads` over the box `iterators[d] in [0, extents[d])`.
ScheduledStatement box(llvm::StringRef lhs, std::vector<std::string> lhsIndices,
                       std::vector<std::pair<std::string, IndexExpr>> ranges,
                       std::vector<TensorAccess> reads, bool readsLhs = false) {
  ScheduledStatement stmt;
  stmt.lhsTensor = lhs.str();
  stmt.lhsIndices.assign(lhsIndices.begin(), lhsIndices.end());
  for (auto &[var, extent] : ranges) {
    stmt.iterators.push_back(var);
    stmt.lo.push_back(C(0));
    stmt.hi.push_back(extent);
  }
  stmt.reads.assign(reads.begin(), reads.end());
  stmt.readsLhs = readsLhs;
  return stmt;
}

KernelPlan plan(llvm::ArrayRef<std::string> params,
                llvm::ArrayRef<ScheduledStatement> stmts,
                unsigned groupDims = 1) {
  llvm::Expected<KernelPlan> result =
      planKernels(params, stmts, PlanOptions{groupDims});
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

const Dependence *find(const KernelPlan &plan, unsigned source, unsigned target,
                       Dependence::Kind kind) {
  for (const Dependence &dependence : plan.dependences)
    if (dependence.source == source && dependence.target == target &&
        dependence.kind == kind)
      return &dependence;
  return nullptr;
}

std::vector<std::vector<unsigned>> kernelsOf(const KernelPlan &plan) {
  std::vector<std::vector<unsigned>> result;
  for (const Kernel &kernel : plan.kernels)
    result.emplace_back(kernel.statements.begin(), kernel.statements.end());
  return result;
}

using Kind = Dependence::Kind;
using Kernels = std::vector<std::vector<unsigned>>;

TEST(KernelPlan, MatmulThenElementwiseIsPointwise) {
  // C(i, j) +=! A(i, k) * B(k, j); D(i, j) = C(i, j) + 1
  std::vector<ScheduledStatement> stmts = {
      box("C", {"i", "j"}, {{"i", P("M")}, {"j", P("N")}, {"k", P("K")}},
          {read("A", {V("i"), V("k")}), read("B", {V("k"), V("j")})}),
      box("D", {"i", "j"}, {{"i", P("M")}, {"j", P("N")}},
          {read("C", {V("i"), V("j")})})};
  for (unsigned groupDims : {1u, 2u}) {
    KernelPlan result = plan({"M", "N", "K"}, stmts, groupDims);
    ASSERT_EQ(result.dependences.size(), 1u);
    const Dependence *raw = find(result, 0, 1, Kind::ReadAfterWrite);
    ASSERT_TRUE(raw);
    EXPECT_EQ(raw->tensor, "C");
    EXPECT_EQ(raw->sync, SyncKind::None);
    // The last write of C(i, j) is the last reduction step.
    EXPECT_NE(raw->relation.find("k = -1 + K"), std::string::npos)
        << raw->relation;
    EXPECT_EQ(kernelsOf(result), (Kernels{{0, 1}}));
    EXPECT_FALSE(result.kernels[0].barrierBefore[1]);
  }
}

TEST(KernelPlan, SoftmaxSharesOneKernelWithBarriers) {
  // mx(n) max=! X(n, d); e(n, d) = exp(X(n, d) - mx(n));
  // s(n) +=! e(n, d); O(n, d) = e(n, d) / s(n)
  auto rows = [](bool withD) {
    std::vector<std::pair<std::string, IndexExpr>> ranges = {{"n", P("N")}};
    if (withD)
      ranges.push_back({"d", P("D")});
    return ranges;
  };
  std::vector<ScheduledStatement> stmts = {
      box("mx", {"n"}, rows(true), {read("X", {V("n"), V("d")})}),
      box("e", {"n", "d"}, rows(true),
          {read("X", {V("n"), V("d")}), read("mx", {V("n")})}),
      box("s", {"n"}, rows(true), {read("e", {V("n"), V("d")})}),
      box("O", {"n", "d"}, rows(true),
          {read("e", {V("n"), V("d")}), read("s", {V("n")})})};
  KernelPlan result = plan({"N", "D"}, stmts);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync, SyncKind::Barrier);
  EXPECT_EQ(find(result, 1, 2, Kind::ReadAfterWrite)->sync, SyncKind::Barrier);
  EXPECT_EQ(find(result, 1, 3, Kind::ReadAfterWrite)->sync, SyncKind::None);
  EXPECT_EQ(find(result, 2, 3, Kind::ReadAfterWrite)->sync, SyncKind::Barrier);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0, 1, 2, 3}}));
  EXPECT_EQ(result.kernels[0].barrierBefore,
            (llvm::SmallVector<bool, 4>{false, true, true, true}));
}

TEST(KernelPlan, TransposedReadNeedsANewLaunch) {
  // T(i, j) = A(j, i); O(i) +=! T(j, i)
  std::vector<ScheduledStatement> stmts = {
      box("T", {"i", "j"}, {{"i", P("N")}, {"j", P("N")}},
          {read("A", {V("j"), V("i")})}),
      box("O", {"i"}, {{"i", P("N")}, {"j", P("N")}},
          {read("T", {V("j"), V("i")})})};
  KernelPlan result = plan({"N"}, stmts);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync,
            SyncKind::NewLaunch);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0}, {1}}));
}

TEST(KernelPlan, WriteAfterReadAndWriteAfterWrite) {
  // T(i) = A(i); B(i) = T(i + 1); T(i) = B(i) * 2
  std::vector<ScheduledStatement> stmts = {
      box("T", {"i"}, {{"i", P("N")}}, {read("A", {V("i")})}),
      box("B", {"i"}, {{"i", P("N") - 1}}, {read("T", {V("i") + 1})}),
      box("T", {"i"}, {{"i", P("N")}}, {read("B", {V("i")})})};
  KernelPlan result = plan({"N"}, stmts);
  const Dependence *war = find(result, 1, 2, Kind::WriteAfterRead);
  ASSERT_TRUE(war);
  EXPECT_EQ(war->tensor, "T");
  EXPECT_EQ(war->sync, SyncKind::NewLaunch);
  const Dependence *waw = find(result, 0, 2, Kind::WriteAfterWrite);
  ASSERT_TRUE(waw);
  EXPECT_EQ(waw->sync, SyncKind::None);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync,
            SyncKind::NewLaunch);
  EXPECT_EQ(find(result, 1, 2, Kind::ReadAfterWrite)->sync, SyncKind::None);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0}, {1}, {2}}));
}

TEST(KernelPlan, ScalarReductionRunsAlone) {
  // s() +=! A(i); O(i) = A(i) / s()
  std::vector<ScheduledStatement> stmts = {
      box("s", {}, {{"i", P("N")}}, {read("A", {V("i")})}),
      box("O", {"i"}, {{"i", P("N")}}, {read("A", {V("i")}), read("s", {})})};
  KernelPlan result = plan({"N"}, stmts);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync,
            SyncKind::NewLaunch);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0}, {1}}));
}

TEST(KernelPlan, IndependentStatementsShareOnlyEqualGrids) {
  auto stmts = [](IndexExpr secondExtent) {
    return std::vector<ScheduledStatement>{
        box("O1", {"i"}, {{"i", P("N")}}, {read("A", {V("i")})}),
        box("O2", {"i"}, {{"i", std::move(secondExtent)}},
            {read("B", {V("i")})})};
  };
  KernelPlan same = plan({"N", "M"}, stmts(P("N")));
  EXPECT_TRUE(same.dependences.empty());
  EXPECT_EQ(kernelsOf(same), (Kernels{{0, 1}}));
  KernelPlan different = plan({"N", "M"}, stmts(P("M")));
  EXPECT_EQ(kernelsOf(different), (Kernels{{0}, {1}}));
}

TEST(KernelPlan, GatherReadsTheWholeTensor) {
  // T(i) = A(i); O(i) = T(Idx(i))
  std::vector<ScheduledStatement> stmts = {
      box("T", {"i"}, {{"i", P("N")}}, {read("A", {V("i")})}),
      box("O", {"i"}, {{"i", P("N")}},
          {read("T", {IndexExpr::opaque({"i"})}), read("Idx", {V("i")})})};
  KernelPlan result = plan({"N"}, stmts);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync,
            SyncKind::NewLaunch);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0}, {1}}));
}

TEST(KernelPlan, AccumulationReadsItsOwnOutput) {
  // O(i) = A(i); O(i) += B(i) (reads O): pointwise.
  std::vector<ScheduledStatement> stmts = {
      box("O", {"i"}, {{"i", P("N")}}, {read("A", {V("i")})}),
      box("O", {"i"}, {{"i", P("N")}}, {read("B", {V("i")})},
          /*readsLhs=*/true)};
  KernelPlan result = plan({"N"}, stmts);
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync, SyncKind::None);
  EXPECT_EQ(find(result, 0, 1, Kind::WriteAfterWrite)->sync, SyncKind::None);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0, 1}}));
}

TEST(KernelPlan, NonAffineRangeIsAnError) {
  std::vector<ScheduledStatement> stmts = {
      box("O", {"i"}, {{"i", P("N") * P("N")}}, {read("A", {V("i")})})};
  llvm::Expected<KernelPlan> result = planKernels({"N"}, stmts);
  ASSERT_FALSE(result);
  EXPECT_EQ(llvm::toString(result.takeError()),
            "the range of 'i' is not affine in the size variables");
}

TEST(KernelPlan, PiecewiseInferredRangeIsAnError) {
  // O(i) = I(3 - i) + I(i): the bounds of i are selects, no loop bounds.
  Def def{{"N"},
          {{"I", {P("N")}}},
          {statement("O", {"i"},
                     {read("I", {C(3) - V("i")}), read("I", {V("i")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  llvm::Expected<ScheduledStatement> stmt =
      makeScheduledStatement(def.statements[0], outcome.statements[0], false);
  ASSERT_FALSE(stmt);
  EXPECT_EQ(llvm::toString(stmt.takeError()),
            "the range of 'i' ([N >= 4 ? 0 : 1, N == 3 ? 3 : 4)) has no affine "
            "form");
}

TEST(KernelPlan, FromInferredRanges) {
  // pad(h) = I(h - 5); O(h) +=! pad(h + kh) * W(kh): pad's range starts at 5.
  Def def{{"H", "KH"},
          {{"I", {P("H")}}, {"W", {P("KH")}}},
          {statement("pad", {"h"}, {read("I", {V("h") - 5})}),
           statement("O", {"h"},
                     {read("pad", {V("h") + V("kh")}), read("W", {V("kh")})})}};
  Outcome outcome = infer(def);
  ASSERT_TRUE(outcome.ok);
  std::vector<ScheduledStatement> stmts;
  for (unsigned index = 0; index < 2; ++index) {
    llvm::Expected<ScheduledStatement> stmt = makeScheduledStatement(
        def.statements[index], outcome.statements[index], false);
    ASSERT_TRUE(bool(stmt)) << llvm::toString(stmt.takeError());
    stmts.push_back(std::move(*stmt));
  }
  EXPECT_EQ(stmts[0].lo[0].str(), "5");
  KernelPlan result = plan({"H", "KH"}, stmts);
  // O(h) reads pad(h + kh): other work-items' values, and the grids differ.
  EXPECT_EQ(find(result, 0, 1, Kind::ReadAfterWrite)->sync,
            SyncKind::NewLaunch);
  EXPECT_EQ(kernelsOf(result), (Kernels{{0}, {1}}));
}

} // namespace
