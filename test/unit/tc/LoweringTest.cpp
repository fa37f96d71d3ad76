//===- LoweringTest.cpp - The C++ API of the TC lowering ------------------===//
//
// What lit cannot see: the parameter table and launch grid of LoweredDef,
// that every example lowers to verified IR on both the BLAS and the loop
// path, and the errors reported through the DiagnosticEngine.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::readExample;
using comprehend::tc::test::TcSource;

namespace {

/// The names of the tensors the caller allocates, in their order.
std::vector<std::string> tensorNames(const LoweredDef &lowered) {
  std::vector<std::string> names;
  for (const LoweredTensor &tensor : lowered.tensors)
    names.push_back(tensor.name);
  return names;
}

/// One TC source lowered into its own IR program.
struct Lowered {
  explicit Lowered(llvm::StringRef text) : source(text), program(ctx) {}

  std::optional<LoweredDef> lower(llvm::StringRef entry,
                                  const llvm::StringMap<int64_t> &sizes,
                                  LoweringOptions options = {}) {
    Program *tc = source.load();
    if (!tc)
      return std::nullopt;
    const Def *def = findEntry(*tc, entry);
    if (!def)
      return std::nullopt;
    return lowerDef(*tc, *def, sizes, program, source.diags, options);
  }

  TcSource source;
  ir::Context ctx;
  ir::Program program;
};

/// Counts the instructions of kind \p kind in \p region, at any depth.
unsigned countKind(const ir::Region &region, ir::InstKind kind) {
  unsigned count = 0;
  for (const ir::Instruction &inst : region) {
    count += inst.getKind() == kind;
    for (ir::Region *nested : inst.getRegions())
      count += countKind(*nested, kind);
  }
  return count;
}

TEST(LoweringTest, MatmulParametersAreReversedMemrefs) {
  Lowered lowered(readExample("matmul.tc"));
  auto result = lowered.lower("matmul", {{"M", 3}, {"K", 4}, {"N", 5}});
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  ASSERT_EQ(result->tensors.size(), 3u);
  EXPECT_EQ(result->tensors[0].name, "A");
  EXPECT_EQ(result->tensors[0].role, TensorInfo::Role::Input);
  EXPECT_EQ(result->tensors[0].shape, (llvm::SmallVector<int64_t, 4>{3, 4}));
  EXPECT_EQ(result->tensors[2].name, "C");
  EXPECT_EQ(result->tensors[2].role, TensorInfo::Role::Output);
  EXPECT_EQ(result->tensors[2].shape, (llvm::SmallVector<int64_t, 4>{3, 5}));
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));

  ir::Function &func = *result->kernels[0].function;
  EXPECT_EQ(func.getName(), "matmul");
  const auto *c = llvm::cast<ir::MemRefType>(func.getParameter(2)->getType());
  EXPECT_EQ(c->getShape(), (llvm::ArrayRef<int64_t>{5, 3}));
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));

  // C' = B' * A': gemm's first operand is B.
  ASSERT_EQ(countKind(func.getBody(), ir::InstKind::Gemm), 1u);
  for (ir::Instruction &inst : func.getBody())
    if (auto gemm = llvm::dyn_cast<ir::GemmInst>(&inst)) {
      EXPECT_EQ(gemm.getA(), func.getParameter(1));
      EXPECT_EQ(gemm.getB(), func.getParameter(0));
      EXPECT_EQ(gemm.getC(), func.getParameter(2));
    }
}

TEST(LoweringTest, LoopPathHasNoBlas) {
  Lowered lowered(readExample("matmul.tc"));
  auto result = lowered.lower("matmul", {{"M", 3}, {"K", 4}, {"N", 5}},
                              {/*matchBlas=*/false});
  ASSERT_TRUE(result);
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Gemm),
      0u);
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Foreach),
      1u);
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::For), 1u);
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, BatchesSetTheGrid) {
  Lowered batch(readExample("batch_matmul.tc"));
  auto result =
      batch.lower("batch_matmul", {{"B", 6}, {"N", 3}, {"M", 4}, {"K", 5}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{6, 1, 1}));

  // Max pooling goes to the mapper, which tiles the output band (n, c, h)
  // onto the groups by tc.group_work points (64): a 16 x 16 image has 3 x
  // 16 = 48 (c, h) points, so each group takes one image n and its
  // work-items the (c, h) points, each walking the row w.
  Lowered pool(readExample("max_pool.tc"));
  result = pool.lower("max_pool", {{"N", 5}, {"C", 3}, {"H", 32}, {"W", 32}});
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{5, 1, 1}));
  EXPECT_EQ(result->tensors[1].shape,
            (llvm::SmallVector<int64_t, 4>{5, 3, 16, 16}));
  // With 16 points per group a row w of 16 outputs occupies the
  // work-items: one group per (n, c, h).
  Lowered rows(readExample("max_pool.tc"));
  LoweringOptions options = {};
  options.groupWork = 16;
  result = rows.lower("max_pool", {{"N", 5}, {"C", 3}, {"H", 32}, {"W", 32}},
                      options);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{5, 3, 16}));
  EXPECT_TRUE(succeeded(ir::verify(rows.program, rows.source.diags)));
}

