//===- ScheduleTest.cpp - isl scheduler, mapping and AST translation ------===//
#include "comprehend/polyhedral/Schedule.h"

#include "TestSupport.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>

using namespace comprehend::poly;
using namespace comprehend::poly::test;

namespace {

/// `lhs(lhsIndices) [op]= reads` over `iterators[d] in [0, extents[d])`.
ScheduledStatement box(llvm::StringRef lhs, std::vector<std::string> lhsIndices,
                       std::vector<std::pair<std::string, int64_t>> ranges,
                       std::vector<TensorAccess> reads,
                       bool reduction = false) {
  ScheduledStatement stmt;
  stmt.lhsTensor = lhs.str();
  stmt.lhsIndices.assign(lhsIndices.begin(), lhsIndices.end());
  for (auto &[var, extent] : ranges) {
    stmt.iterators.push_back(var);
    stmt.lo.push_back(C(0));
    stmt.hi.push_back(C(extent));
  }
  stmt.reads.assign(reads.begin(), reads.end());
  stmt.reduction = stmt.hasInit = reduction;
  return stmt;
}

/// softmax over N x D rows, as the TC example writes it.
std::vector<ScheduledStatement> softmax(int64_t n, int64_t d) {
  return {box("mx", {"n"}, {{"n", n}, {"d", d}}, {read("X", {V("n"), V("d")})},
              true),
          box("e", {"n", "d"}, {{"n", n}, {"d", d}},
              {read("X", {V("n"), V("d")}), read("mx", {V("n")})}),
          box("s", {"n"}, {{"n", n}, {"d", d}}, {read("e", {V("n"), V("d")})},
              true),
          box("Y", {"n", "d"}, {{"n", n}, {"d", d}},
              {read("e", {V("n"), V("d")}), read("s", {V("n")})})};
}

MappedSchedule map(llvm::ArrayRef<ScheduledStatement> stmts,
                   const ScheduleOptions &options = {}) {
  llvm::Expected<MappedSchedule> result = mapSchedule({}, stmts, options);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return std::move(*result);
}

std::string text(const AstNode &node) {
  std::string result;
  llvm::raw_string_ostream os(result);
  print(node, os);
  return result;
}

TEST(ScheduleTest, FusionStrategiesParseAndPrint) {
  for (FusionStrategy strategy :
       {FusionStrategy::Max, FusionStrategy::KeepOuterParallel,
        FusionStrategy::None})
    EXPECT_EQ(parseFusionStrategy(getFusionStrategyName(strategy)), strategy);
  EXPECT_EQ(parseFusionStrategy("most"), std::nullopt);
}

TEST(ScheduleTest, ElementwiseIsTiledOntoGroupsAndWorkItems) {
  std::vector<ScheduledStatement> stmts = {
      box("O", {"i"}, {{"i", 100}}, {read("A", {V("i")})})};
  ScheduleOptions options;
  options.tileSizes = {32};
  MappedSchedule schedule = map(stmts, options);
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{4, 1, 1}));
  EXPECT_EQ(text(schedule.kernels[0].root),
            "for c0 in [0, 4) : group 0 {\n"
            "  for c1 in [32 * c0, min(99, 32 * c0 + 31) + 1) : work-item 0 {\n"
            "    stmt0(c1)\n"
            "  }\n"
            "}\n");
  EXPECT_NE(schedule.scheduleTree.find("mark: \"group_0_1\""),
            std::string::npos);
  EXPECT_NE(schedule.astText.find("// work_items_1_1"), std::string::npos);
}

/// Whether a map O(n, i) = reads over 64 x 4096 points gives its
/// work-items vector runs of 64.
bool takesRuns(std::vector<TensorAccess> reads) {
  ScheduleOptions options;
  options.vectorRun = 64;
  MappedSchedule schedule =
      map({box("O", {"n", "i"}, {{"n", 64}, {"i", 4096}}, std::move(reads))},
          options);
  return schedule.usedVectorRuns;
}

