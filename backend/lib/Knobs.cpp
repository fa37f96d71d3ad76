//===- Knobs.cpp - The backend's tuning knobs -----------------------------===//
#include "comprehend/backend/Knobs.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <limits>

using namespace comprehend;
using namespace comprehend::backend;

namespace {
constexpr llvm::StringLiteral kLaunchLegal =
    "positive; the work-group's product at most the core's maximum, its "
    "first mode a multiple of the subgroup size, the subgroup size one the "
    "core supports";
constexpr llvm::StringLiteral kGemmLegal =
    "not negative; checkGemmTiling: rows a multiple of the subgroup size and "
    "at most 128, columns and K step at most 32, the tile within the core's "
    "register budget, K block at most 2^20";
constexpr int64_t kNoMaximum = std::numeric_limits<int64_t>::max();
constexpr KnobSpec kKnobs[] = {
    {kWorkGroupSize0Knob, 1, kNoMaximum,
     "work-items per group along x (the function attribute "
     "`work_group_size`)",
     "the work-group-size pass's choice; on NVIDIA cores by what the "
     "work-group shares (docs/nvidia.md)",
     kLaunchLegal},
    {kWorkGroupSize1Knob, 1, kNoMaximum, "work-items per group along y",
     "the compiler's choice", kLaunchLegal},
    {kSubgroupSizeKnob, 1, kNoMaximum,
     "the subgroup size (the function attribute `subgroup_size`)",
     "the core's default subgroup size", kLaunchLegal},
    {kGemmRowsKnob, 0, kNoMaximum,
     "rows of C in a subgroup's register tile (backend::GemmTiling)",
     "0: getDefaultGemmTiling (docs/tuning.md, \"Gemm defaults\")", kGemmLegal},
    {kGemmColsKnob, 0, kNoMaximum, "columns of C in the register tile",
     "0: getDefaultGemmTiling", kGemmLegal},
    {kGemmKStepKnob, 0, kNoMaximum,
     "the contracted mode's step per iteration of the tile loop",
     "0: getDefaultGemmTiling", kGemmLegal},
    {kGemmKBlockKnob, 0, kNoMaximum,
     "the K block: every C tile takes one block of K before the next block "
     "begins, so the block's A rows stay in the data cache; on a CPU core "
     "an A copied per block into local memory takes shorter blocks where "
     "this one would not fit there",
     "0: getDefaultGemmTiling (no blocks, or the core's data cache)",
     kGemmLegal},
};

int64_t lookupOr(const KnobValues &values, llvm::StringRef name,
                 int64_t fallback) {
  auto it = values.find(std::string(name));
  return it == values.end() ? fallback : it->second;
}
} // namespace

llvm::ArrayRef<KnobSpec> backend::getBackendKnobs() { return kKnobs; }

namespace {
/// Powers of two times `first` up to `last`, with `extra` among them.
llvm::SmallVector<int64_t, 16> getDoublings(int64_t first, int64_t last,
                                            int64_t extra) {
  llvm::SmallVector<int64_t, 16> values;
  for (int64_t value = first; value <= last; value *= 2)
    values.push_back(value);
  if (!llvm::is_contained(values, extra)) {
    values.push_back(extra);
    llvm::sort(values);
  }
  return values;
}

/// The GPU launch modes: the first in warps, the second no larger than
/// leaves room for a warp in the first.
llvm::SmallVector<KnobDomain, 3>
getGpuLaunchKnobDomains(const CoreInfo &core, const KernelInfo &defaults) {
  int64_t warp = core.defaultSubgroupSize();
  int64_t maximum = core.maxWorkGroupSize;
  KnobDomain subgroup{kSubgroupSizeKnob, {}, defaults.subgroupSize};
  subgroup.values.assign(core.subgroupSizes.begin(), core.subgroupSizes.end());
  return {KnobDomain{kWorkGroupSize0Knob,
                     getDoublings(warp, maximum, defaults.workGroupSize[0]),
                     defaults.workGroupSize[0]},
          KnobDomain{kWorkGroupSize1Knob,
                     getDoublings(1, std::max<int64_t>(1, maximum / warp),
                                  defaults.workGroupSize[1]),
                     defaults.workGroupSize[1]},
          std::move(subgroup)};
}
} // namespace