TEST(LoweringTest, BlocksSplitTheOutputOverGroups) {
  // Output memref C' is N x M = 10 x 7; blocks of 4 x 3 rows x cols.
  Lowered lowered(readExample("matmul.tc"));
  LoweringOptions options = {};
  options.blockRows = 4;
  options.blockCols = 3;
  auto result =
      lowered.lower("matmul", {{"M", 7}, {"K", 5}, {"N", 10}}, options);
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{3, 3, 1}));
  const ir::Region &body = result->kernels[0].function->getBody();
  EXPECT_EQ(countKind(body, ir::InstKind::Gemm), 1u);
  EXPECT_EQ(countKind(body, ir::InstKind::Subview), 3u);
  // Neither extent is a multiple of its block: both sizes are clipped.
  EXPECT_EQ(countKind(body, ir::InstKind::Min), 2u);
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));

  // The batch moves behind the blocks (Z' is K x N = 5 x 3); a block
  // covering the whole mode does not split it.
  Lowered batch(readExample("batch_matmul.tc"));
  options.blockRows = 2;
  options.blockCols = 100;
  result = batch.lower("batch_matmul", {{"B", 6}, {"N", 3}, {"M", 4}, {"K", 5}},
                       options);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{3, 6, 1}));
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Min), 1u);
}

TEST(LoweringTest, DefaultBlocksDependOnTheProblemSize) {
  Lowered small(readExample("matmul.tc"));
  auto result = small.lower("matmul", {{"M", 64}, {"K", 64}, {"N", 64}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));

  Lowered large(readExample("matmul.tc"));
  result = large.lower("matmul", {{"M", 1000}, {"K", 512}, {"N", 512}});
  ASSERT_TRUE(result);
  // C' is 512 x 1000: blocks of 256 x 256, the last column block clipped.
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 4, 1}));

  // One 256-block would cover C' (130 x 200): the rows are halved so that
  // two groups share the work.
  Lowered medium(readExample("matmul.tc"));
  result = medium.lower("matmul", {{"M", 200}, {"K", 100}, {"N", 130}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 1, 1}));
}

TEST(LoweringTest, NegativeBlocksAreReported) {
  Lowered lowered(readExample("matmul.tc"));
  LoweringOptions options = {};
  options.blockRows = -1;
  options.blockCols = -8;
  EXPECT_FALSE(
      lowered.lower("matmul", {{"M", 3}, {"K", 4}, {"N", 5}}, options));
  EXPECT_EQ(lowered.source.messages,
            (std::vector<std::string>{
                "2:5: lowering option 'block_rows' must be positive (or 0 for "
                "the default), found -1",
                "2:5: lowering option 'block_cols' must be positive (or 0 for "
                "the default), found -8"}));
}

/// The named allocas at the top of \p function (the temporaries in local
/// memory; a parallel reduction's scratch has no name): name -> memref type.
llvm::StringMap<const ir::MemRefType *> getAllocas(const ir::Function &func) {
  llvm::StringMap<const ir::MemRefType *> result;
  for (const ir::Instruction &inst : func.getBody())
    if (inst.getKind() == ir::InstKind::Alloca &&
        !inst.getResult(0)->getName().empty())
      result[inst.getResult(0)->getName()] =
          llvm::cast<ir::MemRefType>(inst.getResult(0)->getType());
  return result;
}

/// Checks the function name and the tensors (indices into the def's table)
/// of one kernel of a lowered def.
void expectKernel(const LoweredKernel &kernel, llvm::StringRef name,
                  llvm::ArrayRef<unsigned> tensors) {
  SCOPED_TRACE("kernel " + name.str());
  EXPECT_EQ(kernel.function->getName(), name);
  EXPECT_EQ(llvm::ArrayRef<unsigned>(kernel.tensorIndices), tensors);
}

/// The (global, local) flags of the top-level barriers of \p function.
std::vector<std::pair<bool, bool>> getBarriers(const ir::Function &func) {
  std::vector<std::pair<bool, bool>> result;
  for (const ir::Instruction &inst : func.getBody())
    if (auto barrier = llvm::dyn_cast<ir::BarrierInst>(&inst))
      result.emplace_back(barrier.isGlobal(), barrier.isLocal());
  return result;
}