TEST(ScheduleTest, VectorRunsOnlyWhereEveryAccessIsContiguous) {
  // Consecutive points: unit stride, or the same element (a broadcast).
  EXPECT_TRUE(takesRuns({read("A", {V("n"), V("i")})}));
  EXPECT_TRUE(takesRuns({read("A", {V("n"), V("i")}), read("b", {V("n")})}));
  EXPECT_TRUE(takesRuns({read("A", {V("n"), V("i") + 3})}));
  // A stride of 2, a transposed read, or the point's index in another
  // dimension: a run would not walk memory contiguously.
  EXPECT_FALSE(takesRuns({read("A", {V("n"), C(2) * V("i")})}));
  EXPECT_FALSE(takesRuns({read("A", {V("i"), V("n")})}));
  EXPECT_FALSE(takesRuns({read("A", {V("n"), V("i"), V("i")})}));

  // The runs: 64 runs of 64 points per group, 16 groups over the rows.
  ScheduleOptions options;
  options.vectorRun = 64;
  MappedSchedule schedule =
      map({box("O", {"i"}, {{"i", 65536}}, {read("A", {V("i")})})}, options);
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(text(schedule.kernels[0].root),
            "for c0 in [0, 16) : group 0 {\n"
            "  for c1 in [64 * c0, 64 * c0 + 63 + 1) : work-item 0 {\n"
            "    for c2 in [64 * c1, 64 * c1 + 63 + 1) {\n"
            "      stmt0(c2)\n"
            "    }\n"
            "  }\n"
            "}\n");
  // Without the option: single points strided over the work-items.
  EXPECT_FALSE(map({box("O", {"i"}, {{"i", 65536}}, {read("A", {V("i")})})})
                   .usedVectorRuns);
}

TEST(ScheduleTest, SoftmaxFusesIntoOneKernelWithRowReductions) {
  MappedSchedule schedule = map(softmax(8, 64));
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{8, 1, 1}));
  EXPECT_EQ(text(schedule.kernels[0].root),
            "for c0 in [0, 8) : group 0 {\n"
            "  init0(c0)\n"
            "  for c1 in [0, 64) : reduction {\n"
            "    stmt0(c0, c1)\n"
            "  }\n"
            "  for c1 in [0, 64) : work-item 0 {\n"
            "    stmt1(c0, c1)\n"
            "  }\n"
            "  init2(c0)\n"
            "  for c1 in [0, 64) : reduction {\n"
            "    stmt2(c0, c1)\n"
            "  }\n"
            "  for c1 in [0, 64) : work-item 0 {\n"
            "    stmt3(c0, c1)\n"
            "  }\n"
            "}\n");
}

TEST(ScheduleTest, WithoutInnerMappingRowsGoToWorkItems) {
  // isl's own schedule: rows tiled onto groups and work-items, the loops
  // over d inside each work-item; the reduction carries its accumulator.
  ScheduleOptions options;
  options.innerMapping = false;
  MappedSchedule schedule = map(softmax(256, 16), options);
  ASSERT_FALSE(schedule.kernels.empty());
  std::string first = text(schedule.kernels[0].root);
  EXPECT_NE(first.find(": group 0"), std::string::npos) << first;
  EXPECT_NE(first.find(": work-item 0"), std::string::npos) << first;
  EXPECT_NE(first.find(": reduction"), std::string::npos) << first;
  EXPECT_EQ(schedule.kernels[0].grid[0], 4) << first;
}

/// The statements, in order, of each kernel of \p schedule.
std::vector<std::vector<unsigned>> kernelsOf(const MappedSchedule &schedule) {
  std::vector<std::vector<unsigned>> result;
  for (const MappedKernel &kernel : schedule.kernels) {
    std::vector<unsigned> &stmts = result.emplace_back();
    std::function<void(const AstNode &)> collect = [&](const AstNode &node) {
      if (node.kind == AstNode::Kind::Instance &&
          !llvm::is_contained(stmts, node.statement))
        stmts.push_back(node.statement);
      llvm::for_each(node.children, collect);
      llvm::for_each(node.elseChildren, collect);
    };
    collect(kernel.root);
  }
  return result;
}

using Kernels = std::vector<std::vector<unsigned>>;

