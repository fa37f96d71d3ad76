//===- GemmTiling.cpp - Legal register tiles of the gemm lowering ---------===//
//
// The legal domain of the gemm register tile, which the knobs `gemm.rows`,
// `gemm.cols`, `gemm.k_step` and `gemm.k_block` (Knobs.h) set, and the
// heuristic default.
//
//===----------------------------------------------------------------------===//
#include "comprehend/backend/GemmTiling.h"
#include "comprehend/backend/Knobs.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace comprehend;
using namespace comprehend::backend;

/// Bounds of the tile sizes: beyond them the unrolled tile code only grows.
static constexpr int64_t kMaxRows = 128;
static constexpr int64_t kMaxColsOrKStep = 32;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Values one work-item holds for \p tiling (see checkGemmTiling).
static int64_t countValues(int64_t rows, int64_t cols, int64_t kStep,
                           int64_t subgroupSize) {
  int64_t blocks = ceilDiv(rows, subgroupSize);
  return blocks * cols + blocks * kStep + ceilDiv(kStep, subgroupSize) * cols;
}

GemmTiling comprehend::backend::getDefaultGemmTiling(const CoreInfo &core,
                                                     unsigned subgroupSize,
                                                     unsigned elementBytes,
                                                     int64_t sizeK) {
  int64_t sg = subgroupSize ? subgroupSize : core.defaultSubgroupSize();
  GemmTiling tiling;
  if (sg == 1 && core.nativeVectorWidth > 1) {
    // Two vectors of C per column and a K step of 1: per step, two loads
    // of A and one broadcast of B per column feed two FMAs per column. The
    // accumulator takes half the registers (16 of AVX-512's 32, 8 of
    // AVX2's 16), enough FMAs in flight to hide their latency.
    tiling.rows = 2 * int64_t(core.nativeVectorWidth);
    tiling.kStep = 1;
    tiling.cols = 2;
    for (int64_t cols : {16, 12, 8, 6, 4})
      if (2 * tiling.rows * cols <= core.registerBudget) {
        tiling.cols = cols;
        break;
      }
    // K blocks whose A tile (rows x kBlock) fills the data cache; one block
    // where its size is unknown.
    int64_t rowBytes = tiling.rows * std::max(elementBytes, 1u);
    tiling.kBlock =
        core.dataCacheBytes
            ? std::max<int64_t>(core.dataCacheBytes / rowBytes, tiling.kStep)
            : GemmTiling::kMaxKBlock;
    return tiling;
  }
  if (hasGpuLaunchDefaults(core)) {
    // Four rows per lane by 8 columns, K steps of 16: the fastest tile of
    // the grid measured on an H200 at every square size from 512 to 4096
    // (docs/nvidia.md, "Measured on an H200"), 104 values per work-item.
    // A short K keeps steps of 8: 20000 gemms of 16^3 took 1.8x as long in
    // one step of 16 as in two of 8.
    bool shortK = sizeK > 0 && sizeK < 64;
    GemmTiling wide{4 * sg, 8, shortK ? 8 : 16, GemmTiling::kMaxKBlock};
    if (countValues(wide.rows, wide.cols, wide.kStep, sg) <=
        core.registerBudget)
      return wide;
  }
  // 16 rows (one row per lane on 16 lanes) by 8 columns keeps the
  // accumulator at 128 values.
  tiling.rows = ceilDiv(16, sg) * sg;
  tiling.cols = 8;
  tiling.kStep = 8;
  tiling.kBlock = GemmTiling::kMaxKBlock;
  return tiling;
}

std::optional<std::string> comprehend::backend::checkGemmTiling(
    const GemmTiling &tiling, const CoreInfo &core, unsigned subgroupSize) {
  int64_t sg = subgroupSize ? subgroupSize : core.defaultSubgroupSize();
  GemmTiling defaults = getDefaultGemmTiling(core, subgroupSize);
  int64_t rows = tiling.rows ? tiling.rows : defaults.rows;
  int64_t cols = tiling.cols ? tiling.cols : defaults.cols;
  int64_t kStep = tiling.kStep ? tiling.kStep : defaults.kStep;
  auto outOfRange = [](llvm::StringRef key, int64_t value, int64_t max) {
    return (llvm::Twine("'") + key + "' must be between 1 and " +
            llvm::Twine(max) + ", but is " + llvm::Twine(value))
        .str();
  };
  if (rows < 0 || rows > kMaxRows)
    return outOfRange(kGemmRowsKnob, rows, kMaxRows);
  if (cols < 0 || cols > kMaxColsOrKStep)
    return outOfRange(kGemmColsKnob, cols, kMaxColsOrKStep);
  if (kStep < 0 || kStep > kMaxColsOrKStep)
    return outOfRange(kGemmKStepKnob, kStep, kMaxColsOrKStep);
  if (tiling.kBlock < 0 || tiling.kBlock > GemmTiling::kMaxKBlock)
    return outOfRange(kGemmKBlockKnob, tiling.kBlock, GemmTiling::kMaxKBlock);
  if (rows % sg != 0)
    return ("'" + kGemmRowsKnob + "' must be a multiple of the subgroup size " +
            llvm::Twine(sg) + ", but is " + llvm::Twine(rows))
        .str();
  int64_t values = countValues(rows, cols, kStep, sg);
  if (values > core.registerBudget)
    return (llvm::Twine("tile ") + llvm::Twine(rows) + "x" + llvm::Twine(cols) +
            " with k step " + llvm::Twine(kStep) + " needs " +
            llvm::Twine(values) +
            " values per work-item, more than the register budget " +
            llvm::Twine(core.registerBudget) + " of '" + core.name + "'")
        .str();
  return std::nullopt;
}
