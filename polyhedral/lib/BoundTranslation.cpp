//===- BoundTranslation.cpp - Piecewise affine bounds as IndexExprs -------===//
//
// The one way inferred bounds leave isl: an isl::pw_aff on the parameter
// space becomes an IndexExpr over the size parameters, read from the
// coefficients of its isl::aff pieces (IslSupport.h reads them). The shapes are
// the ones a reader of isl's C output expects (IndexExpr::print renders them):
// one affine piece `N - K + 1`, with integer divisions `floord(H - KH, 2) + 1`
// (isl itself would say `-KH + (H + KH) / 2 + 1`), a minimum or maximum of
// affine pieces `min(N, M)`, and for any other piecewise function a chain of
// selects over the pieces' domains, `N <= 4 ? 2 : N - 2`.
//
//===----------------------------------------------------------------------===//
#include "IslSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdlib>
#include <vector>

using namespace comprehend::poly;

namespace {
struct DivTerm;

/// `(sum_p params[p] * P_p + sum_d divs[d].first * divs[d].second + constant)
/// / denominator` with integer coefficients.
struct LinearForm {
  llvm::SmallVector<int64_t, 4> params;
  // Not std::pair<int64_t, FloorDiv>: Clang 15 rejects a pair of an
  // incomplete type here (scripts/fuzz.sh builds with it).
  std::vector<DivTerm> divs;
  int64_t constant = 0;
  int64_t denominator = 1;
};

/// `floord(numerator, divisor)`.
struct FloorDiv {
  LinearForm numerator;
  int64_t divisor = 1;
};

struct DivTerm {
  int64_t first;
  FloorDiv second;
};
} // namespace

/// Reads the integer numerators of \p aff, an expression over the
/// parameters and the integer divisions of its local space.
static LinearForm readAff(const isl::aff &aff) {
  LinearForm form;
  AffTerms terms = affTerms(aff);
  form.denominator = terms.denominator.num_si();
  auto numerator = [&](const isl::val &coefficient) {
    return coefficient.mul(terms.denominator).num_si();
  };
  for (const isl::val &coefficient : terms.params)
    form.params.push_back(numerator(coefficient));
  for (unsigned index = 0; index < terms.divs.size(); ++index) {
    int64_t coefficient = numerator(terms.divs[index]);
    if (coefficient == 0)
      continue;
    // The div's expression before rounding: inner / divisor.
    FloorDiv div;
    div.numerator = readAff(divExpression(aff, index));
    div.divisor = div.numerator.denominator;
    div.numerator.denominator = 1;
    form.divs.push_back(DivTerm{coefficient, std::move(div)});
  }
  form.constant = numerator(terms.constant);
  return form;
}

/// `floor(e / q) + c * P == floor((e + q * c * P) / q)`: moves the parameter
/// terms into a lone division, so that isl's `-KH + floor((H + KH) / 2)`
/// reads `floord(H - KH, 2)`.
static void foldIntoDivision(LinearForm &form) {
  if (form.denominator != 1 || form.divs.size() != 1 ||
      form.divs.front().first != 1)
    return;
  FloorDiv &div = form.divs.front().second;
  if (div.numerator.params.size() != form.params.size())
    return;
  for (auto [outer, inner] : llvm::zip(form.params, div.numerator.params)) {
    inner += div.divisor * outer;
    outer = 0;
  }
}

/// Orders the arguments of `min`/`max` as a reader expects: by the first
/// parameter they use, constants last.
static unsigned firstParam(const isl::aff &aff) {
  llvm::SmallVector<isl::val, 4> params = affTerms(aff).params;
  auto *first = llvm::find_if(params, [](const isl::val &coefficient) {
    return !coefficient.is_zero();
  });
  return first - params.begin();
}

namespace {
/// A bound as one affine piece or the minimum or maximum of affine pieces.
struct BoundShape {
  enum class Kind { Affine, Min, Max } kind = Kind::Affine;
  llvm::SmallVector<LinearForm, 2> forms;
};

/// One piece of a piecewise function: where it applies and its value.
struct Piece {
  isl::set domain;
  isl::aff value;
};
} // namespace

