//===- LoweringKnobs.cpp - The TC lowering's tuning knobs -----------------===//
//
// The table of the `tc.*` knobs (Lowering.h): each one sets a field of
// LoweringOptions, which the lowering and the mapper read.
//
//===----------------------------------------------------------------------===//
#include "comprehend/tc/Lowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <iterator>
#include <limits>

using namespace comprehend;
using namespace comprehend::tc;

namespace {
constexpr llvm::StringLiteral kBlockRows = "tc.block_rows";
constexpr llvm::StringLiteral kBlockCols = "tc.block_cols";
constexpr llvm::StringLiteral kGroupWork = "tc.group_work";
constexpr llvm::StringLiteral kLocalTemporaries = "tc.local_temporaries";
constexpr llvm::StringLiteral kFusion = "tc.fusion";
constexpr llvm::StringLiteral kInnerMapping = "tc.inner_mapping";
constexpr llvm::StringLiteral kConvGemm = "tc.conv_gemm";
constexpr llvm::StringLiteral kGemmTransposeCopy = "tc.gemm_transpose_copy";
constexpr llvm::StringLiteral kSplitBatchReductions =
    "tc.split_batch_reductions";
constexpr llvm::StringLiteral kTransposeWeightGradients =
    "tc.transpose_weight_gradients";
constexpr llvm::StringLiteral kSplitColumnReductions =
    "tc.split_column_reductions";
constexpr llvm::StringLiteral kGemmEpilogue = "tc.gemm_epilogue";
constexpr llvm::StringLiteral kVectorRun = "tc.vector_run";
constexpr llvm::StringLiteral kMapInnermost = "tc.map_innermost";
/// Tile sizes of the outermost parallel band, outermost first; the search
/// tries the first two (a third is rarely a parallel member).
constexpr llvm::StringLiteral kTileSizes[] = {"tc.tile0", "tc.tile1",
                                              "tc.tile2"};
constexpr unsigned kSearchedTiles = 2;

/// The ranges of the table below (support/Knob.h).
constexpr int64_t kNoMaximum = std::numeric_limits<int64_t>::max();
constexpr llvm::StringLiteral kSizeLegal = "not negative (0: the default)";
constexpr llvm::StringLiteral kTileDoc =
    "a tile size of the outermost parallel band, outermost first (tile "
    "loops become groups, point loops work-items)";
constexpr llvm::StringLiteral kTileDefault =
    "0: innermost members get tiles until a group has `tc.group_work` "
    "points (docs/lowering.md, \"Vector rows\" on CPU cores)";
constexpr KnobSpec kKnobs[] = {
    {kBlockRows, 0, kNoMaximum,
     "rows (output memref mode 0) of the block of a BLAS statement's output "
     "that one work-group computes; the grid follows",
     "0: on GPU cores 128, halved to 64 while the launch has fewer groups "
     "than half the multiprocessors; elsewhere one group below 2^21 "
     "multiply-adds, else 256",
     kSizeLegal},
    {kBlockCols, 0, kNoMaximum, "columns (output memref mode 1) of that block",
     "0: on GPU cores 64, halved to 32 likewise; elsewhere as the rows",
     kSizeLegal},
    {kGroupWork, 0, kNoMaximum,
     "about how many points a work-group gets where the mapper tiles a band "
     "by work (elementwise maps, ...)",
     "0: 64; on NVIDIA cores 256, a point per work-item", kSizeLegal},
    {kLocalTemporaries, 0, 1,
     "whether temporaries that stay within a work-group live in local "
     "memory (alloca) or in global scratch",
     "1 where the core has dedicated local memory, else 0"},
    {kFusion, 0, 2,
     "isl's fusion strategy for statements lowered from their schedule: 0 "
     "as much as possible, 1 only where the outer loop stays parallel, 2 "
     "none",
     "0", "0 (max), 1 (outer) or 2 (none)", "0 (max), 1 (outer) or 2 (none)"},
    {kInnerMapping, 0, 1,
     "a group per point of the outer parallel band, the statements below "
     "on its work-items with reductions in parallel; 0 keeps them "
     "sequential in each work-item",
     "1"},
    {kConvGemm, 0, 1,
     "a convolution-like contraction (an output index shifted by a "
     "reduction index) as gemms over strided views in a launch of its own, "
     "a group per point of the other output indices (1), or as loops "
     "scheduled with its neighbours (0)",
     "1 where the gemms' reduction has at least 8 iterations"},
    {kGemmTransposeCopy, 0, 2,
     "a gemm statement that reads an operand transposed first copies it, in "
     "a launch of its own, into a temporary laid out as the gemm reads in "
     "place: 0 none, 1 a transposed A (its reduction index contiguous), 2 a "
     "transposed B too",
     "on cores with subgroups (GPUs) 1 where the gemm has at least 2^20 "
     "multiply-adds and 32 rows, 2 from 2^30 multiply-adds; on other "
     "cores 2 where only B is transposed, its K steps lie 4 KB or more "
     "apart and the gemm has at least 2^28 multiply-adds; else 0",
     "", "0 (none), 1 (A) or 2 (A and B)"},
    {kSplitBatchReductions, 0, 1,
     "a convolution-like `+=!` statement with few output points sums per "
     "image (a reduction index every read subscripts first) into a "
     "temporary, then sums those (1), or reduces in one statement (0)",
     "1 on cores with subgroups (GPUs) where the output has fewer points "
     "than twice the device's work-items, else 0"},
    {kTransposeWeightGradients, 0, 1,
     "a convolution's weight gradient copies the output gradient with its "
     "channels last and computes a temporary with them last, a gemm per "
     "tap over views (1), or multiplies panels of the input's windows "
     "(0)",
     "1 on cores without subgroups (CPUs), else 0"},
    {kSplitColumnReductions, 0, 1,
     "a `+=!`, `max=!` or `min=!` statement over rows whose reads run along "
     "the output's columns (a reduction index no read subscripts last) "
     "reduces per block of rows into a temporary, then combines those (1), "
     "or reduces in one statement (0)",
     "1 on cores with subgroups (GPUs) where the output has fewer points "
     "than the device's work-items, else 0"},
    {kGemmEpilogue, 0, 1,
     "a pointwise statement right after a gemm statement (or a convolution "
     "lowered to gemms) that rewrites the gemm's output element by element, "
     "such as a bias or an activation, runs in the gemm's launch, each "
     "work-group over its own block after its gemms (1), or in a launch of "
     "its own (0)",
     "1 on cores without subgroups (CPUs), else 0"},
    {kVectorRun, 0, kNoMaximum,
     "on cores whose work-items run on vectors, consecutive points of a "
     "tiled band's innermost member that one work-item runs as one loop "
     "(vectorized by the backend); offered where every access is "
     "contiguous along that member (docs/lowering.md, \"Vector runs\")",
     "4 x the native float vector width; 0 on cores with subgroups",
     kSizeLegal},
    {kMapInnermost, 0, 1,
     "the GPU's loop-nest mapping (1): where a band has more than three "
     "parallel members, the innermost three go to groups and work-items "
     "(the contiguous one on x) and the outer ones are folded into them, and "
     "one statement's sequential loops below a group become one loop that "
     "the group reduces; or the CPU's (0): the outermost three mapped, the "
     "inner ones loops of each work-item; not searched",
     "1 on cores with subgroups (GPUs), else 0"},
    {kTileSizes[0], 0, kNoMaximum, kTileDoc, kTileDefault, kSizeLegal},
    {kTileSizes[1], 0, kNoMaximum, kTileDoc, kTileDefault, kSizeLegal},
    {kTileSizes[2], 0, kNoMaximum, kTileDoc,
     "0 (not searched: a third member is rarely parallel)", kSizeLegal},
};

int64_t lookupOr(const KnobValues &values, llvm::StringRef name,
                 int64_t fallback) {
  auto it = values.find(std::string(name));
  return it == values.end() ? fallback : it->second;
}

bool contains(const KnobValues &values, llvm::StringRef name) {
  return values.count(std::string(name)) != 0;
}
} // namespace

