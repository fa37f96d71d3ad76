//===- Knobs.h - The backend's tuning knobs ---------------------*- C++ -*-===//
//
// Every decision of the backend that a tuner or `--config` may take, in one
// table: the launch knobs, which become the function attributes
// `work_group_size` and `subgroup_size` (read by the work-group-size pass),
// and the gemm knobs, which become CompileOptions::gemmTiling (read by the
// gemm lowering, checked by checkGemmTiling). For each: its name in a
// configuration, the range every value must be in, the values a search
// tries on a core and its default, and how a configuration reaches the
// compilation. docs/tuning.md lists them beside the TC lowering's knobs.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_KNOBS_H
#define COMPREHEND_BACKEND_KNOBS_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/support/Knob.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace comprehend::ir {
class Function;
} // namespace comprehend::ir

namespace comprehend::backend {

inline constexpr llvm::StringLiteral kWorkGroupSize0Knob = "work_group_size.0";
inline constexpr llvm::StringLiteral kWorkGroupSize1Knob = "work_group_size.1";
inline constexpr llvm::StringLiteral kSubgroupSizeKnob = "subgroup_size";
inline constexpr llvm::StringLiteral kGemmRowsKnob = "gemm.rows";
inline constexpr llvm::StringLiteral kGemmColsKnob = "gemm.cols";
inline constexpr llvm::StringLiteral kGemmKStepKnob = "gemm.k_step";
inline constexpr llvm::StringLiteral kGemmKBlockKnob = "gemm.k_block";

/// Every knob of the backend (support/Knob.h), launch knobs first: the
/// launch knobs become function attributes (applyLaunchKnobs), the gemm
/// knobs fields of CompileOptions::gemmTiling (applyGemmKnobs; 0 keeps the
/// compiler's choice).
llvm::ArrayRef<KnobSpec> getBackendKnobs();

/// The launch knobs on `core`: work-group modes are powers of two up to the
/// core's maximum, the subgroup size one the core supports; the defaults
/// are `defaults`, the compiler's choice for the kernel. (Legal: the
/// work-group product at most the maximum, the first mode a multiple of the
/// subgroup size.) On an NVIDIA core the first mode is a power-of-two
/// number of warps (32 .. the maximum) and the second at most the maximum
/// over the warp, each with its default among the values.
llvm::SmallVector<KnobDomain, 3>
getLaunchKnobDomains(const CoreInfo &core, const KernelInfo &defaults);
/// The gemm knobs on `core`, each with the default 0 (the compiler's own
/// choice, so the default point is exactly the untuned kernel): rows in
/// whole vectors of the core (one to four) or subgroups, and the longest K
/// block, no blocking. On an NVIDIA core the rows are one to four per lane
/// of a warp (32 .. 128), the only legal ones.
llvm::SmallVector<KnobDomain, 4> getGemmKnobDomains(const CoreInfo &core);

//===----------------------------------------------------------------------===//
// Launch defaults of GPU cores (docs/nvidia.md, "Defaults and the tuning
// space"): rules from the core's warp and maximum work-group, the row and
// gemm ones set from timings on an H200 ("Measured on an H200"). Other cores
// keep the backend's default (KernelShape.cpp) and the lowering's own group
// work.
//===----------------------------------------------------------------------===//

/// Whether `core` takes the GPU launch defaults below (an NVIDIA core).
bool hasGpuLaunchDefaults(const CoreInfo &core);
/// Work-items of a loop kernel's work-group (foreach) that spreads `points`
/// over it: 256 (eight warps), fewer warps where they cover the points, at
/// most the core's maximum; 256 where the points are unknown (<= 0).
unsigned getGpuLoopWorkGroupSize(const CoreInfo &core, int64_t points = 0);
/// Work-items of a kernel that reduces rows of `rowLength` elements over
/// its work-group: one per 16 elements, at least two warps, at most one per
/// element, in whole warps up to the core's maximum; the loop kernel's
/// size where the length is unknown (<= 0).
unsigned getGpuRowWorkGroupSize(const CoreInfo &core, int64_t rowLength);
/// Work-items of a gemm kernel whose work-group computes `tiles` register
/// tiles: a warp per tile, up to eight warps (as many as the loop kernel's
/// work-group); eight where the count is unknown (<= 0).
unsigned getGpuGemmWorkGroupSize(const CoreInfo &core, int64_t tiles);
/// The TC lowering's points per work-group of a loop statement
/// (LoweringOptions::groupWork) on `core`: one per work-item of the loop
/// kernel's work-group on a GPU core, else 0 (the lowering's own choice).
int64_t getDefaultGroupWork(const CoreInfo &core);

/// The gemm tiling `values` ask for (0 fields: the compiler's choice).
GemmTiling getGemmTiling(const KnobValues &values);
/// Why the gemm tiling of `values` is illegal on `core` for the subgroup
/// size they choose (else the core's default), or nothing.
std::optional<std::string> checkGemmKnobs(const KnobValues &values,
                                          const CoreInfo &core);
/// Sets CompileOptions::gemmTiling from the gemm knobs of `values`.
void applyGemmKnobs(const KnobValues &values, CompileOptions &options);
/// Sets the attributes `work_group_size` and `subgroup_size` of `function`
/// from the launch knobs `values` has (a work-group mode it lacks keeps the
/// function's own, 1 where it has none), keeping every other attribute.
void applyLaunchKnobs(const KnobValues &values, ir::Function &function);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_KNOBS_H