/// The pieces of \p value, pieces with the same function merged.
static llvm::SmallVector<Piece, 2> collectPieces(const isl::pw_aff &value) {
  llvm::SmallVector<Piece, 2> pieces;
  forEachPiece(value, [&](isl::set domain, isl::aff piece) {
    for (Piece &other : pieces)
      if (other.value.plain_is_equal(isl::multi_aff(piece))) {
        other.domain = other.domain.unite(domain);
        return;
      }
    pieces.push_back({domain, piece});
  });
  return pieces;
}

/// Recognises the shape of \p value (simplified under \p context); nullopt
/// for other piecewise functions.
static std::optional<BoundShape> analyzeBound(const isl::pw_aff &value,
                                              llvm::ArrayRef<Piece> pieces,
                                              const isl::set &context) {
  llvm::SmallVector<isl::aff, 2> affs;
  for (const Piece &piece : pieces)
    affs.push_back(piece.value);
  llvm::stable_sort(affs, [](const isl::aff &lhs, const isl::aff &rhs) {
    return firstParam(lhs) < firstParam(rhs);
  });
  BoundShape shape;
  auto readAll = [&] {
    for (const isl::aff &aff : affs) {
      shape.forms.push_back(readAff(aff));
      foldIntoDivision(shape.forms.back());
    }
  };
  if (affs.size() == 1) {
    readAll();
    return shape;
  }
  isl::set domain = value.domain().intersect(context);
  for (bool isMin : {true, false}) {
    isl::pw_aff combined = affs.front();
    for (const isl::aff &aff : llvm::drop_begin(affs))
      combined = isMin ? combined.min(aff) : combined.max(aff);
    if (!domain.is_subset(combined.eq_set(value)))
      continue;
    shape.kind = isMin ? BoundShape::Kind::Min : BoundShape::Kind::Max;
    readAll();
    return shape;
  }
  return std::nullopt;
}

/// `sum + constant` with IndexExpr's printing conventions: negative
/// coefficients become subtractions (`N - K + 1`, not `N + -1 * K + 1`).
static IndexExpr toIndexExpr(const LinearForm &form,
                             llvm::ArrayRef<std::string> names) {
  std::optional<IndexExpr> sum;
  auto add = [&](int64_t coefficient, IndexExpr factor) {
    if (coefficient == 0)
      return;
    int64_t magnitude = std::llabs(coefficient);
    if (!sum) {
      // A leading negative multiple reads `-2 * N`, not `-(2 * N)`.
      sum = magnitude == 1
                ? (coefficient < 0 ? IndexExpr::neg(std::move(factor))
                                   : std::move(factor))
                : IndexExpr::binary(IndexExpr::Kind::Mul,
                                    IndexExpr::constant(coefficient),
                                    std::move(factor));
      return;
    }
    IndexExpr term = magnitude == 1
                         ? std::move(factor)
                         : IndexExpr::binary(IndexExpr::Kind::Mul,
                                             IndexExpr::constant(magnitude),
                                             std::move(factor));
    sum = IndexExpr::binary(coefficient < 0 ? IndexExpr::Kind::Sub
                                            : IndexExpr::Kind::Add,
                            std::move(*sum), std::move(term));
  };
  for (unsigned index = 0; index < form.params.size(); ++index)
    add(form.params[index], IndexExpr::param(names[index]));
  for (const auto &[coefficient, div] : form.divs)
    add(coefficient, IndexExpr::binary(IndexExpr::Kind::FloorDiv,
                                       toIndexExpr(div.numerator, names),
                                       IndexExpr::constant(div.divisor)));
  IndexExpr result = IndexExpr::constant(form.constant);
  if (sum && form.constant != 0)
    result = IndexExpr::binary(
        form.constant < 0 ? IndexExpr::Kind::Sub : IndexExpr::Kind::Add,
        std::move(*sum), IndexExpr::constant(std::llabs(form.constant)));
  else if (sum)
    result = std::move(*sum);
  // A rational piece is integral where it applies (isl bounds are integer
  // valued), so dividing exactly and rounding down agree.
  if (form.denominator != 1)
    return IndexExpr::binary(IndexExpr::Kind::FloorDiv, std::move(result),
                             IndexExpr::constant(form.denominator));
  return result;
}

