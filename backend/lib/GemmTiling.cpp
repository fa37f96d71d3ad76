//===- GemmTiling.cpp - Legal register tiles of the gemm lowering ---------===//
//
// The domain a tuner may search for `gemm.rows`, `gemm.cols` and
// `gemm.k_step` (see Compiler.h), and the heuristic default.
//
//===----------------------------------------------------------------------===//
#include "comprehend/backend/Compiler.h"

#include "llvm/ADT/Twine.h"

using namespace comprehend;
using namespace comprehend::backend;

/// Bounds of the tile sizes: beyond them the unrolled tile code only grows.
static constexpr int64_t kMaxRows = 128;
static constexpr int64_t kMaxColsOrKStep = 32;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

GemmTiling comprehend::backend::getDefaultGemmTiling(const CoreInfo &core,
                                                     unsigned subgroupSize) {
  int64_t sg = subgroupSize ? subgroupSize : core.defaultSubgroupSize();
  GemmTiling tiling;
  // 16 rows (one float16 per column on subgroup size 1, one row per lane on
  // 16 lanes) by 8 columns keeps the accumulator at 128 values.
  tiling.rows = ceilDiv(16, sg) * sg;
  tiling.cols = 8;
  tiling.kStep = 8;
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
    return outOfRange("gemm.rows", rows, kMaxRows);
  if (cols < 0 || cols > kMaxColsOrKStep)
    return outOfRange("gemm.cols", cols, kMaxColsOrKStep);
  if (kStep < 0 || kStep > kMaxColsOrKStep)
    return outOfRange("gemm.k_step", kStep, kMaxColsOrKStep);
  if (rows % sg != 0)
    return (llvm::Twine("'gemm.rows' must be a multiple of the subgroup "
                        "size ") +
            llvm::Twine(sg) + ", but is " + llvm::Twine(rows))
        .str();
  int64_t blocks = rows / sg;
  int64_t values = blocks * cols + blocks * kStep + ceilDiv(kStep, sg) * cols;
  if (values > core.registerBudget)
    return (llvm::Twine("tile ") + llvm::Twine(rows) + "x" + llvm::Twine(cols) +
            " with k step " + llvm::Twine(kStep) + " needs " +
            llvm::Twine(values) +
            " values per work-item, more than the register budget " +
            llvm::Twine(core.registerBudget) + " of '" + core.name + "'")
        .str();
  return std::nullopt;
}
