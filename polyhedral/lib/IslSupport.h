//===- IslSupport.h - isl context, guards and helpers -----------*- C++ -*-===//
//
// Private to polyhedral/lib: the only header that includes isl/cpp.h. It holds
// the RAII owner of an isl_ctx, the max-operations guard, the isl C calls on
// spaces, sets, maps and quasi-affine functions that the C++ bindings
// (isl/cpp.h, isl 0.25) lack, each wrapped in one helper that takes and
// returns isl:: values so that the rest of polyhedral/lib makes no raw isl
// calls and frees nothing by hand, and the two conversions between IndexExpr
// and isl::pw_aff.
//
// Spaces used throughout:
//   * parameter space  `[P_0, ..., P_n] -> { : }`: the size variables of a def;
//   * statement space  `[P...] -> { [v_0, ..., v_m] }`: one unnamed set
//     dimension per index variable of a statement, in a fixed order.
// Bounds of an index variable are `isl::pw_aff`s on the parameter space.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_ISLSUPPORT_H
#define COMPREHEND_POLYHEDRAL_LIB_ISLSUPPORT_H

#include "comprehend/polyhedral/IndexExpr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <isl/cpp.h>

#include <memory>
#include <optional>
#include <string>

namespace comprehend::poly {

/// Owns an isl_ctx. Declare it before every isl value that uses it so that
/// it is destroyed after them. Errors make isl functions return null, which
/// the C++ bindings turn into `isl::exception`s.
class IslContext {
public:
  IslContext();
  isl::ctx get() const { return isl::ctx(ctx.get()); }
  isl_ctx *getRaw() const { return ctx.get(); }
  /// Whether the last error isl raised was running out of the operations
  /// that a MaxOperationsGuard allows; past the quota, isl may fail in a
  /// later call with a bare "NULL input".
  bool quotaExceeded() const;

private:
  struct Deleter {
    void operator()(isl_ctx *ctx) const;
  };
  std::unique_ptr<isl_ctx, Deleter> ctx;
};

/// Caps the number of isl operations while alive, so that a pathological
/// statement fails with an `isl::exception` instead of running for minutes.
class MaxOperationsGuard {
public:
  MaxOperationsGuard(const IslContext &ctx, unsigned long maxOperations);
  ~MaxOperationsGuard();
  MaxOperationsGuard(const MaxOperationsGuard &) = delete;
  MaxOperationsGuard &operator=(const MaxOperationsGuard &) = delete;

private:
  isl_ctx *ctx;
};

/// The default budget of isl operations for one statement.
inline constexpr unsigned long kDefaultMaxOperations = 2'000'000;

//===----------------------------------------------------------------------===//
// Spaces and sets
//===----------------------------------------------------------------------===//

/// `[params] -> { : }`.
isl::space makeParamSpace(const IslContext &ctx,
                          llvm::ArrayRef<std::string> params);
/// `[params] -> { [d_0, ..., d_{n-1}] }` with unnamed set dimensions.
isl::space makeSetSpace(const isl::space &paramSpace, unsigned numDims);
/// `[params] -> { tuple[d_0, ..., d_{n-1}] }` with the set dimensions named
/// \p dimNames (for dumps).
isl::space makeNamedSetSpace(const isl::space &paramSpace, const isl::id &tuple,
                             llvm::ArrayRef<std::string> dimNames);

/// The parameter domain of a def: `{ [P...] : P_i = values[i] }` for the
/// known sizes and `P_i >= lowerBounds[i]` (default 1: sizes are assumed
/// positive) for the others.
isl::set
makeParamContext(const isl::space &paramSpace,
                 llvm::ArrayRef<std::optional<int64_t>> values,
                 llvm::ArrayRef<std::optional<int64_t>> lowerBounds = {});

/// The names of the parameters of \p space, by position; "?" for an
/// unnamed one.
llvm::SmallVector<std::string, 8> paramNames(const isl::space &space);

/// The universe of \p space.
isl::set universeSet(const isl::space &space);

/// \p set with its existentially quantified variables turned into explicit
/// integer divisions (isl::set::compute_divs returns a union).
isl::set computeDivs(const isl::set &set);

/// Number of set dimensions of \p set.
unsigned numSetDims(const isl::set &set);

/// Existentially projects out set dimension \p pos and reinserts it
/// unconstrained, keeping the space: `{ [.., x_pos, ..] : exists x_pos }`.
isl::set forgetDim(const isl::set &set, unsigned pos);

/// Projects \p set onto its set dimension \p pos: a one-dimensional set.
isl::set projectOntoDim(const isl::set &set, unsigned pos);

/// Whether \p set is bounded for every value of the parameters.
bool isBounded(const isl::set &set);

/// Minimum and maximum of the only set dimension of \p set, as functions of
/// the parameters (defined where \p set is non-empty). \p set is bounded.
isl::pw_aff dimMin(const isl::set &set);
isl::pw_aff dimMax(const isl::set &set);

/// Moves a pw_aff on a zero-dimensional set space to the parameter space.
isl::pw_aff projectDomainOnParams(const isl::pw_aff &value);

/// The affine function selecting set dimension \p pos of \p setSpace.
isl::pw_aff dimPwAff(const isl::space &setSpace, unsigned pos);

/// The universal quantification `{ x : forall y in range(x): x in cond }`
/// over the set dimensions \p dims, i.e. the worst case of \p cond over
/// \p range: the complement of the projection of `range \ cond`.
isl::set forallOver(const isl::set &cond, const isl::set &range,
                    llvm::ArrayRef<unsigned> dims);

//===----------------------------------------------------------------------===//
// Maps
//===----------------------------------------------------------------------===//

/// `{ x -> [f_0(x), ..., f_{n-1}(x)] }` from the set space \p setSpace, one
/// output dimension per entry of \p outputs; a missing function leaves its
/// dimension unconstrained.
isl::map functionsMap(const isl::space &setSpace,
                      llvm::ArrayRef<std::optional<isl::pw_aff>> outputs);

/// The universe `{ x -> [y_0, ..., y_{numOut - 1}] }` from the set space
/// \p domainSpace to anonymous output dimensions.
isl::map universeMapTo(const isl::space &domainSpace, unsigned numOut);

/// \p map restricted to `x_inDim = y_outDim`.
isl::map equateDims(const isl::map &map, unsigned inDim, unsigned outDim);

/// \p map restricted to `y_outDim = value`.
isl::map fixOutputDim(const isl::map &map, unsigned outDim, int value);

/// \p map with output dimension \p outDim projected out.
isl::map projectOutOutputDim(const isl::map &map, unsigned outDim);

//===----------------------------------------------------------------------===//
// Reading quasi-affine functions and constraints
//===----------------------------------------------------------------------===//

/// The coefficients of an isl::aff over the parameters and the integer
/// divisions of its local space, each `numerator / denominator`.
struct AffTerms {
  isl::val denominator;
  llvm::SmallVector<isl::val, 4> params;
  llvm::SmallVector<isl::val, 2> divs;
  isl::val constant;
};

/// The coefficients of \p aff, numerators and common denominator.
AffTerms affTerms(const isl::aff &aff);

/// The expression that integer division \p pos of \p aff's local space
/// rounds down.
isl::aff divExpression(const isl::aff &aff, unsigned pos);

/// Calls \p fn on each piece of \p value, in isl's order: where it applies
/// and its affine function. (isl::pw_aff::foreach_piece hands out the pieces
/// of a conversion to isl::pw_multi_aff instead.)
void forEachPiece(const isl::pw_aff &value,
                  llvm::function_ref<void(isl::set, isl::aff)> fn);

/// Calls \p fn on each constraint of \p basic, in isl's order, as the
/// function that is non-negative (zero when \p isEquality) where it holds.
void forEachConstraint(
    const isl::basic_set &basic,
    llvm::function_ref<void(isl::aff constraint, bool isEquality)> fn);

//===----------------------------------------------------------------------===//
// IndexExpr -> isl
//===----------------------------------------------------------------------===//

/// An IndexExpr as an isl piecewise quasi-affine function on a set space.
struct AffineExpr {
  isl::pw_aff value;
  /// True when the expression is (the floor of) an affine function of the
  /// index variables with constant coefficients: the set where a
  /// single-variable constraint on it holds is then an interval, so the
  /// constraint may bound that variable. `%`, `min` and `max` over index
  /// variables are representable but not solvable.
  bool solvable = true;
};

/// Converts \p expr on \p setSpace. Parameters are looked up by name in
/// \p params, index variables in \p vars (positions of set dimensions).
/// Returns nullopt when \p expr is not quasi-affine (opaque nodes, products
/// of two non-constants, division by a non-constant or zero, unknown names).
std::optional<AffineExpr> toAffine(const IndexExpr &expr,
                                   const isl::space &setSpace,
                                   llvm::ArrayRef<std::string> params,
                                   llvm::ArrayRef<std::string> vars);

//===----------------------------------------------------------------------===//
// isl -> IndexExpr, and evaluation
//===----------------------------------------------------------------------===//

/// \p value (on the parameter space), simplified under \p context, as an
/// IndexExpr over the parameters: `N - K + 1`, `floord(H - KH, 2) + 1`,
/// `min(N, M)`, and a Select over the pieces (`N <= 4 ? 2 : N - 2`) for a
/// piecewise function that is neither affine nor a min/max of affine
/// pieces. toAffine converts the result back to \p value on \p context.
/// Implemented in BoundTranslation.cpp.
IndexExpr toIndexExpr(const isl::pw_aff &value, const isl::set &context);

/// The value of \p value at the only point of \p context, if \p context is a
/// single point inside the domain of \p value.
std::optional<int64_t> evaluateAt(const isl::pw_aff &value,
                                  const isl::set &context);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_ISLSUPPORT_H
