//===- ScheduledStatement.h - A statement as the mapper sees it -*- C++ -*-===//
//
// One statement of a def with concrete or symbolic bounds and its reads,
// subscripts as IndexExprs: the input of the mapper (Schedule.h). Only our
// own types appear here; isl stays in polyhedral/lib.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_SCHEDULEDSTATEMENT_H
#define COMPREHEND_POLYHEDRAL_SCHEDULEDSTATEMENT_H

#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/polyhedral/RangeInference.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace comprehend::poly {

/// `lhs(lhsIndices) op= ...` executed for every point of the box
/// `lo[d] <= iterators[d] < hi[d]`.
struct ScheduledStatement {
  std::string lhsTensor;
  /// LHS indices, a subset of the iterators.
  llvm::SmallVector<std::string, 4> lhsIndices;
  /// Every index variable (LHS indices first, then reduction variables).
  llvm::SmallVector<std::string, 4> iterators;
  /// Bounds per iterator, over the size parameters (hi exclusive).
  llvm::SmallVector<IndexExpr, 4> lo, hi;
  /// Every tensor read; a non-affine subscript (Opaque) may touch any
  /// element of its dimension.
  llvm::SmallVector<TensorAccess, 4> reads;
  /// Whether the statement also reads its LHS (a reduction without `!`, or
  /// an update such as `O(i) = O(i) + 1` listed among the reads anyway).
  bool readsLhs = false;
  /// Whether the statement combines its right-hand side into the LHS with
  /// a reduction operator (`+=`, `max=`, ...), and whether it first sets
  /// the LHS to the operator's identity (`!`). The mapper models such a
  /// statement as an init and an update.
  bool reduction = false;
  bool hasInit = false;
};

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_SCHEDULEDSTATEMENT_H
