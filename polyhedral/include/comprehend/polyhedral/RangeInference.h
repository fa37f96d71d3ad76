//===- RangeInference.h - TC range inference with isl -----------*- C++ -*-===//
//
// Infers, statement by statement in textual order, the maximal rectangular
// range of every index variable such that no tensor is read out of bounds,
// in the rounds of TC's forwardBoundsInference (docs/range-inference.md):
// where-clauses seed and override, then each round solves every variable
// that is the only unresolved variable of some subscript constraint
// (intersecting all such constraints), then eliminates the solved variables
// (worst case) from the remaining constraints. Ranges are symbolic in the
// size parameters (isl parameters) and concrete when sizes are given.
//
// Size parameters are assumed to be >= 1 unless `sizes` binds them. A
// subscript that is not affine (a gather `B(C(i))`, `%`/`min`/`max` over
// index variables) never bounds a variable; once its variables are solved
// from other reads it becomes an unchecked-precondition warning (TC reports
// an empty range instead). See docs/range-inference.md.
//
// This header exposes only our own types; isl stays in polyhedral/lib.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_RANGEINFERENCE_H
#define COMPREHEND_POLYHEDRAL_RANGEINFERENCE_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/polyhedral/IndexExpr.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>

namespace comprehend::poly {

/// `lhs < rhs`, `lhs <= rhs` or `lhs == rhs` over index expressions.
struct IndexComparison {
  enum class Kind { Less, LessEqual, Equal };
  IndexExpr lhs, rhs;
  Kind kind = Kind::Less;
};

/// A tensor read `T(e_1, ..., e_n)` of a statement (also reads nested inside
/// subscripts and reads of `exists` clauses).
struct TensorAccess {
  std::string tensor;
  llvm::SmallVector<IndexExpr, 4> subscripts;
  llvm::SmallVector<Location, 4> subscriptLocs;
  Location loc;
  /// Whether the read runs only on some paths (a branch of `?:`, the right
  /// operand of `&&` or `||`): at given sizes a precondition it violates
  /// stays a warning, since those paths may never be taken.
  bool conditional = false;
  /// Comparisons that hold wherever the read runs: those the condition of
  /// its `?:` branch implies, or the left operand of its `&&` (`||`: the
  /// negation). A precondition they imply is no warning: the padded read
  /// `h >= 1 && h - 1 < H ? I(h - 1) : 0` never leaves I.
  llvm::SmallVector<IndexComparison, 2> guards;
};

/// `var in lo:hi` (hi exclusive).
struct WhereRange {
  std::string var;
  IndexExpr lo, hi;
  Location loc;
};

/// What range inference needs to know about one TC statement.
struct StatementInfo {
  std::string lhsTensor;
  /// LHS indices, in order.
  llvm::SmallVector<std::string, 4> lhsIndices;
  /// Every index variable of the statement: LHS indices first, then the
  /// reduction variables in order of first appearance.
  llvm::SmallVector<std::string, 4> indexVars;
  llvm::SmallVector<TensorAccess, 4> accesses;
  llvm::SmallVector<WhereRange, 2> wheres;
  Location loc;
};

/// The inferred half-open range [lo, hi) of one index variable.
struct VarRange {
  std::string var;
  /// The bounds over the size parameters, whether or not their values are
  /// known (printed, they are the `symbolic` bounds of `comprehend ranges`).
  /// A bound with a Select (IndexExpr::hasSelect) is no loop bound.
  IndexExpr loExpr, hiExpr;
  std::optional<int64_t> lo, hi; ///< present when every size is known
};

struct StatementRanges {
  llvm::SmallVector<VarRange, 4> ranges; ///< in StatementInfo::indexVars order
  const VarRange *lookup(llvm::StringRef var) const;
};

/// Shape of a tensor defined by the statements so far, per dimension.
struct TensorShape {
  /// Over the size parameters, as VarRange's bounds.
  llvm::SmallVector<IndexExpr, 4> loExprs, extentExprs;
  llvm::SmallVector<std::optional<int64_t>, 4> lo, extent;
};

/// Range inference for the statements of one def. Holds the isl context.
class RangeInference {
public:
  /// \p sizeParams are the size variables of the def; \p sizes binds some or
  /// all of them to concrete values (`--sizes`).
  RangeInference(llvm::ArrayRef<std::string> sizeParams,
                 DiagnosticEngine &diags,
                 const llvm::StringMap<int64_t> &sizes = {});
  ~RangeInference();
  RangeInference(const RangeInference &) = delete;
  RangeInference &operator=(const RangeInference &) = delete;

  /// Declares an input tensor: subscript d of a read must lie in
  /// [0, extents[d]); extents use only size parameters and constants.
  void declareInput(llvm::StringRef tensor, llvm::ArrayRef<IndexExpr> extents);

  /// Infers the ranges of \p stmt. Reports errors (unsolvable or empty
  /// ranges, naming the variable and suggesting a `where` clause) and
  /// warnings (preconditions that cannot be proven) at the constraint's
  /// location; returns nullopt after an error. On success the LHS tensor's
  /// shape becomes the ranges of its LHS indices (later statements writing
  /// the same tensor overwrite them, as in TC).
  std::optional<StatementRanges> inferStatement(const StatementInfo &stmt);

  /// Caps the isl operations spent on one statement (0: no limit); a
  /// statement over the budget is reported as an error.
  void setMaxOperations(unsigned long maxOperations);

  /// The shape of a tensor defined by an earlier statement or declared as
  /// an input.
  std::optional<TensorShape> getShape(llvm::StringRef tensor) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_RANGEINFERENCE_H
