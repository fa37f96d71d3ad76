//===- CoopParts.h - Cooperative matrices as per-work-item parts -*- C++
//-*-===//
//
// The second half of lower-coopmatrix: replaces cooperative-matrix values by
// the work-item's parts (CoopLayout.h), each a number or a `vector<...>`.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PASSES_COOPPARTS_H
#define COMPREHEND_BACKEND_PASSES_COOPPARTS_H

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Diagnostics.h"

namespace comprehend::ir {
class Function;
} // namespace comprehend::ir

namespace comprehend::backend {

/// Splits the coopmatrix values of \p function into parts for subgroup size
/// \p subgroupSize: every coopmatrix instruction becomes instructions on
/// the parts, and every coopmatrix carried through for, if and yield one
/// value per part. Reports atomics that \p core cannot do and written
/// parts that do not fit the layout.
LogicalResult splitCoopMatricesIntoParts(ir::Function &function,
                                         unsigned subgroupSize,
                                         const CoreInfo &core,
                                         DiagnosticEngine &diags);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PASSES_COOPPARTS_H