/// Whether \p form has parameter or division terms.
static bool hasTerms(const LinearForm &form) {
  return llvm::any_of(form.params, [](int64_t c) { return c != 0; }) ||
         !form.divs.empty();
}

namespace {
/// A constraint as a comparison; none when it always holds.
using Comparison = std::optional<IndexExpr>;
} // namespace

/// `form == s * (e - d * floord(e, d)) + k`, i.e. `s * (e % d) + k`, as
/// `e % d` compared with a constant: isl's divisibility conditions. The
/// constraints that only define the division (`e % d >= 0`,
/// `e % d <= d - 1`) always hold.
static std::optional<Comparison>
remainderComparison(const LinearForm &form, bool equality,
                    llvm::ArrayRef<std::string> names) {
  if (form.denominator != 1 || form.divs.size() != 1)
    return std::nullopt;
  const FloorDiv &div = form.divs.front().second;
  const LinearForm &numerator = div.numerator;
  int64_t coefficient = form.divs.front().first;
  if (std::llabs(coefficient) != div.divisor || !numerator.divs.empty() ||
      numerator.params.size() != form.params.size())
    return std::nullopt;
  int64_t sign = coefficient < 0 ? 1 : -1;
  for (auto [outer, inner] : llvm::zip(form.params, numerator.params))
    if (outer != sign * inner)
      return std::nullopt;
  int64_t offset = form.constant - sign * numerator.constant;
  int64_t bound = -sign * offset;
  if (!equality && (sign > 0 ? bound <= 0 : bound >= div.divisor - 1))
    return Comparison();
  IndexExpr remainder =
      IndexExpr::binary(IndexExpr::Kind::Mod, toIndexExpr(numerator, names),
                        IndexExpr::constant(div.divisor));
  IndexExpr::Kind kind = equality   ? IndexExpr::Kind::Eq
                         : sign > 0 ? IndexExpr::Kind::Ge
                                    : IndexExpr::Kind::Le;
  return Comparison(IndexExpr::binary(kind, std::move(remainder),
                                      IndexExpr::constant(bound)));
}

/// The constraint `form >= 0` (`== 0` when \p equality) as a comparison with
/// positive terms on both sides: `2 * N0 >= 3 * N1 + 1`, `N <= 4`,
/// `(N + 1) % 2 == 0`.
static Comparison comparison(const LinearForm &form, bool equality,
                             llvm::ArrayRef<std::string> names) {
  if (std::optional<Comparison> remainder =
          remainderComparison(form, equality, names))
    return *remainder;
  LinearForm positive, negative;
  positive.params.resize(form.params.size());
  negative.params.resize(form.params.size());
  for (unsigned index = 0; index < form.params.size(); ++index)
    (form.params[index] > 0 ? positive : negative).params[index] =
        std::llabs(form.params[index]);
  for (const DivTerm &term : form.divs)
    (term.first > 0 ? positive : negative)
        .divs.push_back(DivTerm{std::llabs(term.first), term.second});
  (form.constant > 0 ? positive : negative).constant =
      std::llabs(form.constant);
  IndexExpr lhs = toIndexExpr(positive, names);
  IndexExpr rhs = toIndexExpr(negative, names);
  // Terms read better on the left: `N <= 4`, not `4 >= N`.
  if (!hasTerms(positive) && hasTerms(negative))
    return IndexExpr::binary(equality ? IndexExpr::Kind::Eq
                                      : IndexExpr::Kind::Le,
                             std::move(rhs), std::move(lhs));
  return IndexExpr::binary(equality ? IndexExpr::Kind::Eq : IndexExpr::Kind::Ge,
                           std::move(lhs), std::move(rhs));
}

