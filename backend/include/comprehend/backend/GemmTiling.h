//===- GemmTiling.h - The register tile of the gemm lowering ----*- C++ -*-===//
//
// The tile the gemm lowering (LowerCollective.cpp) gives each subgroup, its
// heuristic default and its legal domain. The tuner reaches it through the
// `gemm.*` knobs of Knobs.h.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_GEMMTILING_H
#define COMPREHEND_BACKEND_GEMMTILING_H

#include "comprehend/backend/CoreInfo.h"

#include <cstdint>
#include <optional>
#include <string>

namespace comprehend::backend {

/// The register tile of the gemm lowering: each subgroup computes a `rows` x
/// `cols` block of C as a cooperative matrix and walks the contracted mode
/// `kStep` at a time (A tiles `rows` x `kStep`, B tiles `kStep` x `cols`),
/// in blocks of `kBlock` (rounded up to a multiple of `kStep`): each block
/// updates every C tile before the next begins, so a subgroup's rows of A
/// for one block stay in the core's data cache across its C tiles. A block
/// at least as long as the contracted mode means no blocking.
/// A field of 0 keeps the heuristic's choice (see getDefaultGemmTiling).
/// Tiles are clipped to static problem sizes. Tuner configuration keys:
/// `gemm.rows`, `gemm.cols`, `gemm.k_step`, `gemm.k_block`.
struct GemmTiling {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t kStep = 0;
  int64_t kBlock = 0;

  /// The longest K block: a block this long means no blocking.
  static constexpr int64_t kMaxKBlock = int64_t(1) << 20;

  bool operator==(const GemmTiling &other) const = default;
};

/// The heuristic tile for \p subgroupSize (0: \p core's default subgroup
/// size) and elements of \p elementBytes bytes (docs/tuning.md, "gemm
/// defaults"). Every field is set:
///  - on one lane with native vectors (a CPU): rows two vectors long, a K
///    step of 1, and the widest of 16, 12, 8, 6, 4 columns whose
///    accumulator takes at most half the register budget (32 x 8 with
///    AVX-512, 16 x 4 with AVX2); K blocks whose A tile (rows x kBlock)
///    fills the data cache, or none where its size is unknown;
///  - on an NVIDIA core, where the register budget holds it: four rows per
///    lane, 8 columns, a K step of 16, or of 8 where the contracted extent
///    \p sizeK is known and below 64 (docs/nvidia.md, "Measured on an
///    H200"); no K blocks;
///  - otherwise (subgroups are the vectors): 16 rows rounded up to the
///    subgroup size, 8 columns, a K step of 8, no K blocks.
/// \p sizeK is the gemm's static contracted extent, 0 where unknown.
GemmTiling getDefaultGemmTiling(const CoreInfo &core, unsigned subgroupSize = 0,
                                unsigned elementBytes = 4, int64_t sizeK = 0);

/// Checks a (possibly partial) override against the legal domain on \p core
/// for \p subgroupSize (0: the core's default); fields of 0 take their
/// default first. Returns why it is illegal, or nothing when it is legal:
///  - 1 <= cols <= 32 and 1 <= kStep <= 32; 0 <= kBlock <= 2^20;
///  - rows a multiple of the subgroup size S, 1 <= rows <= 128 (on S = 1
///    a work-item holds each column as vectors of up to 16 elements);
///  - register budget: the values one work-item holds, accumulator
///    ceil(rows/S)*cols + A tile ceil(rows/S)*kStep + B tile
///    ceil(kStep/S)*cols, at most CoreInfo::registerBudget.
std::optional<std::string> checkGemmTiling(const GemmTiling &tiling,
                                           const CoreInfo &core,
                                           unsigned subgroupSize = 0);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_GEMMTILING_H
