//===- IslSupport.cpp - isl context, guards and helpers -------------------===//
#include "IslSupport.h"

#include "llvm/ADT/STLExtras.h"

#include <limits>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <exception>

using namespace comprehend::poly;

//===----------------------------------------------------------------------===//
// IslContext and MaxOperationsGuard
//===----------------------------------------------------------------------===//

void IslContext::Deleter::operator()(isl_ctx *ctx) const { isl_ctx_free(ctx); }

IslContext::IslContext() : ctx(isl_ctx_alloc()) {
  // Report errors by returning null (turned into isl::exception by the
  // bindings) instead of printing or aborting.
  isl_options_set_on_error(ctx.get(), ISL_ON_ERROR_CONTINUE);
}

bool IslContext::quotaExceeded() const {
  return isl_ctx_last_error(ctx.get()) == isl_error_quota;
}

MaxOperationsGuard::MaxOperationsGuard(const IslContext &ctx,
                                       unsigned long maxOperations)
    : ctx(ctx.getRaw()) {
  isl_ctx_reset_operations(this->ctx);
  isl_ctx_set_max_operations(this->ctx, maxOperations);
}

MaxOperationsGuard::~MaxOperationsGuard() {
  isl_ctx_set_max_operations(ctx, 0);
  isl_ctx_reset_operations(ctx);
  // A quota error leaves the context in an error state; clear it so that
  // the next statement starts clean.
  isl_ctx_reset_error(ctx);
}

//===----------------------------------------------------------------------===//
// Spaces and sets
//===----------------------------------------------------------------------===//

isl::space
comprehend::poly::makeParamSpace(const IslContext &ctx,
                                 llvm::ArrayRef<std::string> params) {
  isl_space *space = isl_space_params_alloc(ctx.getRaw(), params.size());
  for (unsigned index = 0; index < params.size(); ++index)
    space = isl_space_set_dim_name(space, isl_dim_param, index,
                                   params[index].c_str());
  return isl::manage(space);
}

isl::space comprehend::poly::makeSetSpace(const isl::space &paramSpace,
                                          unsigned numDims) {
  return isl::manage(isl_space_add_dims(
      isl_space_set_from_params(paramSpace.copy()), isl_dim_set, numDims));
}

isl::space
comprehend::poly::makeNamedSetSpace(const isl::space &paramSpace,
                                    const isl::id &tuple,
                                    llvm::ArrayRef<std::string> dimNames) {
  isl_space *space = makeSetSpace(paramSpace, dimNames.size()).release();
  space = isl_space_set_tuple_id(space, isl_dim_set, tuple.copy());
  for (unsigned dim = 0; dim < dimNames.size(); ++dim)
    space =
        isl_space_set_dim_name(space, isl_dim_set, dim, dimNames[dim].c_str());
  return isl::manage(space);
}

isl::set comprehend::poly::makeParamContext(
    const isl::space &paramSpace, llvm::ArrayRef<std::optional<int64_t>> values,
    llvm::ArrayRef<std::optional<int64_t>> lowerBounds) {
  isl_set *context = isl_set_universe(paramSpace.copy());
  isl_ctx *ctx = paramSpace.ctx().get();
  isl_size numParams = isl_set_dim(context, isl_dim_param);
  // The _val forms: the _si ones take an int and would truncate a size.
  for (isl_size index = 0; index < numParams; ++index) {
    unsigned i = index;
    if (i < values.size() && values[i])
      context = isl_set_fix_val(context, isl_dim_param, i,
                                isl_val_int_from_si(ctx, *values[i]));
    else
      context = isl_set_lower_bound_val(
          context, isl_dim_param, i,
          isl_val_int_from_si(ctx, i < lowerBounds.size() && lowerBounds[i]
                                       ? *lowerBounds[i]
                                       : 1));
  }
  return isl::manage(context);
}

llvm::SmallVector<std::string, 8>
comprehend::poly::paramNames(const isl::space &space) {
  llvm::SmallVector<std::string, 8> names;
  isl_size numParams = isl_space_dim(space.get(), isl_dim_param);
  for (isl_size i = 0; i < numParams; ++i) {
    const char *name = isl_space_get_dim_name(space.get(), isl_dim_param, i);
    names.push_back(name ? name : "?");
  }
  return names;
}

isl::set comprehend::poly::universeSet(const isl::space &space) {
  return isl::manage(isl_set_universe(space.copy()));
}

isl::set comprehend::poly::computeDivs(const isl::set &set) {
  return isl::manage(isl_set_compute_divs(set.copy()));
}

unsigned comprehend::poly::numSetDims(const isl::set &set) {
  isl_size size = isl_set_dim(set.get(), isl_dim_set);
  return size < 0 ? 0 : static_cast<unsigned>(size);
}