/// Joins \p operands with \p kind (And, Or) from the left.
static IndexExpr join(IndexExpr::Kind kind,
                      llvm::SmallVectorImpl<IndexExpr> &operands) {
  IndexExpr result = std::move(operands.front());
  for (IndexExpr &operand : llvm::drop_begin(operands))
    result = IndexExpr::binary(kind, std::move(result), std::move(operand));
  return result;
}

/// The constraints of \p basic as a conjunction of comparisons; none when
/// they always hold.
static Comparison conjunction(const isl::basic_set &basic,
                              llvm::ArrayRef<std::string> names) {
  llvm::SmallVector<IndexExpr, 4> conjuncts;
  forEachConstraint(basic, [&](isl::aff constraint, bool isEquality) {
    if (Comparison conjunct =
            comparison(readAff(constraint), isEquality, names))
      conjuncts.push_back(std::move(*conjunct));
  });
  if (conjuncts.empty())
    return Comparison();
  return join(IndexExpr::Kind::And, conjuncts);
}

/// \p set (on the parameter space) as a disjunction of conjunctions of
/// comparisons; none when it is the universe.
static Comparison condition(const isl::set &set,
                            llvm::ArrayRef<std::string> names) {
  llvm::SmallVector<IndexExpr, 2> disjuncts;
  bool universe = false;
  // Existentially quantified variables become explicit integer divisions,
  // which readAff can print.
  computeDivs(set).foreach_basic_set([&](isl::basic_set basic) {
    if (Comparison disjunct = conjunction(basic, names))
      disjuncts.push_back(std::move(*disjunct));
    else
      universe = true;
  });
  if (universe)
    return Comparison();
  if (disjuncts.empty())
    isl::exception::throw_invalid("cannot translate a piece's domain", __FILE__,
                                  __LINE__);
  return join(IndexExpr::Kind::Or, disjuncts);
}

/// Any piecewise function: `c_1 ? v_1 : c_2 ? v_2 : ... : v_n`, each
/// condition simplified under \p context and the conditions before it.
static IndexExpr selectOverPieces(llvm::ArrayRef<Piece> pieces,
                                  const isl::set &context,
                                  llvm::ArrayRef<std::string> names) {
  llvm::SmallVector<std::pair<IndexExpr, IndexExpr>, 2> cases;
  isl::set remaining = context;
  std::optional<IndexExpr> last;
  for (const Piece &piece : pieces) {
    LinearForm form = readAff(piece.value);
    foldIntoDivision(form);
    IndexExpr value = toIndexExpr(form, names);
    isl::set domain = piece.domain.gist(remaining).coalesce();
    Comparison holds;
    if (&piece != &pieces.back() && !remaining.is_subset(domain))
      holds = condition(domain, names);
    if (!holds) {
      last = std::move(value);
      break;
    }
    cases.push_back({std::move(*holds), std::move(value)});
    remaining = remaining.subtract(piece.domain);
  }
  IndexExpr result = std::move(*last);
  for (auto &[cond, value] : llvm::reverse(cases))
    result =
        IndexExpr::select(std::move(cond), std::move(value), std::move(result));
  return result;
}

IndexExpr comprehend::poly::toIndexExpr(const isl::pw_aff &value,
                                        const isl::set &context) {
  isl::pw_aff simplified = value.gist(context).coalesce();
  llvm::SmallVector<Piece, 2> pieces = collectPieces(simplified);
  if (pieces.empty()) // Defined nowhere: no size makes the range non-empty.
    return IndexExpr::constant(0);
  llvm::SmallVector<std::string, 8> names = paramNames(simplified.space());
  std::optional<BoundShape> shape = analyzeBound(simplified, pieces, context);
  if (!shape)
    return selectOverPieces(pieces, simplified.domain().intersect(context),
                            names);
  IndexExpr result = ::toIndexExpr(shape->forms.front(), names);
  for (const LinearForm &form : llvm::drop_begin(shape->forms))
    result = IndexExpr::binary(shape->kind == BoundShape::Kind::Min
                                   ? IndexExpr::Kind::Min
                                   : IndexExpr::Kind::Max,
                               std::move(result), ::toIndexExpr(form, names));
  return result;
}