TEST(ScheduleTest, DependencesOrderTheStatements) {
  // T(i) = A(i); O(i) = T(63 - i): isl reverses the second statement so
  // that each work-item reads the element it has just written.
  std::vector<ScheduledStatement> flipped = {
      box("T", {"i"}, {{"i", 64}}, {read("A", {V("i")})}),
      box("O", {"i"}, {{"i", 64}}, {read("T", {63 + C(-1) * V("i")})})};
  MappedSchedule schedule = map(flipped);
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(text(schedule.kernels[0].root),
            "for c1 in [0, 64) : work-item 0 {\n"
            "  stmt0(c1)\n"
            "  stmt1(-c1 + 63)\n"
            "}\n");
  // A data-dependent subscript may read any element of T: a kernel
  // boundary where T spreads over several groups; where one group does all
  // of it, the two parts share that group's kernel (a barrier between
  // them, LowerSchedule.cpp).
  auto gather = [](int64_t n) {
    return std::vector<ScheduledStatement>{
        box("T", {"i"}, {{"i", n}}, {read("A", {V("i")})}),
        box("O", {"i"}, {{"i", n}},
            {read("T", {IndexExpr::opaque({"i"})}), read("Idx", {V("i")})})};
  };
  EXPECT_EQ(kernelsOf(map(gather(1000))), (Kernels{{0}, {1}}));
  schedule = map(gather(64));
  EXPECT_EQ(kernelsOf(schedule), (Kernels{{0, 1}}));
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));
  // T(i) = A(i); B(i) = T(i + 1); T(i) = B(i) * 2: isl fuses the three
  // into one sequential loop (each iteration reads T(i + 1) right after
  // writing it and overwrites T(i) after the read before). No member of
  // that band is parallel, so the band goes into each statement's part:
  // three kernels, each over parallel groups and work-items, in the order
  // the dependences need (the last overwrites T only after B has read it).
  std::vector<ScheduledStatement> overwritten = {
      box("T", {"i"}, {{"i", 1000}}, {read("A", {V("i")})}),
      box("B", {"i"}, {{"i", 999}}, {read("T", {V("i") + 1})}),
      box("T", {"i"}, {{"i", 1000}}, {read("B", {V("i")})})};
  schedule = map(overwritten);
  EXPECT_EQ(kernelsOf(schedule), (Kernels{{0}, {1}, {2}}));
  for (const MappedKernel &kernel : schedule.kernels) {
    EXPECT_GT(kernel.grid[0], 1) << text(kernel.root);
    EXPECT_NE(text(kernel.root).find(": work-item 0"), std::string::npos)
        << text(kernel.root);
  }
}

TEST(ScheduleTest, PartsOfAKernelSequenceGetGroupsEach) {
  // Layer norm's backward (`comprehend grad examples/layer_norm.tc`), reads
  // only: isl fuses the row work over n and the column sum dg(d) over d
  // under one filter, in sequence, no band above them. Each part maps as a
  // kernel over groups of its own.
  auto nd = [](llvm::StringRef tensor) {
    return read(tensor, {V("n"), V("d")});
  };
  auto row = [](llvm::StringRef tensor) { return read(tensor, {V("n")}); };
  auto col = [](llvm::StringRef tensor) { return read(tensor, {V("d")}); };
  std::vector<std::pair<std::string, int64_t>> nByD = {{"n", 512}, {"d", 512}};
  std::vector<std::pair<std::string, int64_t>> dByN = {{"d", 512}, {"n", 512}};
  auto update = [](ScheduledStatement stmt) {
    stmt.hasInit = false;
    return stmt;
  };
  std::vector<ScheduledStatement> stmts = {
      box("mean", {"n"}, nByD, {nd("X")}, true),
      box("var", {"n"}, nByD, {nd("X"), row("mean")}, true),
      box("dg", {"d"}, dByN, {nd("dY"), row("var"), nd("X"), row("mean")},
          true),
      box("dX", {"n", "d"}, nByD, {nd("dY"), row("var"), col("G")}),
      box("dmean", {"n"}, nByD, {nd("dY"), row("var"), col("G")}, true),
      box("dvar", {"n"}, nByD,
          {nd("dY"), col("G"), nd("X"), row("mean"), row("var")}, true),
      box("db", {"d"}, dByN, {nd("dY")}, true),
      update(box("dX", {"n", "d"}, nByD,
                 {nd("dX"), row("dvar"), nd("X"), row("mean")}, true)),
      update(box("dmean", {"n"}, nByD,
                 {row("dmean"), row("dvar"), nd("X"), row("mean")}, true)),
      update(box("dX", {"n", "d"}, nByD, {nd("dX"), row("dmean")}, true))};
  MappedSchedule schedule = map(stmts);
  ASSERT_GE(schedule.kernels.size(), 2u) << schedule.astText;
  for (const MappedKernel &kernel : schedule.kernels)
    EXPECT_GT(kernel.grid[0], 1) << schedule.astText;
}