isl::set comprehend::poly::forgetDim(const isl::set &set, unsigned pos) {
  isl_set *result = isl_set_project_out(set.copy(), isl_dim_set, pos, 1);
  return isl::manage(isl_set_insert_dims(result, isl_dim_set, pos, 1));
}

isl::set comprehend::poly::projectOntoDim(const isl::set &set, unsigned pos) {
  unsigned numDims = numSetDims(set);
  isl_set *result =
      isl_set_project_out(set.copy(), isl_dim_set, pos + 1, numDims - pos - 1);
  return isl::manage(isl_set_project_out(result, isl_dim_set, 0, pos));
}

bool comprehend::poly::isBounded(const isl::set &set) {
  isl_bool bounded = isl_set_is_bounded(set.get());
  if (bounded < 0)
    isl::exception::throw_invalid("cannot decide boundedness", __FILE__,
                                  __LINE__);
  return bounded == isl_bool_true;
}

isl::pw_aff comprehend::poly::dimMin(const isl::set &set) {
  return isl::manage(isl_set_dim_min(set.copy(), 0));
}

isl::pw_aff comprehend::poly::dimMax(const isl::set &set) {
  return isl::manage(isl_set_dim_max(set.copy(), 0));
}

isl::pw_aff comprehend::poly::projectDomainOnParams(const isl::pw_aff &value) {
  return isl::manage(isl_pw_aff_project_domain_on_params(value.copy()));
}

isl::pw_aff comprehend::poly::dimPwAff(const isl::space &setSpace,
                                       unsigned pos) {
  isl_local_space *ls = isl_local_space_from_space(setSpace.copy());
  return isl::manage(
      isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, isl_dim_set, pos)));
}

isl::set comprehend::poly::forallOver(const isl::set &cond,
                                      const isl::set &range,
                                      llvm::ArrayRef<unsigned> dims) {
  // x satisfies the result iff no y in the range violates cond.
  isl::set violating = range.subtract(cond);
  for (unsigned dim : dims)
    violating = forgetDim(violating, dim);
  return universeSet(cond.space()).subtract(violating);
}

//===----------------------------------------------------------------------===//
// Maps
//===----------------------------------------------------------------------===//

isl::map comprehend::poly::functionsMap(
    const isl::space &setSpace,
    llvm::ArrayRef<std::optional<isl::pw_aff>> outputs) {
  isl_map *result = isl_map_from_domain(isl_set_universe(setSpace.copy()));
  for (const std::optional<isl::pw_aff> &output : outputs) {
    isl_map *dim = output
                       ? isl_map_from_pw_aff(output->copy())
                       : isl_map_from_domain_and_range(
                             isl_set_universe(setSpace.copy()),
                             isl_set_universe(
                                 makeSetSpace(setSpace.params(), 1).release()));
    result = isl_map_flat_range_product(result, dim);
  }
  return isl::manage(result);
}

isl::map comprehend::poly::universeMapTo(const isl::space &domainSpace,
                                         unsigned numOut) {
  return isl::manage(isl_map_universe(isl_space_map_from_domain_and_range(
      domainSpace.copy(),
      makeSetSpace(domainSpace.params(), numOut).release())));
}

isl::map comprehend::poly::equateDims(const isl::map &map, unsigned inDim,
                                      unsigned outDim) {
  return isl::manage(
      isl_map_equate(map.copy(), isl_dim_in, inDim, isl_dim_out, outDim));
}

isl::map comprehend::poly::fixOutputDim(const isl::map &map, unsigned outDim,
                                        int value) {
  return isl::manage(isl_map_fix_si(map.copy(), isl_dim_out, outDim, value));
}

isl::map comprehend::poly::projectOutOutputDim(const isl::map &map,
                                               unsigned outDim) {
  return isl::manage(isl_map_project_out(map.copy(), isl_dim_out, outDim, 1));
}

//===----------------------------------------------------------------------===//
// Reading quasi-affine functions and constraints
//===----------------------------------------------------------------------===//

AffTerms comprehend::poly::affTerms(const isl::aff &aff) {
  AffTerms terms;
  terms.denominator = isl::manage(isl_aff_get_denominator_val(aff.get()));
  isl_size numParams = isl_aff_dim(aff.get(), isl_dim_param);
  for (isl_size i = 0; i < numParams; ++i)
    terms.params.push_back(
        isl::manage(isl_aff_get_coefficient_val(aff.get(), isl_dim_param, i)));
  isl_size numDivs = isl_aff_dim(aff.get(), isl_dim_div);
  for (isl_size i = 0; i < numDivs; ++i)
    terms.divs.push_back(
        isl::manage(isl_aff_get_coefficient_val(aff.get(), isl_dim_div, i)));
  terms.constant = aff.constant_val();
  return terms;
}