TEST(LoweringTest, TemporariesFollowOutputs) {
  Lowered lowered(readExample("softmax.tc"));
  // Without local memory every temporary is a global scratch parameter
  // after the outputs, except e, which lives in Y (the output it becomes).
  LoweringOptions options = {};
  options.localMemoryBytes = 0;
  auto result = lowered.lower("softmax", {{"N", 3}, {"D", 64}}, options);
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  std::vector<std::string> names = tensorNames(*result);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "Y", "mx", "s"}));
  EXPECT_EQ(result->tensors[1].role, TensorInfo::Role::Output);
  EXPECT_EQ(result->tensors[2].role, TensorInfo::Role::Temporary);
  EXPECT_EQ(result->tensors[3].role, TensorInfo::Role::Temporary);
  EXPECT_EQ(result->tensors[3].shape, (llvm::SmallVector<int64_t, 4>{3}));
  // Every dependence keeps the row n and a row of 64 occupies the
  // work-items: one kernel, one group per row, taking all four tensors.
  ASSERT_EQ(result->kernels.size(), 1u);
  const ir::Function &func = *result->kernels[0].function;
  EXPECT_EQ(func.getName(), "softmax");
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{3, 1, 1}));
  EXPECT_EQ(result->kernels[0].tensorIndices,
            (llvm::SmallVector<unsigned, 4>{0, 1, 2, 3}));
  EXPECT_EQ(func.getNumParameters(), 4u);
  // No temporary is an alloca (the one alloca is the reductions' unnamed
  // scratch); the work-items of a group exchange mx, e (in Y) and s
  // through global memory, so some barriers fence it.
  EXPECT_TRUE(getAllocas(func).empty());
  EXPECT_TRUE(llvm::any_of(getBarriers(func), [](std::pair<bool, bool> flags) {
    return flags.first;
  }));
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, SmallTemporariesLiveInLocalMemory) {
  Lowered lowered(readExample("softmax.tc"));
  // One kernel, one group per row: mx, e and s are touched by this kernel
  // alone, always inside the group loop over n, so all three become allocas
  // in local memory instead of parameters (e too: a local temporary never
  // moves to Y).
  auto result = lowered.lower("softmax", {{"N", 3}, {"D", 64}});
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  std::vector<std::string> names = tensorNames(*result);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "Y"}));
  EXPECT_TRUE(result->storedInOutputs.empty());
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{3, 1, 1}));
  const ir::Function &func = *result->kernels[0].function;
  EXPECT_EQ(func.getNumParameters(), 2u);
  EXPECT_EQ(result->kernels[0].tensorIndices,
            (llvm::SmallVector<unsigned, 4>{0, 1}));
  llvm::StringMap<const ir::MemRefType *> allocas = getAllocas(func);
  ASSERT_EQ(allocas.size(), 3u);
  ASSERT_TRUE(allocas.count("mx") && allocas.count("e") && allocas.count("s"));
  // The slice of one group: the row n is its own coordinate, so mx and s
  // are one float and e the row of D = 64 floats (memref modes reversed).
  EXPECT_EQ(allocas["mx"]->getShape(), (llvm::ArrayRef<int64_t>{1}));
  EXPECT_EQ(allocas["e"]->getShape(), (llvm::ArrayRef<int64_t>{64, 1}));
  EXPECT_EQ(allocas["s"]->getShape(), (llvm::ArrayRef<int64_t>{1}));
  for (const auto &entry : allocas)
    EXPECT_EQ(entry.second->getAddressSpace(), ir::AddressSpace::Local)
        << entry.first().str();
  // Every dependence is through local memory: barriers, none global.
  std::vector<std::pair<bool, bool>> barriers = getBarriers(func);
  EXPECT_FALSE(barriers.empty());
  for (auto [global, local] : barriers) {
    EXPECT_FALSE(global);
    EXPECT_TRUE(local);
  }
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, AMappedTemporaryLivesInTheOutputItBecomes) {
  Lowered lowered(readExample("softmax.tc"));
  // Temporaries in global memory: e lives in Y and is no parameter.
  LoweringOptions options;
  options.localMemoryBytes = 0;
  auto mapped = lowered.lower("softmax", {{"N", 3}, {"D", 4}}, options);
  ASSERT_TRUE(mapped) << testing::PrintToString(lowered.source.messages);
  std::vector<std::string> names = tensorNames(*mapped);
  EXPECT_EQ(names, (std::vector<std::string>{"X", "Y", "mx", "s"}));
  using Stored = std::pair<std::string, std::string>;
  EXPECT_EQ(mapped->storedInOutputs,
            (llvm::SmallVector<Stored, 1>{Stored{"e", "Y"}}));
}

TEST(LoweringTest, CostlyInvariantsOfTheLastIndexGetTemporaries) {
  // Batch norm's rsqrt(var(c) + 1e-5) is a temporary over c, allocated by
  // the caller like the def's own temporaries.
  Lowered lowered(readExample("batch_norm.tc"));
  {
    LoweringOptions options;
    options.localMemoryBytes = 0; // every temporary in global memory
    auto result = lowered.lower("batch_norm", {{"N", 6}, {"C", 10}}, options);
    ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
    ASSERT_EQ(result->tensors.size(), 7u);
    const LoweredTensor &hoisted = result->tensors.back();
    EXPECT_EQ(hoisted.name, "Y_hoisted0");
    EXPECT_EQ(hoisted.role, TensorInfo::Role::Temporary);
    EXPECT_EQ(hoisted.shape, (llvm::SmallVector<int64_t, 4>{10}));
    EXPECT_EQ(hoisted.lowerBounds, (llvm::SmallVector<int64_t, 4>{0}));
    using Hoisted = std::pair<std::string, std::string>;
    EXPECT_EQ(result->hoisted,
              (llvm::SmallVector<Hoisted, 1>{Hoisted{"Y_hoisted0", "Y"}}));
  }
  // A name of the def is never taken.
  Lowered clash(R"TC(
def f(float(M, N) A, float(N) b) -> (O, O_hoisted0) {
  O_hoisted0(j) = b(j)
  O(i, j) = A(i, j) * exp(b(j))
})TC");
  LoweringOptions global;
  global.localMemoryBytes = 0; // the temporary a parameter, with its name
  auto result = clash.lower("f", {{"M", 3}, {"N", 4}}, global);
  ASSERT_TRUE(result) << testing::PrintToString(clash.source.messages);
  EXPECT_EQ(
      tensorNames(*result),
      (std::vector<std::string>{"A", "b", "O", "O_hoisted0", "O_hoisted0_"}));
}