llvm::SmallVector<KnobDomain, 3>
backend::getLaunchKnobDomains(const CoreInfo &core,
                              const KernelInfo &defaults) {
  if (hasGpuLaunchDefaults(core))
    return getGpuLaunchKnobDomains(core, defaults);
  llvm::SmallVector<int64_t, 16> modes;
  for (int64_t size = 1; size <= int64_t(core.maxWorkGroupSize); size *= 2)
    modes.push_back(size);
  KnobDomain subgroup{kSubgroupSizeKnob, {}, defaults.subgroupSize};
  subgroup.values.assign(core.subgroupSizes.begin(), core.subgroupSizes.end());
  return {KnobDomain{kWorkGroupSize0Knob, modes, defaults.workGroupSize[0]},
          KnobDomain{kWorkGroupSize1Knob, modes, defaults.workGroupSize[1]},
          std::move(subgroup)};
}

llvm::SmallVector<KnobDomain, 4>
backend::getGemmKnobDomains(const CoreInfo &core) {
  llvm::SmallVector<int64_t, 16> rows = {0};
  if (hasGpuLaunchDefaults(core)) {
    // One to four rows per lane: checkGemmTiling wants whole warps.
    for (int64_t factor : {1, 2, 3, 4})
      rows.push_back(factor * core.defaultSubgroupSize());
  } else {
    rows.append({4, 8, 16, 32, 48, 64});
    for (int64_t factor : {1, 2, 3, 4}) {
      rows.push_back(factor * core.nativeVectorWidth);
      for (unsigned size : core.subgroupSizes)
        rows.push_back(factor * size);
    }
    llvm::sort(rows);
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }
  return {KnobDomain{kGemmRowsKnob, rows, 0},
          KnobDomain{kGemmColsKnob, {0, 2, 4, 6, 8, 12, 16}, 0},
          KnobDomain{kGemmKStepKnob, {0, 1, 2, 4, 8, 16}, 0},
          KnobDomain{kGemmKBlockKnob,
                     {0, 32, 64, 128, 256, 512, GemmTiling::kMaxKBlock},
                     0}};
}

bool backend::hasGpuLaunchDefaults(const CoreInfo &core) {
  return core.isNvidia();
}

/// Eight warps: a few such blocks per multiprocessor hide its memory
/// latency, and each keeps the full register budget (256 threads x 128
/// registers, half of an A100 multiprocessor's 64K; docs/nvidia.md).
static constexpr unsigned kGpuLoopWorkItems = 256;

/// `workItems` in whole warps of `core`, between one warp and the maximum.
static unsigned clampToWarps(const CoreInfo &core, int64_t workItems) {
  int64_t warp = core.defaultSubgroupSize();
  int64_t maximum =
      std::max<int64_t>(warp, int64_t(core.maxWorkGroupSize) / warp * warp);
  int64_t rounded = (std::max<int64_t>(workItems, 1) + warp - 1) / warp * warp;
  return static_cast<unsigned>(std::min(rounded, maximum));
}

unsigned backend::getGpuLoopWorkGroupSize(const CoreInfo &core,
                                          int64_t points) {
  int64_t most = kGpuLoopWorkItems;
  return clampToWarps(core, points > 0 ? std::min(points, most) : most);
}

/// Elements of a row per work-item. On an H200, softmax and layer norm
/// over 8192 rows of 512, 2048 and 8192 floats each ran fastest with 64,
/// 128 and 512 work-items per row: a sixteenth of the row, at least two
/// warps (docs/nvidia.md, "Measured on an H200"). A work-item per element
/// (the whole row in one group) took up to 3.7x as long, in barriers and
/// the reduction tree over 32 warps.
static constexpr int64_t kGpuRowElementsPerItem = 16;