TEST(ScheduleTest, NoFusionKeepsStatementsApart) {
  ScheduleOptions options;
  options.fusion = FusionStrategy::None;
  MappedSchedule schedule = map(softmax(8, 64), options);
  // Each statement (and each init) is a kernel of its own.
  EXPECT_EQ(schedule.kernels.size(), 6u);
}

TEST(ScheduleTest, ColumnReductionsWalkRowsUnderVectorRuns) {
  // s(k) +=! A(i, k), then m(k) = s(k): with vector runs each work-item
  // takes a run of columns, and the run's loop sinks below the loop over
  // the rows, so that it walks a row contiguously.
  auto columns = [](int64_t rows, int64_t cols) {
    return std::vector<ScheduledStatement>{
        box("s", {"k"}, {{"k", cols}, {"i", rows}},
            {read("A", {V("i"), V("k")})}, true),
        box("m", {"k"}, {{"k", cols}}, {read("s", {V("k")})})};
  };
  ScheduleOptions options;
  options.vectorRun = 16;
  MappedSchedule schedule = map(columns(100, 4096), options);
  EXPECT_TRUE(schedule.usedVectorRuns);
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{16, 1, 1}));
  EXPECT_EQ(text(schedule.kernels[0].root),
            "for c0 in [0, 16) : group 0 {\n"
            "  for c1 in [16 * c0, 16 * c0 + 15 + 1) : work-item 0 {\n"
            "    for c2 in [16 * c1, 16 * c1 + 15 + 1) {\n"
            "      init0(c2)\n"
            "    }\n"
            "    for c2 in [0, 100) {\n"
            "      for c3 in [16 * c1, 16 * c1 + 15 + 1) {\n"
            "        stmt0(c3, c2)\n"
            "      }\n"
            "    }\n"
            "    for c2 in [16 * c1, 16 * c1 + 15 + 1) {\n"
            "      stmt1(c2)\n"
            "    }\n"
            "  }\n"
            "}\n");
  // Without vector runs (a GPU) a group takes a column and reduces it on
  // its work-items.
  std::string gpu = text(map(columns(100, 4096)).kernels[0].root);
  EXPECT_NE(gpu.find("for c1 in [0, 100) : reduction"), std::string::npos)
      << gpu;
  // A row reduction keeps a row per work-item: its inner loop is
  // contiguous already.
  std::vector<ScheduledStatement> rows = {
      box("s", {"i"}, {{"i", 4096}, {"k", 100}}, {read("A", {V("i"), V("k")})},
          true)};
  std::string rowCode = text(map(rows, options).kernels[0].root);
  EXPECT_NE(rowCode.find(": reduction"), std::string::npos) << rowCode;
}

