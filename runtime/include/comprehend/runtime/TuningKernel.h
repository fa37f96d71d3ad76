//===- TuningKernel.h - The tunable knobs of one kernel ---------*- C++ -*-===//
//
// Ties the generic search (TuningSpace.h, TuningSearch.h) to what the backend
// lets a caller choose today: a function's `work_group_size` (two modes) and
// `subgroup_size` attributes. The space is derived from the core (supported
// subgroup sizes, maximum work-group size) and from the compiler's default
// choice for the kernel, which is the search's starting point.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNINGKERNEL_H
#define COMPREHEND_RUNTIME_TUNINGKERNEL_H

#include "comprehend/runtime/TuningSpace.h"

namespace comprehend {
namespace backend {
struct CoreInfo;
struct KernelInfo;
} // namespace backend
namespace ir {
class Function;
} // namespace ir
} // namespace comprehend

namespace comprehend::runtime {

/// Parameter names of the work-group search space.
inline constexpr llvm::StringLiteral kWorkGroupSize0 = "work_group_size.0";
inline constexpr llvm::StringLiteral kWorkGroupSize1 = "work_group_size.1";
inline constexpr llvm::StringLiteral kSubgroupSize = "subgroup_size";

/// Work-group modes are powers of two up to the core's maximum, the subgroup
/// size one the core supports; the defaults are `defaults` (the compiler's
/// choice). Legal: the work-group product is at most the maximum and the
/// first mode is a multiple of the subgroup size.
llvm::Expected<SearchSpace>
makeWorkGroupSpace(const backend::CoreInfo &core,
                   const backend::KernelInfo &defaults);

/// Sets the function attributes `work_group_size` and `subgroup_size` from
/// the parameters of `config` it has, keeping every other attribute.
void applyConfiguration(ir::Function &function, const Configuration &config);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNINGKERNEL_H
