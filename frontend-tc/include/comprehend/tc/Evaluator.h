//===- Evaluator.h - Reference interpreter of TC programs -------*- C++ -*-===//
//
// The oracle every later test compares with: straight loops over the
// concrete inferred ranges of each statement, in textual order. (It runs
// each statement's compiled right-hand side over batches of points, in a
// loop order that keeps every accumulator's order; the results and errors
// are those of the straight loops. See docs/tc.md.)
//
// Semantics (docs/tc.md has the full list):
//  - sizes are bound from the input shapes (and optional explicit sizes);
//  - a statement reads the tensors as they were before the statement;
//  - reductions accumulate in double precision per LHS point and store once
//    at the end of the statement, rounded to the element type;
//  - `op=!` first sets the statement's LHS points to the identity
//    (0, 1, +inf / type max, -inf / type min), also for an already defined
//    tensor; `op=` accumulates into the current contents (outputs start from
//    the caller's initial value if one is passed, else from zero);
//  - floating-point expressions are evaluated in double precision, integer
//    expressions exactly with the wrap-around of their type; integer `/` and
//    `%` round towards negative infinity, as range inference assumes;
//  - `c ? a : b` evaluates only the selected branch;
//  - an output whose inferred lower bound is lo is stored shifted: element
//    k of the result is O(lo + k);
//  - reads outside a tensor and integer division by zero are errors.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_EVALUATOR_H
#define COMPREHEND_TC_EVALUATOR_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/AST.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <vector>

namespace comprehend::tc {

/// A dense row-major host tensor. Values are held as doubles, which
/// represent every value of every TC element type exactly except 64-bit
/// integers beyond 2^53.
struct Tensor {
  ScalarType type = ScalarType::Float;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> data;

  Tensor() = default;
  Tensor(ScalarType type, llvm::ArrayRef<int64_t> shape,
         std::vector<double> data = {});

  int64_t getNumElements() const;
  /// Row-major offset of \p index (which must be in bounds).
  int64_t getOffset(llvm::ArrayRef<int64_t> index) const;
  double &at(llvm::ArrayRef<int64_t> index) { return data[getOffset(index)]; }
  double at(llvm::ArrayRef<int64_t> index) const {
    return data[getOffset(index)];
  }
};

/// \p value converted to \p type as a store does: integers truncate towards
/// zero and wrap to their width, bool is `value != 0`, float rounds to
/// single precision, half to half precision.
double convertTo(double value, ScalarType type);

/// Evaluates the checked def \p def of \p program. \p args holds a tensor
/// for every input and, optionally, the initial contents of outputs (used
/// by reductions without `!`). \p sizes may fix size variables as well.
/// Errors (missing or mismatched inputs, failed range inference, reads out
/// of bounds) are reported through \p diags; the result is then empty.
std::optional<llvm::StringMap<Tensor>>
evaluate(const Program &program, const Def &def,
         const llvm::StringMap<Tensor> &args, DiagnosticEngine &diags,
         const llvm::StringMap<int64_t> &sizes = {});

} // namespace comprehend::tc

#endif // COMPREHEND_TC_EVALUATOR_H