TEST(ScheduleTest, OneGroupOfSeveralPartsIsOneKernel) {
  // A column sum with runs as long as the tile and the tile as long as the
  // columns: isl drops the single group's loop and leaves a block of parts
  // (init, then the rows), which stays one kernel.
  std::vector<ScheduledStatement> stmts = {box(
      "s", {"k"}, {{"k", 40}, {"i", 33}}, {read("A", {V("i"), V("k")})}, true)};
  ScheduleOptions options;
  options.vectorRun = 64;
  options.tileSizes = {40};
  MappedSchedule schedule = map(stmts, options);
  ASSERT_EQ(schedule.kernels.size(), 1u) << schedule.astText;
  EXPECT_EQ(schedule.kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(text(schedule.kernels[0].root), "for c3 in [0, 40) {\n"
                                            "  init0(c3)\n"
                                            "}\n"
                                            "for c2 in [0, 33) {\n"
                                            "  for c3 in [0, 40) {\n"
                                            "    stmt0(c3, c2)\n"
                                            "  }\n"
                                            "}\n");
}

TEST(ScheduleTest, ReductionLoopsAreNeverWorkItems) {
  // O(i) +=! A(i, k): k carries the reduction and must stay sequential
  // in a work-item or be reduced in parallel, never a plain work-item loop.
  std::vector<ScheduledStatement> stmts = {box(
      "O", {"i"}, {{"i", 3}, {"k", 5}}, {read("A", {V("i"), V("k")})}, true)};
  for (FusionStrategy fusion :
       {FusionStrategy::Max, FusionStrategy::KeepOuterParallel,
        FusionStrategy::None})
    for (bool inner : {false, true}) {
      ScheduleOptions options;
      options.fusion = fusion;
      options.innerMapping = inner;
      options.tileSizes = {3};
      MappedSchedule schedule = map(stmts, options);
      for (const MappedKernel &kernel : schedule.kernels) {
        std::string code = text(kernel.root);
        EXPECT_EQ(code.find("for c2 in [0, 5) : work-item"), std::string::npos)
            << code;
        EXPECT_EQ(code.find("for c1 in [0, 5) : work-item"), std::string::npos)
            << code;
      }
    }
}

TEST(ScheduleTest, ShiftedReadsGiveAffineSubscripts) {
  // O(i) = A(i + 2) over i < 6 with a tile of 4: the instance gets the
  // iterator, bounds use min.
  std::vector<ScheduledStatement> stmts = {
      box("O", {"i"}, {{"i", 6}}, {read("A", {V("i") + 2})})};
  ScheduleOptions options;
  options.tileSizes = {4};
  MappedSchedule schedule = map(stmts, options);
  ASSERT_EQ(schedule.kernels.size(), 1u);
  EXPECT_EQ(schedule.kernels[0].grid[0], 2);
  EXPECT_NE(text(schedule.kernels[0].root).find("min(5, 4 * c0 + 3)"),
            std::string::npos);
}

} // namespace

/// The AST of the one kernel of \p stmts, with the GPU's mapping rules
/// (ScheduleOptions::mapInnermostMembers) or the CPU's; empty, and a
/// failure, where there is not exactly one kernel.
std::string onlyKernel(llvm::ArrayRef<ScheduledStatement> stmts, bool gpu) {
  ScheduleOptions options;
  options.mapInnermostMembers = gpu;
  MappedSchedule schedule = map(stmts, options);
  if (schedule.kernels.size() != 1) {
    ADD_FAILURE() << schedule.kernels.size() << " kernels";
    return "";
  }
  return text(schedule.kernels[0].root);
}

TEST(ScheduleTest, GpuFoldsOuterParallelMembersIntoTheGroups) {
  // O(n, c, h, w) = 2 * I(n, c, h, w) on a GPU: the innermost three members
  // are mapped (w on work-item 0) and n is folded with c, its quotient and
  // remainder; no loop of a work-item is left.
  std::vector<ScheduledStatement> stmts = {
      box("O", {"n", "c", "h", "w"}, {{"n", 3}, {"c", 5}, {"h", 4}, {"w", 32}},
          {read("I", {V("n"), V("c"), V("h"), V("w")})})};
  std::string code = onlyKernel(stmts, /*gpu=*/true);
  EXPECT_NE(code.find("for c0 in [0, 15) : group 0"), std::string::npos)
      << code;
  EXPECT_NE(code.find("stmt0(floord(c0, 5), c0 % 5,"), std::string::npos)
      << code;
  // A sequential loop prints as `for ... in [a, b) {`.
  EXPECT_EQ(code.find(") {\n"), std::string::npos) << code;
  // On a CPU the outermost three are mapped and w stays a loop.
  std::string cpuCode = onlyKernel(stmts, /*gpu=*/false);
  EXPECT_EQ(cpuCode.find("floord"), std::string::npos) << cpuCode;
  EXPECT_NE(cpuCode.find("in [0, 32) {\n"), std::string::npos) << cpuCode;
}