llvm::ArrayRef<KnobSpec> tc::getLoweringKnobs() { return kKnobs; }

llvm::SmallVector<KnobDomain, 8>
tc::getLoweringKnobDomains(const LoweringKnobUse &use,
                           bool dedicatedLocalMemory) {
  llvm::SmallVector<KnobDomain, 8> domains;
  // 0 is the lowering's own choice, which depends on the problem size.
  if (use.blocks) {
    llvm::SmallVector<int64_t, 16> blocks = {0,  kSmallestBlock, 64, 128, 256,
                                             512};
    domains.push_back({kBlockRows, blocks, 0});
    domains.push_back({kBlockCols, blocks, 0});
  }
  if (use.localTemporaries)
    domains.push_back({kLocalTemporaries, {0, 1}, dedicatedLocalMemory});
  if (use.convGemm)
    domains.push_back({kConvGemm, {0, 1}, use.convGemmDefault});
  if (use.gemmTransposeCopy)
    domains.push_back(
        {kGemmTransposeCopy, {0, 1, 2}, use.gemmTransposeCopyDefault});
  if (use.splitBatchReductions)
    domains.push_back(
        {kSplitBatchReductions, {0, 1}, use.splitBatchReductionsDefault});
  if (use.transposeWeightGradients)
    domains.push_back({kTransposeWeightGradients,
                       {0, 1},
                       use.transposeWeightGradientsDefault});
  if (use.splitColumnReductions)
    domains.push_back(
        {kSplitColumnReductions, {0, 1}, use.splitColumnReductionsDefault});
  if (use.gemmEpilogue)
    domains.push_back({kGemmEpilogue, {0, 1}, use.gemmEpilogueDefault});
  if (use.groupWork)
    domains.push_back(
        {kGroupWork, {0, 16, 64, 256, 1024, 4096, 16384, 65536}, 0});
  if (use.schedule) {
    // The mapper's knobs. Tile sizes are legal at any value (clipped to the
    // band's extent); 0 is the mapper's default.
    domains.push_back({kFusion, {0, 1, 2}, 0});
    domains.push_back({kInnerMapping, {0, 1}, 1});
    for (llvm::StringLiteral tile :
         llvm::ArrayRef(kTileSizes).take_front(kSearchedTiles))
      domains.push_back({tile, {0, 1, 16, 64, 256}, 0});
  }
  if (use.vectorRun) {
    llvm::SmallVector<int64_t, 16> runs = {0, 16, 64, 256};
    if (!llvm::is_contained(runs, use.vectorRunDefault))
      runs.push_back(use.vectorRunDefault);
    domains.push_back({kVectorRun, runs, use.vectorRunDefault});
  }
  return domains;
}

