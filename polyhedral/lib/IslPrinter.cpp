//===- IslPrinter.cpp - isl-style C text for piecewise affine bounds ------===//
//
// Range bounds are printed the way a reader of isl's C output expects them:
// `N - K + 1`, `floord(H - KH, 2) + 1`, `min(N, M)`. isl's own AST printer
// would print `-KH + (H + KH) / 2 + 1` and `M >= N + 1 ? N : M` for the same
// functions, so simple shapes (one affine piece, a minimum or maximum of
// affine pieces) are rendered here from the coefficients and everything else
// falls back to the AST printer.
//
//===----------------------------------------------------------------------===//
#include "IslSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/local_space.h>
#include <isl/space.h>
#include <isl/val.h>

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

/// Takes \p val.
static int64_t takeInt(isl_val *val) {
  int64_t result = isl_val_get_num_si(val);
  isl_val_free(val);
  return result;
}

/// Reads the integer numerators of \p aff (kept), an expression over the
/// parameters and the integer divisions of its local space.
static LinearForm readAff(isl_aff *aff) {
  LinearForm form;
  isl_val *denominator = isl_aff_get_denominator_val(aff);
  form.denominator = isl_val_get_num_si(denominator);
  auto numerator = [&](isl_val *coefficient) {
    return takeInt(isl_val_mul(coefficient, isl_val_copy(denominator)));
  };
  isl_size numParams = isl_aff_dim(aff, isl_dim_param);
  for (isl_size i = 0; i < numParams; ++i)
    form.params.push_back(
        numerator(isl_aff_get_coefficient_val(aff, isl_dim_param, i)));
  isl_size numDivs = isl_aff_dim(aff, isl_dim_div);
  for (isl_size i = 0; i < numDivs; ++i) {
    int64_t coefficient =
        numerator(isl_aff_get_coefficient_val(aff, isl_dim_div, i));
    if (coefficient == 0)
      continue;
    isl_local_space *ls = isl_aff_get_local_space(aff);
    // The div's expression before rounding: inner / divisor.
    isl_aff *inner = isl_local_space_get_div(ls, i);
    isl_local_space_free(ls);
    FloorDiv div;
    div.numerator = readAff(inner);
    div.divisor = div.numerator.denominator;
    div.numerator.denominator = 1;
    isl_aff_free(inner);
    form.divs.push_back(DivTerm{coefficient, std::move(div)});
  }
  form.constant = numerator(isl_aff_get_constant_val(aff));
  isl_val_free(denominator);
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

static void printForm(const LinearForm &form,
                      llvm::ArrayRef<std::string> paramNames,
                      llvm::raw_ostream &os);

static void printDiv(const FloorDiv &div,
                     llvm::ArrayRef<std::string> paramNames,
                     llvm::raw_ostream &os) {
  os << "floord(";
  printForm(div.numerator, paramNames, os);
  os << ", " << div.divisor << ')';
}

static void printForm(const LinearForm &form,
                      llvm::ArrayRef<std::string> paramNames,
                      llvm::raw_ostream &os) {
  std::string body;
  llvm::raw_string_ostream bodyOs(body);
  bool first = true;
  auto printTerm = [&](int64_t coefficient, auto printFactor) {
    if (coefficient == 0)
      return;
    if (first)
      bodyOs << (coefficient < 0 ? "-" : "");
    else
      bodyOs << (coefficient < 0 ? " - " : " + ");
    first = false;
    if (std::llabs(coefficient) != 1)
      bodyOs << std::llabs(coefficient) << " * ";
    printFactor();
  };
  for (unsigned index = 0; index < form.params.size(); ++index)
    printTerm(form.params[index], [&] {
      bodyOs << (index < paramNames.size() ? paramNames[index] : "?");
    });
  for (const auto &[coefficient, div] : form.divs)
    printTerm(coefficient,
              [&, &div = div] { printDiv(div, paramNames, bodyOs); });
  if (first)
    bodyOs << form.constant;
  else if (form.constant != 0)
    bodyOs << (form.constant < 0 ? " - " : " + ") << std::llabs(form.constant);

  if (form.denominator == 1) {
    os << body;
    return;
  }
  os << '(' << body << ")/" << form.denominator;
}

/// Orders the arguments of `min`/`max` as a reader expects: by the first
/// parameter they use, constants last.
static unsigned firstParam(const isl::aff &aff) {
  isl_size numParams = isl_aff_dim(aff.get(), isl_dim_param);
  for (isl_size i = 0; i < numParams; ++i) {
    isl_val *coefficient =
        isl_aff_get_coefficient_val(aff.get(), isl_dim_param, i);
    bool isZero = isl_val_is_zero(coefficient) == isl_bool_true;
    isl_val_free(coefficient);
    if (!isZero)
      return i;
  }
  return numParams < 0 ? 0 : numParams;
}

static std::string formatWithAstBuild(const isl::pw_aff &value,
                                      const isl::set &context) {
  isl_ast_build *build = isl_ast_build_from_context(context.copy());
  isl_ast_expr *expr = isl_ast_build_expr_from_pw_aff(build, value.copy());
  isl_ast_build_free(build);
  if (!expr)
    isl::exception::throw_invalid("cannot print a bound", __FILE__, __LINE__);
  char *text = isl_ast_expr_to_C_str(expr);
  isl_ast_expr_free(expr);
  std::string result = text ? text : "";
  free(text);
  return result;
}

namespace {
/// A bound as one affine piece or the minimum or maximum of affine pieces.
struct BoundShape {
  enum class Kind { Affine, Min, Max } kind = Kind::Affine;
  llvm::SmallVector<LinearForm, 2> forms;
  llvm::SmallVector<std::string, 8> paramNames;
};
} // namespace

/// Recognises the shape of \p value (simplified under \p context); nullopt
/// for other piecewise functions.
static std::optional<BoundShape> analyzeBound(const isl::pw_aff &value,
                                              const isl::set &context) {
  llvm::SmallVector<isl::aff, 2> affs;
  isl_pw_aff_foreach_piece(
      value.get(),
      [](isl_set *set, isl_aff *aff, void *user) -> isl_stat {
        auto &affs = *static_cast<llvm::SmallVector<isl::aff, 2> *>(user);
        isl_set_free(set);
        isl::aff piece = isl::manage(aff);
        if (llvm::none_of(affs, [&](const isl::aff &other) {
              return isl_aff_plain_is_equal(other.get(), piece.get()) ==
                     isl_bool_true;
            }))
          affs.push_back(piece);
        return isl_stat_ok;
      },
      &affs);
  if (affs.empty())
    return std::nullopt;

  BoundShape shape;
  isl::space space = value.space();
  isl_size numParams = isl_space_dim(space.get(), isl_dim_param);
  for (isl_size i = 0; i < numParams; ++i) {
    const char *name = isl_space_get_dim_name(space.get(), isl_dim_param, i);
    shape.paramNames.push_back(name ? name : "?");
  }
  llvm::stable_sort(affs, [](const isl::aff &lhs, const isl::aff &rhs) {
    return firstParam(lhs) < firstParam(rhs);
  });
  auto readAll = [&] {
    for (const isl::aff &aff : affs) {
      shape.forms.push_back(readAff(aff.get()));
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

std::string comprehend::poly::formatPwAff(const isl::pw_aff &value,
                                          const isl::set &context) {
  isl::pw_aff simplified = value.gist(context).coalesce();
  std::optional<BoundShape> shape = analyzeBound(simplified, context);
  if (!shape)
    return formatWithAstBuild(simplified, context);
  auto print = [&](const LinearForm &form) {
    std::string text;
    llvm::raw_string_ostream os(text);
    printForm(form, shape->paramNames, os);
    return text;
  };
  std::string text = print(shape->forms.front());
  for (const LinearForm &form : llvm::drop_begin(shape->forms))
    text = (shape->kind == BoundShape::Kind::Min ? "min(" : "max(") + text +
           ", " + print(form) + ")";
  return text;
}

static std::optional<IndexExpr>
toIndexExpr(const LinearForm &form, llvm::ArrayRef<std::string> paramNames) {
  if (form.denominator != 1)
    return std::nullopt;
  std::optional<IndexExpr> sum;
  // Negative coefficients become subtractions: `N - K + 1`, not
  // `N + -1 * K + 1`.
  auto add = [&](int64_t coefficient, IndexExpr factor) {
    if (coefficient == 0)
      return;
    int64_t magnitude = std::llabs(coefficient);
    IndexExpr term = magnitude == 1
                         ? std::move(factor)
                         : IndexExpr::binary(IndexExpr::Kind::Mul,
                                             IndexExpr::constant(magnitude),
                                             std::move(factor));
    if (!sum)
      sum = coefficient < 0 ? IndexExpr::neg(std::move(term)) : std::move(term);
    else
      sum = IndexExpr::binary(coefficient < 0 ? IndexExpr::Kind::Sub
                                              : IndexExpr::Kind::Add,
                              std::move(*sum), std::move(term));
  };
  for (unsigned index = 0; index < form.params.size(); ++index)
    add(form.params[index], IndexExpr::param(paramNames[index]));
  for (const auto &[coefficient, div] : form.divs) {
    std::optional<IndexExpr> numerator = toIndexExpr(div.numerator, paramNames);
    if (!numerator)
      return std::nullopt;
    add(coefficient,
        IndexExpr::binary(IndexExpr::Kind::FloorDiv, std::move(*numerator),
                          IndexExpr::constant(div.divisor)));
  }
  if (!sum)
    return IndexExpr::constant(form.constant);
  if (form.constant != 0)
    return IndexExpr::binary(
        form.constant < 0 ? IndexExpr::Kind::Sub : IndexExpr::Kind::Add,
        std::move(*sum), IndexExpr::constant(std::llabs(form.constant)));
  return sum;
}

std::optional<IndexExpr>
comprehend::poly::toIndexExpr(const isl::pw_aff &value,
                              const isl::set &context) {
  isl::pw_aff simplified = value.gist(context).coalesce();
  std::optional<BoundShape> shape = analyzeBound(simplified, context);
  if (!shape)
    return std::nullopt;
  std::optional<IndexExpr> result =
      ::toIndexExpr(shape->forms.front(), shape->paramNames);
  for (const LinearForm &form : llvm::drop_begin(shape->forms)) {
    std::optional<IndexExpr> next = ::toIndexExpr(form, shape->paramNames);
    if (!result || !next)
      return std::nullopt;
    result = IndexExpr::binary(shape->kind == BoundShape::Kind::Min
                                   ? IndexExpr::Kind::Min
                                   : IndexExpr::Kind::Max,
                               std::move(*result), std::move(*next));
  }
  return result;
}
