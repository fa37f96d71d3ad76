//===- KernelShape.h - Subgroup and work-group size of a kernel -*- C++ -*-===//
//
// The subgroup size and the two-dimensional work-group size of a function:
// taken from its `subgroup_size` / `work_group_size` attributes when given
// (and checked against the core), chosen for the core otherwise. The
// work-group-size pass records the choice in the attributes; the lowering
// passes and the emitter read it back through selectKernelShape.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_KERNELSHAPE_H
#define COMPREHEND_BACKEND_KERNELSHAPE_H

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Diagnostics.h"

#include <array>
#include <optional>

namespace comprehend::ir {
class Function;
} // namespace comprehend::ir

namespace comprehend::backend {

struct KernelShape {
  unsigned subgroupSize = 1;
  /// (x, y); x is a multiple of the subgroup size.
  std::array<unsigned, 2> workGroupSize = {1, 1};

  unsigned getNumSubgroupsX() const { return workGroupSize[0] / subgroupSize; }
  unsigned getNumSubgroups() const {
    return getNumSubgroupsX() * workGroupSize[1];
  }
};

/// Returns the kernel shape of \p function on \p core, or reports why the
/// function's attributes cannot be honoured and returns nothing.
std::optional<KernelShape> selectKernelShape(const ir::Function &function,
                                             const CoreInfo &core,
                                             DiagnosticEngine &diags);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_KERNELSHAPE_H