TEST(LoweringTest, LocalMemoryBudgetKeepsLargeSlicesGlobal) {
  // A group per row: its two reductions run in parallel over the row and
  // keep a float per subgroup in local memory, 8 subgroups here (32 bytes,
  // one buffer for both). Slices are taken in the def's order while they fit
  // in the rest: mx (4 bytes), e (a row of 64 floats, 256 bytes), s (4
  // bytes).
  constexpr int64_t partials = 8 * 4;
  auto lower = [](Lowered &lowered, int64_t bytes) {
    LoweringOptions options = {};
    options.localMemoryBytes = partials + bytes;
    options.maxSubgroups = 8;
    return lowered.lower("softmax", {{"N", 3}, {"D", 64}}, options);
  };
  using Flags = std::pair<bool, bool>;
  auto isGlobal = [](Flags flags) { return flags.first; };

  // 8 bytes: mx fits, then e does not, then s fits again. e stays in global
  // memory, where it lives in Y.
  Lowered small(readExample("softmax.tc"));
  auto result = lower(small, 8);
  ASSERT_TRUE(result) << testing::PrintToString(small.source.messages);
  EXPECT_EQ(tensorNames(*result), (std::vector<std::string>{"X", "Y"}));
  using Stored = std::pair<std::string, std::string>;
  EXPECT_EQ(result->storedInOutputs,
            (llvm::SmallVector<Stored, 1>{Stored{"e", "Y"}}));
  ASSERT_EQ(result->kernels.size(), 1u);
  const ir::Function &func = *result->kernels[0].function;
  llvm::StringMap<const ir::MemRefType *> allocas = getAllocas(func);
  EXPECT_EQ(allocas.size(), 2u);
  ASSERT_TRUE(allocas.count("mx") && allocas.count("s"));
  EXPECT_EQ(allocas["mx"]->getShape(), (llvm::ArrayRef<int64_t>{1}));
  EXPECT_EQ(allocas["s"]->getShape(), (llvm::ArrayRef<int64_t>{1}));
  // Two dependences go through e in Y, from one work-item to another: e's
  // stores before the row sum reads them, and the sum's reads before the
  // division overwrites Y. Their barriers fence global and local memory;
  // the others only local memory.
  std::vector<Flags> barriers = getBarriers(func);
  EXPECT_EQ(llvm::count(barriers, Flags{true, true}), 2);
  EXPECT_EQ(llvm::count_if(barriers, isGlobal), 2);
  EXPECT_TRUE(succeeded(ir::verify(small.program, small.source.diags)));

  // 260 bytes: mx and e fit, s no longer does: a global scratch parameter.
  Lowered medium(readExample("softmax.tc"));
  result = lower(medium, 260);
  ASSERT_TRUE(result) << testing::PrintToString(medium.source.messages);
  EXPECT_EQ(tensorNames(*result), (std::vector<std::string>{"X", "Y", "s"}));
  EXPECT_TRUE(result->storedInOutputs.empty());
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].tensorIndices,
            (llvm::SmallVector<unsigned, 4>{0, 1, 2}));
  allocas = getAllocas(*result->kernels[0].function);
  EXPECT_EQ(allocas.size(), 2u);
  ASSERT_TRUE(allocas.count("mx") && allocas.count("e"));
  EXPECT_EQ(allocas["e"]->getShape(), (llvm::ArrayRef<int64_t>{64, 1}));
  EXPECT_TRUE(
      llvm::any_of(getBarriers(*result->kernels[0].function), isGlobal));

  // 264 bytes hold all three: no barrier fences global memory.
  Lowered large(readExample("softmax.tc"));
  result = lower(large, 264);
  ASSERT_TRUE(result) << testing::PrintToString(large.source.messages);
  EXPECT_EQ(tensorNames(*result), (std::vector<std::string>{"X", "Y"}));
  EXPECT_EQ(getAllocas(*result->kernels[0].function).size(), 3u);
  EXPECT_FALSE(
      llvm::any_of(getBarriers(*result->kernels[0].function), isGlobal));

  // The partials' buffer counts: 263 bytes beside it no longer hold s.
  Lowered tight(readExample("softmax.tc"));
  result = lower(tight, 263);
  ASSERT_TRUE(result) << testing::PrintToString(tight.source.messages);
  EXPECT_EQ(tensorNames(*result), (std::vector<std::string>{"X", "Y", "s"}));
  EXPECT_EQ(getAllocas(*result->kernels[0].function).size(), 2u);
  // The buffer itself: unnamed, a float per subgroup.
  unsigned buffers = 0;
  for (const ir::Instruction &inst : result->kernels[0].function->getBody())
    if (inst.getKind() == ir::InstKind::Alloca &&
        inst.getResult(0)->getName().empty()) {
      ++buffers;
      EXPECT_EQ(
          llvm::cast<ir::MemRefType>(inst.getResult(0)->getType())->getShape(),
          (llvm::ArrayRef<int64_t>{8}));
    }
  EXPECT_EQ(buffers, 1u);
}