LoweringOptions LoweringOptions::forCore(const CoreShape &core) {
  return forCore(core, LoweringOptions());
}

LoweringOptions LoweringOptions::forCore(const CoreShape &core,
                                         LoweringOptions base) {
  // Rows and runs per work-item where work-items run on vectors (CPU
  // cores): "Vector rows" and "Vector runs" in docs/lowering.md. A knob
  // may override them.
  bool vectorWorkItems =
      core.defaultSubgroupSize == 1 && core.nativeVectorWidth > 1;
  base.vectorRows = vectorWorkItems ? 4 : 0;
  base.vectorRun = vectorWorkItems ? 4 * int64_t(core.nativeVectorWidth) : 0;
  // The smallest subgroup gives a work-group the most subgroups.
  base.maxSubgroups = std::max<int64_t>(
      1, core.maxWorkGroupSize / std::max(1u, core.smallestSubgroupSize));
  // A GPU keeps every multiprocessor busy only with many groups; a CPU's
  // few cores prefer large blocks (chooseBlocks in BlasPatterns.cpp).
  base.minBlockGroups =
      core.defaultSubgroupSize > 1 ? int64_t(core.computeUnits) / 2 : 0;
  // A fused loop nest that leaves a GPU's work-items idle (a pooling
  // gradient's pixels made sequential by the fusion) loses more than the
  // launch and the temporary's round trip it saves.
  base.mapInnermostMembers = core.defaultSubgroupSize > 1;
  base.shareTrailingKernels = core.defaultSubgroupSize <= 1;
  base.unfuseStrides = core.defaultSubgroupSize <= 1;
  // A warp's register tile reads A a row per lane: coalesced only where
  // the rows are contiguous (docs/nvidia.md, "Transposed gemm operands").
  base.gemmRowsPerLane = core.defaultSubgroupSize > 1;
  base.minParallelPoints = core.defaultSubgroupSize > 1
                               ? int64_t(core.computeUnits) *
                                     std::max<int64_t>(core.maxWorkGroupSize, 1)
                               : 0;
  return base;
}

