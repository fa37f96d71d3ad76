//===- TuningKernel.h - The tunable knobs of one kernel ---------*- C++ -*-===//
//
// Ties the generic search (TuningSpace.h, TuningSearch.h) to the backend's
// launch knobs (backend/Knobs.h): a function's `work_group_size` (two modes)
// and `subgroup_size` attributes. The backend gives their domains on a core
// and their defaults (the compiler's choice for the kernel, the search's
// starting point); the space adds the legality rules.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNINGKERNEL_H
#define COMPREHEND_RUNTIME_TUNINGKERNEL_H

#include "comprehend/backend/Knobs.h"
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
inline constexpr llvm::StringLiteral kWorkGroupSize0 =
    backend::kWorkGroupSize0Knob;
inline constexpr llvm::StringLiteral kWorkGroupSize1 =
    backend::kWorkGroupSize1Knob;
inline constexpr llvm::StringLiteral kSubgroupSize = backend::kSubgroupSizeKnob;

/// The space of backend::getLaunchKnobDomains. Legal: the work-group product
/// is at most the core's maximum and the first mode is a multiple of the
/// subgroup size.
llvm::Expected<SearchSpace>
makeWorkGroupSpace(const backend::CoreInfo &core,
                   const backend::KernelInfo &defaults);

/// Sets the function attributes `work_group_size` and `subgroup_size` from
/// the parameters of `config` it has, keeping every other attribute
/// (backend::applyLaunchKnobs).
void applyConfiguration(ir::Function &function, const Configuration &config);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNINGKERNEL_H