TEST(LoweringTest, DependencesAcrossGroupsSplitTheDef) {
  // The groups of a kernel run in parallel, so a dependence from one group
  // to another ends a kernel. O(i) reads T(N - 1 - i), which another group
  // wrote: two kernels, each over ceil(100 / 64) = 2 groups of
  // tc.group_work points, each taking only the tensors it touches. T,
  // which both kernels touch, stays a global parameter.
  Lowered reversed(R"TC(
def split(float(N) A) -> (O) {
  T(i) = A(i) * 2
  O(i) = T(i) + T(N - 1 - i)
}
)TC");
  auto result = reversed.lower("split", {{"N", 100}});
  ASSERT_TRUE(result) << testing::PrintToString(reversed.source.messages);
  ASSERT_EQ(result->tensors.size(), 3u);
  EXPECT_EQ(result->tensors[2].name, "T");
  ASSERT_EQ(result->kernels.size(), 2u);
  expectKernel(result->kernels[0], "split_0", {0, 2});
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 1, 1}));
  expectKernel(result->kernels[1], "split_1", {1, 2});
  EXPECT_EQ(result->kernels[1].grid, (std::array<int64_t, 3>{2, 1, 1}));
  for (const LoweredKernel &kernel : result->kernels) {
    EXPECT_EQ(countKind(kernel.function->getBody(), ir::InstKind::Barrier), 0u);
    EXPECT_EQ(countKind(kernel.function->getBody(), ir::InstKind::Alloca), 0u);
  }
  EXPECT_TRUE(succeeded(ir::verify(reversed.program, reversed.source.diags)));

  // The division needs all of s(). At N = 100000 it spreads over groups:
  // two kernels, the sum (s's init, then the parallel reduction, in one
  // work-group) and the division. At N = 9 every part has one group: one
  // kernel, its parts separated by barriers.
  Lowered lowered(R"TC(
def normalize(float(N) A, float(N) Z) -> (B) {
  s() +=! A(i)
  B(i) = A(i) / s()
}
)TC");
  result = lowered.lower("normalize", {{"N", 100000}});
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  ASSERT_EQ(result->kernels.size(), 2u);
  // Tensors: A, Z, B, s. The sum takes A and s, the division A, B and s;
  // no kernel takes Z.
  expectKernel(result->kernels[0], "normalize_0", {0, 3});
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));
  expectKernel(result->kernels[1], "normalize_1", {0, 2, 3});
  EXPECT_GT(result->kernels[1].grid[0], 1);
  // The init's store reaches the reduction's work-items through a global
  // barrier; the reduction combines its partials in local memory.
  using Flags = std::pair<bool, bool>;
  EXPECT_EQ(getBarriers(*result->kernels[0].function),
            (std::vector<Flags>{{true, false}, {false, true}, {false, true}}));
  EXPECT_EQ(
      countKind(result->kernels[1].function->getBody(), ir::InstKind::Barrier),
      0u);
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
  Lowered small(lowered.source.getBuffer());
  result = small.lower("normalize", {{"N", 9}});
  ASSERT_TRUE(result) << testing::PrintToString(small.source.messages);
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].function->getName(), "normalize");
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_TRUE(succeeded(ir::verify(small.program, small.source.diags)));

  // conv2d as loops: the bias statement reads what the same work-item
  // wrote, so both share one kernel without a barrier. The band (n, m, h)
  // is tiled by 64 points: h (16) whole, m by 4, so 2 x 2 groups.
  Lowered conv(readExample("conv2d.tc"));
  LoweringOptions loops;
  loops.convAsGemm = false;
  result = conv.lower("conv2d",
                      {{"N", 2},
                       {"C", 3},
                       {"H", 18},
                       {"W", 20},
                       {"M", 5},
                       {"KH", 3},
                       {"KW", 2}},
                      loops);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].function->getName(), "conv2d");
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 2, 1}));
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Barrier),
      0u);
  EXPECT_TRUE(succeeded(ir::verify(conv.program, conv.source.diags)));
}

