//===- Ranges.h - Range inference for the statements of a def ---*- C++ -*-===//
//
// Bridges the checked TC tree and the polyhedral range inference: each
// comprehension becomes a poly::StatementInfo (subscripts as IndexExprs;
// gathers, `%` or `/` by a non-constant and products of non-constants are
// opaque), inputs are declared with their extents, and a call statement is
// inferred by inferring the callee with the sizes its arguments bind and
// declaring its results with the callee's output extents.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_RANGES_H
#define COMPREHEND_TC_RANGES_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/polyhedral/RangeInference.h"
#include "comprehend/tc/AST.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <vector>

namespace comprehend::tc {

/// The inferred ranges of one statement of a def body.
struct StmtRanges {
  const Stmt *stmt = nullptr;
  /// Empty for a call statement.
  poly::StatementRanges ranges;
};

/// Everything range inference found for one def.
struct DefRanges {
  std::vector<StmtRanges> statements;
  /// The shape of every tensor of the def after its last statement, in the
  /// def's tensor order (inputs, outputs, temporaries). Keys point into the
  /// source buffer, like the tree's names.
  llvm::MapVector<llvm::StringRef, poly::TensorShape> shapes;
};

/// Infers the ranges of every statement of the checked def \p def.
/// \p sizes binds some or all of its size variables. Errors and warnings go
/// to \p diags; returns nullopt after an error.
std::optional<DefRanges> inferRanges(const Program &program, const Def &def,
                                     const llvm::StringMap<int64_t> &sizes,
                                     DiagnosticEngine &diags);

/// The most terms a statement of the def sums into one element: the largest
/// product of a statement's reduction ranges where they are known (1 for a
/// def without reductions). The statements of called defs are not counted.
int64_t getLongestReduction(const DefRanges &ranges);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_RANGES_H