TEST(ScheduleTest, GpuReducesOneStatementsLoopsAsOneLoop) {
  // B(m) +=! O(n, m, h, w) on a GPU: a group per m, and the reduction over
  // n, h and w one loop, which the lowering reduces across the group.
  std::vector<ScheduledStatement> stmts = {
      box("B", {"m"}, {{"m", 4}, {"n", 3}, {"h", 5}, {"w", 7}},
          {read("O", {V("n"), V("m"), V("h"), V("w")})}, true)};
  std::string code = onlyKernel(stmts, /*gpu=*/true);
  EXPECT_NE(code.find("for c1 in [0, 105) : reduction"), std::string::npos)
      << code;
  // Without the GPU's rules the three loops stay nested.
  std::string cpuCode = onlyKernel(stmts, /*gpu=*/false);
  EXPECT_EQ(cpuCode.find("[0, 105)"), std::string::npos) << cpuCode;
}

TEST(ScheduleTest, GpuUndoesAFusionThatStarvesItKernelByKernel) {
  // A column sum split per block of rows (split-column-reductions):
  // P(b, d) +=! A(32 * b + i, d); R(d) +=! P(b, d). isl fuses both on the
  // columns d, a kernel of 64 parallel points; below minParallelPoints the
  // partials get a kernel of their own, 16 x 64 points, though the sum
  // keeps 64: it holds a thirty-second of the work (a light kernel).
  std::vector<ScheduledStatement> stmts = {
      box("P", {"b", "d"}, {{"b", 16}, {"d", 64}, {"i", 32}},
          {read("A", {32 * V("b") + V("i"), V("d")})}, true),
      box("R", {"d"}, {{"d", 64}, {"b", 16}}, {read("P", {V("b"), V("d")})},
          true)};
  ScheduleOptions options;
  options.mapInnermostMembers = true;
  EXPECT_EQ(kernelsOf(map(stmts, options)), (Kernels{{0, 1}}));
  options.minParallelPoints = 512;
  EXPECT_EQ(kernelsOf(map(stmts, options)), (Kernels{{0}, {1}}));
  // A device that 64 points fill keeps the fused kernel.
  options.minParallelPoints = 64;
  EXPECT_EQ(kernelsOf(map(stmts, options)), (Kernels{{0, 1}}));
  // Where the sum is no light kernel (a reduction of 4 rows per block:
  // a fifth of the work), it would starve as it is: fused, as before.
  stmts[0] = box("P", {"b", "d"}, {{"b", 16}, {"d", 64}, {"i", 4}},
                 {read("A", {4 * V("b") + V("i"), V("d")})}, true);
  options.minParallelPoints = 512;
  EXPECT_EQ(kernelsOf(map(stmts, options)), (Kernels{{0, 1}}));
}

TEST(ScheduleTest, CpuUndoesAFusionOfStatementsAtDifferentStrides) {
  // A 2 x 2 pooling's count at every second pixel of the gradient's loop,
  // per image: T(n, p, q) +=! I(n, 2 * p + k, 2 * q + l); G(n, h, w) =
  // I(n, h, w) / T(n, h / 2, w / 2). Fused, T runs under `% 2` guards
  // inside G's loops; with unfuseStrides (CPUs) each gets a kernel over its
  // own points.
  std::vector<ScheduledStatement> stmts = {
      box("T", {"n", "p", "q"},
          {{"n", 4}, {"p", 8}, {"q", 8}, {"k", 2}, {"l", 2}},
          {read("I", {V("n"), 2 * V("p") + V("k"), 2 * V("q") + V("l")})},
          true),
      box("G", {"n", "h", "w"}, {{"n", 4}, {"h", 16}, {"w", 16}},
          {read("I", {V("n"), V("h"), V("w")}),
           read("T",
                {V("n"), floorDiv(V("h"), C(2)), floorDiv(V("w"), C(2))})})};
  ScheduleOptions options;
  MappedSchedule fused = map(stmts, options);
  ASSERT_EQ(kernelsOf(fused), (Kernels{{0, 1}}));
  EXPECT_NE(text(fused.kernels[0].root).find("% 2"), std::string::npos)
      << text(fused.kernels[0].root);
  options.unfuseStrides = true;
  EXPECT_EQ(kernelsOf(map(stmts, options)), (Kernels{{0}, {1}}));
}