TEST(LoweringTest, ConvolutionIsGemmsOverViewsInALaunchOfItsOwn) {
  Lowered conv(readExample("conv2d.tc"));
  LoweringOptions forced;
  forced.convAsGemm = true;
  // The bias in a launch of its own (GemmEpilogue.cpp, below, joins it).
  forced.gemmEpilogue = false;
  std::optional<LoweredDef> result = conv.lower(
      "conv2d",
      {{"N", 2}, {"C", 3}, {"H", 7}, {"W", 9}, {"M", 5}, {"KH", 3}, {"KW", 2}},
      forced);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 2u);
  // One group per (n, h); gemm for (kh, kw) = (0, 0), then a loop over the
  // other 5 points, each a gemm; no loop nest over the output.
  const ir::Function &gemms = *result->kernels[0].function;
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 5, 1}));
  EXPECT_EQ(countKind(gemms.getBody(), ir::InstKind::Gemm), 2u);
  EXPECT_EQ(countKind(gemms.getBody(), ir::InstKind::For), 1u);
  EXPECT_EQ(countKind(gemms.getBody(), ir::InstKind::Foreach), 0u);
  EXPECT_EQ(countKind(gemms.getBody(), ir::InstKind::Subview), 6u);
  // The bias is the second launch, which neither reads I nor W1.
  EXPECT_EQ(result->kernels[1].function->getNumParameters(), 2u);
  EXPECT_TRUE(succeeded(ir::verify(conv.program, conv.source.diags)));

  // By default on a CPU core the bias runs after the gemms, in their
  // launch: a foreach over the group's block (every m and w of its (n, h)).
  Lowered fused(readExample("conv2d.tc"));
  forced.gemmEpilogue.reset();
  result = fused.lower(
      "conv2d",
      {{"N", 2}, {"C", 3}, {"H", 7}, {"W", 9}, {"M", 5}, {"KH", 3}, {"KW", 2}},
      forced);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 1u);
  const ir::Function &withBias = *result->kernels[0].function;
  EXPECT_EQ(countKind(withBias.getBody(), ir::InstKind::Gemm), 2u);
  EXPECT_EQ(countKind(withBias.getBody(), ir::InstKind::Foreach), 1u);
  EXPECT_EQ(withBias.getNumParameters(), 4u);
  EXPECT_TRUE(succeeded(ir::verify(fused.program, fused.source.diags)));

  // By default only from kMinConvGemmReduction input channels on.
  Lowered few(readExample("conv2d.tc"));
  result = few.lower(
      "conv2d",
      {{"N", 2}, {"C", 7}, {"H", 7}, {"W", 9}, {"M", 5}, {"KH", 3}, {"KW", 2}});
  ASSERT_TRUE(result);
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Gemm),
      0u);
  Lowered many(readExample("conv2d.tc"));
  result = many.lower(
      "conv2d",
      {{"N", 2}, {"C", 8}, {"H", 7}, {"W", 9}, {"M", 5}, {"KH", 3}, {"KW", 2}});
  ASSERT_TRUE(result);
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Gemm),
      2u);

  // A strided convolution (`2 * w + kw`) is gemms too: the view of I is
  // expanded into pairs of columns and keeps the first of each (an expand
  // and a second subview per tap besides the first one).
  Lowered strided(readExample("strided_conv.tc"));
  result = strided.lower(
      "strided_conv",
      {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 9}, {"M", 4}, {"KH", 3}, {"KW", 3}},
      forced);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->kernels.size(), 1u);
  const ir::Function &stepped = *result->kernels[0].function;
  EXPECT_EQ(countKind(stepped.getBody(), ir::InstKind::Gemm), 2u);
  EXPECT_EQ(countKind(stepped.getBody(), ir::InstKind::Expand), 2u);
  EXPECT_TRUE(succeeded(ir::verify(strided.program, strided.source.diags)));
}

TEST(LoweringTest, ShiftedOutputRecordsItsLowerBound) {
  Lowered lowered(R"TC(
def shifted(float(N) A) -> (O) {
  O(i) = A(i - 2) where i in 2:N
}
)TC");
  auto result = lowered.lower("shifted", {{"N", 9}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->tensors[1].shape, (llvm::SmallVector<int64_t, 4>{7}));
  EXPECT_EQ(result->tensors[1].lowerBounds, (llvm::SmallVector<int64_t, 4>{2}));
}

TEST(LoweringTest, EveryExampleLowersToVerifiedIr) {
  struct Case {
    const char *file, *entry;
    llvm::StringMap<int64_t> sizes;
  };
  Case cases[] = {
      {"batch_matmul.tc",
       "batch_matmul",
       {{"B", 2}, {"N", 3}, {"M", 4}, {"K", 5}}},
      {"conv1d.tc", "conv1d", {{"N", 9}, {"K", 3}}},
      {"conv2d.tc",
       "conv2d",
       {{"N", 1},
        {"C", 2},
        {"H", 5},
        {"W", 6},
        {"M", 3},
        {"KH", 3},
        {"KW", 2}}},
      {"gather.tc", "gather", {{"N", 4}, {"D", 3}, {"L", 5}}},
      {"grouped_conv.tc",
       "grouped_conv",
       {{"N", 1},
        {"G", 2},
        {"C", 2},
        {"F", 2},
        {"H", 4},
        {"W", 4},
        {"KH", 2},
        {"KW", 2}}},
      {"kronecker.tc", "kronecker", {{"M", 2}, {"N", 3}, {"P", 4}, {"Q", 5}}},
      {"layer_norm.tc", "layer_norm", {{"N", 3}, {"D", 4}}},
      {"matmul.tc", "matmul", {{"M", 3}, {"K", 4}, {"N", 5}}},
      {"max_pool.tc", "max_pool", {{"N", 1}, {"C", 2}, {"H", 4}, {"W", 4}}},
      {"moments.tc", "moments", {{"N", 3}, {"K", 4}}},
      {"softmax.tc", "softmax", {{"N", 3}, {"D", 4}}},
      {"strided_conv.tc",
       "strided_conv",
       {{"N", 1},
        {"C", 2},
        {"H", 7},
        {"W", 7},
        {"M", 3},
        {"KH", 3},
        {"KW", 3}}},
      {"transpose.tc", "transpose", {{"M", 3}, {"N", 4}}},
  };
  for (const Case &c : cases)
    for (bool matchBlas : {true, false}) {
      SCOPED_TRACE(std::string(c.file) + (matchBlas ? "" : " (loops)"));
      Lowered lowered(readExample(c.file));
      auto result = lowered.lower(c.entry, c.sizes, {matchBlas});
      ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
      EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)))
          << testing::PrintToString(lowered.source.messages);
    }
}