isl::aff comprehend::poly::divExpression(const isl::aff &aff, unsigned pos) {
  isl_local_space *ls = isl_aff_get_local_space(aff.get());
  isl_aff *div = isl_local_space_get_div(ls, pos);
  isl_local_space_free(ls);
  return isl::manage(div);
}

namespace {
/// The user data of an isl foreach: the callback, and what it threw, kept
/// for rethrowing once isl returns (it must not unwind through isl's C).
template <typename Callback> struct ForeachData {
  Callback fn;
  std::exception_ptr error;

  template <typename... Args> isl_stat call(Args &&...args) {
    try {
      fn(std::forward<Args>(args)...);
      return isl_stat_ok;
    } catch (...) {
      error = std::current_exception();
      return isl_stat_error;
    }
  }
  void rethrow() const {
    if (error)
      std::rethrow_exception(error);
  }
};
} // namespace

void comprehend::poly::forEachPiece(
    const isl::pw_aff &value, llvm::function_ref<void(isl::set, isl::aff)> fn) {
  using Data = ForeachData<decltype(fn)>;
  Data data{fn, nullptr};
  isl_pw_aff_foreach_piece(
      value.get(),
      [](isl_set *set, isl_aff *aff, void *user) -> isl_stat {
        return static_cast<Data *>(user)->call(isl::manage(set),
                                               isl::manage(aff));
      },
      &data);
  data.rethrow();
}

void comprehend::poly::forEachConstraint(
    const isl::basic_set &basic,
    llvm::function_ref<void(isl::aff constraint, bool isEquality)> fn) {
  using Data = ForeachData<decltype(fn)>;
  Data data{fn, nullptr};
  isl_basic_set_foreach_constraint(
      basic.get(),
      [](isl_constraint *constraint, void *user) -> isl_stat {
        isl::aff aff = isl::manage(isl_constraint_get_aff(constraint));
        bool isEquality =
            isl_constraint_is_equality(constraint) == isl_bool_true;
        isl_constraint_free(constraint);
        return static_cast<Data *>(user)->call(aff, isEquality);
      },
      &data);
  data.rethrow();
}

//===----------------------------------------------------------------------===//
// IndexExpr -> isl
//===----------------------------------------------------------------------===//

namespace {
/// Converts IndexExpr trees on one set space.
class AffineConverter {
public:
  AffineConverter(const isl::space &space, llvm::ArrayRef<std::string> params,
                  llvm::ArrayRef<std::string> vars)
      : space(space), params(params), vars(vars) {}

  std::optional<AffineExpr> convert(const IndexExpr &expr) const;

private:
  /// The set where a condition (Eq, Le, Ge, And, Or) holds.
  std::optional<isl::set> convertCondition(const IndexExpr &expr) const;

  isl::pw_aff constant(int64_t value) const {
    isl_local_space *ls = isl_local_space_from_space(space.copy());
    isl_val *val = isl_val_int_from_si(space.ctx().get(), value);
    return isl::manage(isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val)));
  }
  isl::pw_aff variable(enum isl_dim_type type, unsigned pos) const {
    isl_local_space *ls = isl_local_space_from_space(space.copy());
    return isl::manage(
        isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, type, pos)));
  }
  /// The value of a constant function, if \p value is one.
  static std::optional<int64_t> constantValue(const isl::pw_aff &value) {
    if (isl_pw_aff_is_cst(value.get()) != isl_bool_true)
      return std::nullopt;
    isl::val val = value.max_val();
    if (!val.is_int())
      return std::nullopt;
    return val.num_si();
  }

  isl::space space;
  llvm::ArrayRef<std::string> params;
  llvm::ArrayRef<std::string> vars;
};
} // namespace