unsigned backend::getGpuRowWorkGroupSize(const CoreInfo &core,
                                         int64_t rowLength) {
  if (rowLength <= 0)
    return getGpuLoopWorkGroupSize(core);
  int64_t warp = core.defaultSubgroupSize();
  int64_t items = std::max(2 * warp, static_cast<int64_t>(llvm::divideCeil(
                                         rowLength, kGpuRowElementsPerItem)));
  // No more work-items than elements (in whole warps).
  return clampToWarps(core, std::min(items, rowLength));
}

unsigned backend::getGpuGemmWorkGroupSize(const CoreInfo &core, int64_t tiles) {
  int64_t most = getGpuLoopWorkGroupSize(core);
  int64_t warp = core.defaultSubgroupSize();
  return tiles > 0 ? clampToWarps(core, std::min(tiles * warp, most))
                   : static_cast<unsigned>(most);
}

int64_t backend::getDefaultGroupWork(const CoreInfo &core) {
  return hasGpuLaunchDefaults(core) ? getGpuLoopWorkGroupSize(core) : 0;
}

GemmTiling backend::getGemmTiling(const KnobValues &values) {
  return GemmTiling{lookupOr(values, kGemmRowsKnob, 0),
                    lookupOr(values, kGemmColsKnob, 0),
                    lookupOr(values, kGemmKStepKnob, 0),
                    lookupOr(values, kGemmKBlockKnob, 0)};
}

std::optional<std::string> backend::checkGemmKnobs(const KnobValues &values,
                                                   const CoreInfo &core) {
  GemmTiling tiling = getGemmTiling(values);
  if (tiling == GemmTiling())
    return std::nullopt;
  unsigned subgroupSize =
      static_cast<unsigned>(lookupOr(values, kSubgroupSizeKnob, 0));
  std::optional<std::string> reason =
      checkGemmTiling(tiling, core, subgroupSize);
  if (!reason)
    return std::nullopt;
  return "invalid gemm tiling for subgroup size " +
         std::to_string(subgroupSize ? subgroupSize
                                     : core.defaultSubgroupSize()) +
         ": " + *reason;
}

void backend::applyGemmKnobs(const KnobValues &values,
                             CompileOptions &options) {
  options.gemmTiling = getGemmTiling(values);
}

void backend::applyLaunchKnobs(const KnobValues &values,
                               ir::Function &function) {
  ir::Context &ctx = function.getContext();
  llvm::SmallVector<ir::NamedAttribute, 8> entries;
  if (const ir::DictionaryAttr *attrs = function.getAttributes())
    entries.append(attrs->getEntries().begin(), attrs->getEntries().end());
  // A configuration may set one mode alone: the other keeps the kernel's
  // own size (1 where it has none).
  auto wg0 = values.find(std::string(kWorkGroupSize0Knob));
  auto wg1 = values.find(std::string(kWorkGroupSize1Knob));
  if (wg0 != values.end() || wg1 != values.end()) {
    std::array<int64_t, 2> size =
        function.getWorkGroupSize().value_or(std::array<int64_t, 2>{1, 1});
    if (wg0 != values.end())
      size[0] = wg0->second;
    if (wg1 != values.end())
      size[1] = wg1->second;
    const ir::Attribute *modes[2] = {ir::IntegerAttr::get(ctx, size[0]),
                                     ir::IntegerAttr::get(ctx, size[1])};
    // DictionaryAttr::get keeps the last of duplicate names.
    entries.push_back({"work_group_size", ir::ArrayAttr::get(ctx, modes)});
  }
  auto sg = values.find(std::string(kSubgroupSizeKnob));
  if (sg != values.end())
    entries.push_back({"subgroup_size", ir::IntegerAttr::get(ctx, sg->second)});
  function.setAttributes(ir::DictionaryAttr::get(ctx, entries));
}