TEST(LoweringTest, MissingSizesAreReported) {
  Lowered lowered(readExample("matmul.tc"));
  EXPECT_FALSE(lowered.lower("matmul", {{"M", 3}}));
  EXPECT_EQ(lowered.source.messages,
            (std::vector<std::string>{
                "2:5: size variable 'K' of 'matmul' has no value, and the "
                "def cannot be lowered without one",
                "2:5: size variable 'N' of 'matmul' has no value, and the "
                "def cannot be lowered without one"}));
  EXPECT_TRUE(lowered.program.empty());
}

TEST(LoweringTest, CallsAreInlined) {
  Lowered lowered(readExample("mlp.tc"));
  // As loops (no BLAS instruction), the statements of both calls keep the
  // batch row b: one kernel, one group per row (a hidden row of N = 64
  // occupies the work-items).
  LoweringOptions options = {};
  options.matchBlas = false;
  auto result =
      lowered.lower("mlp", {{"B", 2}, {"M", 3}, {"N", 64}, {"P", 5}}, options);
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  std::vector<std::string> names = tensorNames(*result);
  // The first call's output O1 is a temporary of mlp that lives in local
  // memory, one row of N = 64 per group.
  EXPECT_EQ(names,
            (std::vector<std::string>{"I", "W1", "B1", "W2", "B2", "O2"}));
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].function->getName(), "mlp");
  EXPECT_EQ(result->kernels[0].grid, (std::array<int64_t, 3>{2, 1, 1}));
  llvm::StringMap<const ir::MemRefType *> allocas =
      getAllocas(*result->kernels[0].function);
  ASSERT_EQ(allocas.size(), 1u);
  ASSERT_TRUE(allocas.count("O1"));
  EXPECT_EQ(allocas["O1"]->getShape(), (llvm::ArrayRef<int64_t>{64, 1}));
  EXPECT_EQ(allocas["O1"]->getAddressSpace(), ir::AddressSpace::Local);
  // Per call: the product's init, the product and the bias + ReLU, each a
  // loop nest over the work-items (O1's three, then O2's).
  EXPECT_EQ(
      countKind(result->kernels[0].function->getBody(), ir::InstKind::Foreach),
      6u);
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, ProductsWithSharedWeightsTakeLaunchesOfTheirOwn) {
  // Each layer's product reads weights that every row b shares: fused with
  // the bias and ReLU row by row it would lose its gemm, so it runs alone
  // (with the bias and ReLU in a launch of their own, tc.gemm_epilogue = 0).
  Lowered lowered(readExample("mlp.tc"));
  LoweringOptions separate;
  separate.gemmEpilogue = false;
  auto result = lowered.lower("mlp", {{"B", 2}, {"M", 3}, {"N", 4}, {"P", 5}},
                              separate);
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  ASSERT_EQ(result->kernels.size(), 4u);
  for (unsigned index = 0; index < 4; ++index)
    EXPECT_EQ(countKind(result->kernels[index].function->getBody(),
                        ir::InstKind::Gemm),
              index % 2 == 0 ? 1u : 0u)
        << "kernel " << index;
  // The hidden layer crosses launches: a tensor in global memory.
  std::vector<std::string> names = tensorNames(*result);
  EXPECT_TRUE(llvm::is_contained(names, "O1"));
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));

  // By default (a CPU core) each bias and ReLU follows its product in the
  // product's launch, over the group's block.
  Lowered fused(readExample("mlp.tc"));
  result = fused.lower("mlp", {{"B", 2}, {"M", 3}, {"N", 4}, {"P", 5}});
  ASSERT_TRUE(result) << testing::PrintToString(fused.source.messages);
  ASSERT_EQ(result->kernels.size(), 2u);
  for (const LoweredKernel &kernel : result->kernels) {
    EXPECT_EQ(countKind(kernel.function->getBody(), ir::InstKind::Gemm), 1u);
    EXPECT_EQ(countKind(kernel.function->getBody(), ir::InstKind::Foreach),
              1u);
  }
  EXPECT_TRUE(succeeded(ir::verify(fused.program, fused.source.diags)));
}