std::optional<AffineExpr>
AffineConverter::convert(const IndexExpr &expr) const {
  using Kind = IndexExpr::Kind;
  switch (expr.getKind()) {
  case Kind::Constant:
    return AffineExpr{constant(expr.getValue()), true};
  case Kind::Param: {
    const auto *it = llvm::find(params, expr.getName());
    if (it == params.end())
      return std::nullopt;
    return AffineExpr{variable(isl_dim_param, it - params.begin()), true};
  }
  case Kind::Var: {
    const auto *it = llvm::find(vars, expr.getName());
    if (it == vars.end())
      return std::nullopt;
    return AffineExpr{variable(isl_dim_set, it - vars.begin()), true};
  }
  case Kind::Opaque:
  case Kind::Eq:
  case Kind::Le:
  case Kind::Ge:
  case Kind::And:
  case Kind::Or:
    return std::nullopt;
  case Kind::Select: {
    std::optional<isl::set> condition = convertCondition(expr.getOperands()[0]);
    std::optional<AffineExpr> ifTrue = convert(expr.getOperands()[1]);
    std::optional<AffineExpr> ifFalse = convert(expr.getOperands()[2]);
    if (!condition || !ifTrue || !ifFalse)
      return std::nullopt;
    isl::pw_aff value =
        ifTrue->value.intersect_domain(*condition)
            .union_add(ifFalse->value.subtract_domain(*condition));
    return AffineExpr{value, false};
  }
  case Kind::Neg: {
    std::optional<AffineExpr> operand = convert(expr.getOperands()[0]);
    if (!operand)
      return std::nullopt;
    return AffineExpr{operand->value.neg(), operand->solvable};
  }
  default:
    break;
  }

  std::optional<AffineExpr> lhs = convert(expr.getOperands()[0]);
  std::optional<AffineExpr> rhs = convert(expr.getOperands()[1]);
  if (!lhs || !rhs)
    return std::nullopt;
  bool bothSolvable = lhs->solvable && rhs->solvable;
  bool usesVars = !expr.getVariables().empty();
  switch (expr.getKind()) {
  case Kind::Add:
    return AffineExpr{lhs->value.add(rhs->value), bothSolvable};
  case Kind::Sub:
    return AffineExpr{lhs->value.sub(rhs->value), bothSolvable};
  case Kind::Mul:
    // isl multiplies only when one factor is a constant.
    if (!constantValue(lhs->value) && !constantValue(rhs->value))
      return std::nullopt;
    return AffineExpr{lhs->value.mul(rhs->value), bothSolvable};
  case Kind::FloorDiv:
  case Kind::Mod: {
    std::optional<int64_t> divisor = constantValue(rhs->value);
    if (!divisor || *divisor == 0)
      return std::nullopt;
    isl::pw_aff quotient = lhs->value.div(rhs->value).floor();
    if (expr.getKind() == Kind::FloorDiv)
      return AffineExpr{quotient, lhs->solvable};
    // Floor semantics: a mod b = a - b * floor(a / b), sign of the divisor.
    return AffineExpr{lhs->value.sub(quotient.mul(rhs->value)), !usesVars};
  }
  case Kind::Min:
    return AffineExpr{lhs->value.min(rhs->value), !usesVars};
  case Kind::Max:
    return AffineExpr{lhs->value.max(rhs->value), !usesVars};
  default:
    return std::nullopt;
  }
}

std::optional<isl::set>
AffineConverter::convertCondition(const IndexExpr &expr) const {
  using Kind = IndexExpr::Kind;
  llvm::ArrayRef<IndexExpr> operands = expr.getOperands();
  if (expr.getKind() == Kind::And || expr.getKind() == Kind::Or) {
    std::optional<isl::set> lhs = convertCondition(operands[0]);
    std::optional<isl::set> rhs = convertCondition(operands[1]);
    if (!lhs || !rhs)
      return std::nullopt;
    return expr.getKind() == Kind::And ? lhs->intersect(*rhs)
                                       : lhs->unite(*rhs);
  }
  if (expr.getKind() != Kind::Eq && expr.getKind() != Kind::Le &&
      expr.getKind() != Kind::Ge)
    return std::nullopt;
  std::optional<AffineExpr> lhs = convert(operands[0]);
  std::optional<AffineExpr> rhs = convert(operands[1]);
  if (!lhs || !rhs)
    return std::nullopt;
  if (expr.getKind() == Kind::Eq)
    return lhs->value.eq_set(rhs->value);
  return expr.getKind() == Kind::Le ? lhs->value.le_set(rhs->value)
                                    : lhs->value.ge_set(rhs->value);
}

std::optional<AffineExpr>
comprehend::poly::toAffine(const IndexExpr &expr, const isl::space &setSpace,
                           llvm::ArrayRef<std::string> params,
                           llvm::ArrayRef<std::string> vars) {
  return AffineConverter(setSpace, params, vars).convert(expr);
}

std::optional<int64_t> comprehend::poly::evaluateAt(const isl::pw_aff &value,
                                                    const isl::set &context) {
  if (isl_set_is_singleton(context.get()) != isl_bool_true)
    return std::nullopt;
  isl::point point = context.sample_point();
  isl::val result = value.eval(point);
  // A value past 64 bits is unknown to the callers, like a non-integer one.
  isl::val limit(result.ctx(), std::numeric_limits<int64_t>::max());
  if (result.is_nan() || !result.is_int() || result.abs().gt(limit))
    return std::nullopt;
  return result.num_si();
}