void tc::applyLoweringKnobs(const KnobValues &values, bool dedicatedLocalMemory,
                            int64_t localMemoryBytes,
                            LoweringOptions &options) {
  options.blockRows = lookupOr(values, kBlockRows, options.blockRows);
  options.blockCols = lookupOr(values, kBlockCols, options.blockCols);
  options.groupWork = lookupOr(values, kGroupWork, options.groupWork);
  options.vectorRun = lookupOr(values, kVectorRun, options.vectorRun);
  options.innerMapping = lookupOr(values, kInnerMapping, 1) != 0;
  if (contains(values, kConvGemm))
    options.convAsGemm = lookupOr(values, kConvGemm, 1) != 0;
  if (contains(values, kMapInnermost))
    options.mapInnermostMembers = lookupOr(values, kMapInnermost, 0) != 0;
  if (contains(values, kSplitBatchReductions))
    options.splitBatchReductions =
        lookupOr(values, kSplitBatchReductions, 0) != 0;
  if (contains(values, kTransposeWeightGradients))
    options.transposeWeightGradients =
        lookupOr(values, kTransposeWeightGradients, 0) != 0;
  if (contains(values, kSplitColumnReductions))
    options.splitColumnReductions =
        lookupOr(values, kSplitColumnReductions, 0) != 0;
  if (contains(values, kGemmEpilogue))
    options.gemmEpilogue = lookupOr(values, kGemmEpilogue, 0) != 0;
  if (contains(values, kGemmTransposeCopy))
    options.gemmTransposeCopy = lookupOr(values, kGemmTransposeCopy, 0);
  static constexpr poly::FusionStrategy fusions[] = {
      poly::FusionStrategy::Max, poly::FusionStrategy::KeepOuterParallel,
      poly::FusionStrategy::None};
  if (contains(values, kFusion))
    options.fusion = fusions[lookupOr(values, kFusion, 0)];
  for (unsigned dim = 0; dim < std::size(kTileSizes); ++dim)
    if (contains(values, kTileSizes[dim])) {
      if (options.tileSizes.size() <= dim)
        options.tileSizes.resize(dim + 1, 0);
      options.tileSizes[dim] = lookupOr(values, kTileSizes[dim], 0);
    }
  // Temporaries go to local memory (within the lowering's budget and the
  // core's size) where the core has memory of its own for it, unless the
  // configuration says otherwise.
  bool local =
      lookupOr(values, kLocalTemporaries, dedicatedLocalMemory ? 1 : 0) != 0;
  options.localMemoryBytes =
      local ? std::min<int64_t>(options.localMemoryBytes > 0
                                    ? options.localMemoryBytes
                                    : LoweringOptions().localMemoryBytes,
                                localMemoryBytes)
            : 0;
}