TEST(LoweringTest, CalleeTemporariesArePerCall) {
  Lowered lowered(R"TC(
def square(float(M) A) -> (B) {
  T(i) = A(i) * A(i)
  B(i) = T(i) + 1
}
def twice(float(M) A, float(K) X) -> (C, Y) {
  B = square(A)
  C = square(B)
  Y = square(X)
}
)TC");
  LoweringOptions options = {};
  options.localMemoryBytes = 0;
  auto result = lowered.lower("twice", {{"M", 3}, {"K", 5}}, options);
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  std::vector<std::string> names = tensorNames(*result);
  EXPECT_EQ(names,
            (std::vector<std::string>{"A", "X", "C", "Y", "B", "square_0_T",
                                      "square_1_T", "square_2_T"}));
  EXPECT_EQ(result->tensors[7].role, TensorInfo::Role::Temporary);
  // The third call's size M is the extent of X.
  EXPECT_EQ(result->tensors[7].shape, (llvm::SmallVector<int64_t, 4>{5}));
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, TheLoweringReportsTheKnobsItConsulted) {
  // A matrix product's blocks, once its output is larger than the smallest
  // block the search tries; no mapper for a gemm statement.
  Lowered large(readExample("matmul.tc"));
  auto result = large.lower("matmul", {{"M", 128}, {"K", 128}, {"N", 128}}, {});
  ASSERT_TRUE(result) << testing::PrintToString(large.source.messages);
  EXPECT_TRUE(result->knobs.blocks);
  EXPECT_FALSE(result->knobs.schedule);
  EXPECT_FALSE(result->knobs.groupWork);
  Lowered small(readExample("matmul.tc"));
  result = small.lower("matmul", {{"M", 7}, {"K", 33}, {"N", 5}}, {});
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->knobs.blocks);

  // A convolution: lowered to gemms by default at 16 channels, to loops at
  // 3, both forms open to the search.
  Lowered conv(readExample("conv2d.tc"));
  result = conv.lower(
      "conv2d",
      {{"N", 1}, {"C", 16}, {"H", 8}, {"W", 8}, {"M", 4}, {"KH", 3}, {"KW", 3}},
      {});
  ASSERT_TRUE(result) << testing::PrintToString(conv.source.messages);
  EXPECT_TRUE(result->knobs.convGemm);
  EXPECT_TRUE(result->knobs.convGemmDefault);
  Lowered fewChannels(readExample("conv2d.tc"));
  result = fewChannels.lower(
      "conv2d",
      {{"N", 1}, {"C", 3}, {"H", 8}, {"W", 8}, {"M", 4}, {"KH", 3}, {"KW", 3}},
      {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->knobs.convGemm);
  EXPECT_FALSE(result->knobs.convGemmDefault);

  // Statements lowered from their schedule: the mapper's knobs; softmax's
  // temporaries could go to local memory; a long map tiles by group_work
  // and, with vector runs, uses them.
  Lowered softmax(readExample("softmax.tc"));
  result = softmax.lower("softmax", {{"N", 64}, {"D", 256}}, {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->knobs.schedule);
  EXPECT_TRUE(result->knobs.localTemporaries);
  EXPECT_FALSE(result->knobs.vectorRun);
  LoweringOptions runs;
  runs.vectorRun = 64;
  Lowered add("def add(float(L) A, float(L) B) -> (O) {\n"
              "  O(i) = A(i) + B(i)\n"
              "}\n");
  result = add.lower("add", {{"L", 100000}}, runs);
  ASSERT_TRUE(result) << testing::PrintToString(add.source.messages);
  EXPECT_TRUE(result->knobs.groupWork);
  EXPECT_TRUE(result->knobs.vectorRun);
  EXPECT_EQ(result->knobs.vectorRunDefault, 64);
  EXPECT_FALSE(result->knobs.blocks);
  EXPECT_FALSE(result->knobs.convGemm);

  // A data-dependent read is scheduled too (isl takes it as a read of any
  // element); a def of BLAS statements alone has no mapper knobs.
  Lowered gather(readExample("gather.tc"));
  result = gather.lower("gather", {{"N", 10}, {"D", 7}, {"L", 33}}, {});
  ASSERT_TRUE(result) << testing::PrintToString(gather.source.messages);
  EXPECT_TRUE(result->knobs.schedule);
  Lowered matmul(readExample("matmul.tc"));
  result = matmul.lower("matmul", {{"M", 64}, {"N", 64}, {"K", 64}}, {});
  ASSERT_TRUE(result) << testing::PrintToString(matmul.source.messages);
  EXPECT_TRUE(result->knobs.blocks);
  EXPECT_FALSE(result->knobs.schedule);
}

} // namespace
