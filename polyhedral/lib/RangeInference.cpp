//===- RangeInference.cpp - TC range inference with isl -------------------===//
//
// TC's forward bounds inference (docs/range-inference.md) on isl sets.
// Every subscript `e` of a read of a tensor whose dimension has range
// [lo, hi) yields the constraint `{ [P...] -> [v...] : lo <= e < hi }` in the
// statement space (one set dimension per index variable). `where` clauses
// seed the solution; then, round by round, each unresolved variable that is
// the only unresolved variable of some solvable constraints gets the largest
// interval satisfying all of them, and at the end of the round the solved
// variables are eliminated from the other constraints in the worst case
// (universal quantification over their ranges). Constraints left without
// variables that do not hold for every size are preconditions: warnings.
//
// Departure from TC: a subscript that is not affine (a gather `B(C(i))`, a
// `%`/`min`/`max` over index variables) never bounds a variable, where TC
// reports an empty range; once its variables are solved from other reads it
// is an unchecked precondition like any other.
//
// Size variables are assumed to be >= 1 unless `--sizes` gives them a value.
//
//===----------------------------------------------------------------------===//
#include "comprehend/polyhedral/RangeInference.h"

#include "IslSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

using namespace comprehend;
using namespace comprehend::poly;

namespace {
/// The range [lo, hi) of one dimension of a tensor defined by a statement,
/// as functions on the parameter space and as IndexExprs (for messages).
struct DimBounds {
  isl::pw_aff lo, hi;
  IndexExpr loExpr, hiExpr;
};
} // namespace

namespace {
/// Everything that outlives one statement: the isl context, the parameters
/// and the bounds of the tensors read so far.
struct InferenceState {
  InferenceState(llvm::ArrayRef<std::string> sizeParams,
                 DiagnosticEngine &diags,
                 const llvm::StringMap<int64_t> &sizes);

  /// \p value (on the parameter space) over the size parameters, whether
  /// or not their values are known.
  IndexExpr expression(const isl::pw_aff &value) const {
    return toIndexExpr(value, symbolicContext);
  }
  std::optional<int64_t> evaluate(const isl::pw_aff &value) const {
    return allSizesKnown ? evaluateAt(value, context) : std::nullopt;
  }
  /// Converts a size expression to a function on the parameter space.
  std::optional<isl::pw_aff> toParamFunction(const IndexExpr &expr) const;

  // Declared first: destroyed after every isl value below.
  IslContext isl;
  DiagnosticEngine &diags;
  llvm::SmallVector<std::string, 8> params;
  isl::space paramSpace;
  /// `{ [P...] : P = size }` for the given sizes and `P >= 1` for the
  /// others: decides emptiness and preconditions.
  isl::set context;
  /// `{ [P...] : P >= 1 }` (`P >= size` for a given size below 1): the
  /// domain of symbolic results, which never depend on the given sizes.
  isl::set symbolicContext;
  bool allSizesKnown = true;
  unsigned long maxOperations = kDefaultMaxOperations;
  /// Set when isl failed while building the context.
  std::string setupError;

  llvm::StringMap<llvm::SmallVector<IndexExpr, 4>> inputExtents;
  llvm::StringMap<llvm::SmallVector<DimBounds, 4>> definedBounds;
  llvm::StringMap<TensorShape> shapes;
};
} // namespace

struct RangeInference::Impl : InferenceState {
  using InferenceState::InferenceState;
};

InferenceState::InferenceState(llvm::ArrayRef<std::string> sizeParams,
                               DiagnosticEngine &diags,
                               const llvm::StringMap<int64_t> &sizes)
    : diags(diags), params(sizeParams.begin(), sizeParams.end()) {
  llvm::SmallVector<std::optional<int64_t>, 8> values, lowerBounds;
  for (const std::string &param : params) {
    auto it = sizes.find(param);
    values.push_back(it == sizes.end() ? std::nullopt
                                       : std::optional(it->second));
    allSizesKnown &= it != sizes.end();
    lowerBounds.push_back(it == sizes.end() ? 1
                                            : std::min<int64_t>(1, it->second));
  }
  try {
    paramSpace = makeParamSpace(isl, params);
    context = makeParamContext(paramSpace, values);
    symbolicContext = makeParamContext(paramSpace, {}, lowerBounds);
  } catch (const isl::exception &error) {
    setupError = error.what();
  }
}

std::optional<isl::pw_aff>
InferenceState::toParamFunction(const IndexExpr &expr) const {
  if (!expr.getVariables().empty())
    return std::nullopt;
  std::optional<AffineExpr> affine =
      toAffine(expr, makeSetSpace(paramSpace, 0), params, {});
  if (!affine)
    return std::nullopt;
  return projectDomainOnParams(affine->value);
}

//===----------------------------------------------------------------------===//
// The solver for one statement
//===----------------------------------------------------------------------===//

namespace {
/// `lo <= e < hi` for one subscript of one read.
struct Constraint {
  /// `{ [P...] -> [v...] : lo <= e < hi }`; none when `e` or the bounds are
  /// not quasi-affine (the constraint is then only a precondition). Optional
  /// because the bindings refuse to copy a null isl::set.
  std::optional<isl::set> set;
  /// Whether the set may bound a variable (see AffineExpr::solvable).
  bool solvable = false;
  /// The unresolved index variables it mentions (statement dimensions).
  llvm::SmallVector<unsigned, 2> vars;
  /// `0 <= i + j < N`, for diagnostics.
  std::string text;
  std::string tensor;
  Location loc;
  bool done = false;
  /// From TensorAccess::conditional.
  bool conditional = false;
  /// `set` or where the read's guards fail (TensorAccess::guards): the
  /// points where the read stays in bounds or does not run; none without
  /// affine guards.
  std::optional<isl::set> guarded;
};

/// The inferred inclusive range [lo, max] of one variable.
struct Solution {
  isl::pw_aff lo, max;
};

class StatementSolver {
public:
  StatementSolver(InferenceState &impl, const StatementInfo &stmt)
      : impl(impl), stmt(stmt) {}

  std::optional<StatementRanges> run();

private:
  void collectVariables();
  void addConstraints(const TensorAccess &access);
  /// Where the affine ones of \p guards hold, in the statement space; none
  /// where none is affine.
  std::optional<isl::set> guardSet(llvm::ArrayRef<IndexComparison> guards);
  LogicalResult applyWheres();
  /// One round; fails after reporting an error.
  LogicalResult solveRound(llvm::SmallVectorImpl<unsigned> &unsolved);
  /// Eliminates \p dims (just solved) from every open constraint.
  void eliminate(llvm::ArrayRef<unsigned> dims);
  void markSolved(unsigned dim, Solution solution);
  /// A constraint without unresolved variables: keep it as a precondition
  /// unless it holds for every size.
  void finish(Constraint &constraint);
  void reportUnsolved(unsigned dim);
  void recordLhs(const StatementRanges &ranges);

  unsigned dimOf(llvm::StringRef var) const {
    return llvm::find(vars, var) - vars.begin();
  }

  InferenceState &impl;
  const StatementInfo &stmt;
  /// The statement's index variables: its set dimensions.
  llvm::SmallVector<std::string, 8> vars;
  isl::space space;
  /// The symbolic and the concrete context in the statement space.
  isl::set stmtContext, concreteContext;
  llvm::SmallVector<Constraint, 8> constraints;
  std::vector<std::optional<Solution>> solutions;
  /// The intersection of the ranges of the solved variables.
  isl::set solvedRange;
  llvm::SmallVector<const Constraint *, 4> preconditions;
};
} // namespace

void StatementSolver::collectVariables() {
  auto add = [&](llvm::StringRef var) {
    if (!llvm::is_contained(vars, var))
      vars.push_back(var.str());
  };
  for (const std::string &var : stmt.indexVars)
    add(var);
  for (const std::string &var : stmt.lhsIndices)
    add(var);
  for (const TensorAccess &access : stmt.accesses)
    for (const IndexExpr &subscript : access.subscripts)
      for (const std::string &var : subscript.getVariables())
        add(var);
  for (const WhereRange &where : stmt.wheres)
    add(where.var);
}

/// The source text of \p loc, or empty.
static llvm::StringRef sourceText(Location loc) {
  if (!loc.isValid())
    return {};
  const char *begin = loc.Start.getPointer(), *end = loc.End.getPointer();
  return end > begin ? llvm::StringRef(begin, end - begin) : llvm::StringRef();
}

static bool containsOpaque(const IndexExpr &expr) {
  return expr.getKind() == IndexExpr::Kind::Opaque ||
         llvm::any_of(expr.getOperands(), containsOpaque);
}

void StatementSolver::addConstraints(const TensorAccess &access) {
  // Bounds of each dimension, in the statement space.
  llvm::SmallVector<std::optional<isl::pw_aff>, 4> los, his;
  llvm::SmallVector<std::string, 4> loTexts, hiTexts;
  if (auto it = impl.definedBounds.find(access.tensor);
      it != impl.definedBounds.end()) {
    for (const DimBounds &bounds : it->second) {
      los.push_back(bounds.lo.insert_domain(space));
      his.push_back(bounds.hi.insert_domain(space));
      loTexts.push_back(bounds.loExpr.str());
      hiTexts.push_back(bounds.hiExpr.str());
    }
  } else if (auto it = impl.inputExtents.find(access.tensor);
             it != impl.inputExtents.end()) {
    for (const IndexExpr &extent : it->second) {
      los.push_back(
          toAffine(IndexExpr::constant(0), space, impl.params, {})->value);
      std::optional<AffineExpr> hi =
          extent.getVariables().empty()
              ? toAffine(extent, space, impl.params, {})
              : std::nullopt;
      his.push_back(hi ? std::optional(hi->value) : std::nullopt);
      loTexts.push_back("0");
      hiTexts.push_back(extent.str());
    }
  } else {
    // Unknown tensors and reads of the tensor being defined (before any
    // statement wrote it) bound nothing; Sema reports the former.
    return;
  }

  for (unsigned index = 0; index < access.subscripts.size(); ++index) {
    const IndexExpr &subscript = access.subscripts[index];
    if (index >= los.size())
      break; // Arity mismatch: reported by Sema.
    Constraint constraint;
    constraint.tensor = access.tensor;
    for (const std::string &var : subscript.getVariables())
      constraint.vars.push_back(dimOf(var));
    Location subscriptLoc = index < access.subscriptLocs.size()
                                ? access.subscriptLocs[index]
                                : Location();
    constraint.loc = subscriptLoc.isValid() ? subscriptLoc
                     : access.loc.isValid() ? access.loc
                                            : stmt.loc;
    std::string subscriptText = subscript.str();
    llvm::StringRef source = sourceText(subscriptLoc);
    if (containsOpaque(subscript) && !source.empty())
      subscriptText = source.str();
    // A comparison, logic or `?:` binds no tighter than the bounds' `<=`.
    if (source.find_first_of("<>=!&|?") != llvm::StringRef::npos)
      subscriptText = "(" + subscriptText + ")";
    constraint.text =
        loTexts[index] + " <= " + subscriptText + " < " + hiTexts[index];

    std::optional<AffineExpr> value =
        toAffine(subscript, space, impl.params, vars);
    if (value && his[index]) {
      constraint.set = los[index]
                           ->le_set(value->value)
                           .intersect(value->value.lt_set(*his[index]));
      constraint.solvable = value->solvable;
    }
    constraint.conditional = access.conditional;
    if (constraint.set)
      if (std::optional<isl::set> guard = guardSet(access.guards))
        constraint.guarded =
            constraint.set->unite(universeSet(space).subtract(*guard));
    constraints.push_back(std::move(constraint));
  }
}

std::optional<isl::set>
StatementSolver::guardSet(llvm::ArrayRef<IndexComparison> guards) {
  std::optional<isl::set> result;
  for (const IndexComparison &guard : guards) {
    std::optional<AffineExpr> lhs =
        toAffine(guard.lhs, space, impl.params, vars);
    std::optional<AffineExpr> rhs =
        toAffine(guard.rhs, space, impl.params, vars);
    if (!lhs || !rhs)
      continue;
    isl::set holds = guard.kind == IndexComparison::Kind::Less
                         ? lhs->value.lt_set(rhs->value)
                     : guard.kind == IndexComparison::Kind::LessEqual
                         ? lhs->value.le_set(rhs->value)
                         : lhs->value.eq_set(rhs->value);
    result = result ? result->intersect(holds) : holds;
  }
  return result;
}

void StatementSolver::markSolved(unsigned dim, Solution solution) {
  isl::pw_aff var = dimPwAff(space, dim);
  isl::set range = solution.lo.insert_domain(space).le_set(var).intersect(
      var.le_set(solution.max.insert_domain(space)));
  solvedRange = solvedRange.intersect(range);
  solutions[dim] = std::move(solution);
}

void StatementSolver::finish(Constraint &constraint) {
  constraint.done = true;
  if (constraint.set && concreteContext.is_subset(*constraint.set))
    return;
  // Out of bounds only where the read does not run.
  if (constraint.guarded && concreteContext.is_subset(*constraint.guarded))
    return;
  preconditions.push_back(&constraint);
}

void StatementSolver::eliminate(llvm::ArrayRef<unsigned> dims) {
  for (Constraint &constraint : constraints) {
    if (constraint.done || llvm::none_of(dims, [&](unsigned dim) {
          return llvm::is_contained(constraint.vars, dim);
        }))
      continue;
    if (constraint.set)
      constraint.set = forallOver(*constraint.set, solvedRange, dims);
    if (constraint.guarded)
      constraint.guarded = forallOver(*constraint.guarded, solvedRange, dims);
    llvm::erase_if(constraint.vars,
                   [&](unsigned dim) { return llvm::is_contained(dims, dim); });
    if (constraint.vars.empty())
      finish(constraint);
  }
}

LogicalResult StatementSolver::applyWheres() {
  llvm::SmallVector<unsigned, 2> dims;
  for (const WhereRange &where : stmt.wheres) {
    std::optional<isl::pw_aff> lo = impl.toParamFunction(where.lo);
    std::optional<isl::pw_aff> hi = impl.toParamFunction(where.hi);
    if (!lo || !hi) {
      impl.diags.emitError(where.loc.isValid() ? where.loc : stmt.loc)
          << "the bounds of '" << where.var
          << "' must be affine expressions of the size variables";
      return failure();
    }
    unsigned dim = dimOf(where.var);
    if (!llvm::is_contained(dims, dim))
      dims.push_back(dim);
    // The last clause for a variable wins; the range is taken as given.
    solutions[dim] = Solution{*lo, hi->add_constant(-1)};
    if (impl.context.is_subset(lo->ge_set(*hi)))
      impl.diags.emitWarning(where.loc.isValid() ? where.loc : stmt.loc)
          << "the range of '" << where.var << "' is empty";
  }
  for (unsigned dim : dims) {
    Solution solution = *solutions[dim];
    markSolved(dim, std::move(solution));
  }
  eliminate(dims);
  return success();
}

void StatementSolver::reportUnsolved(unsigned dim) {
  Location loc = stmt.loc;
  for (const Constraint &constraint : constraints)
    if (llvm::is_contained(constraint.vars, dim)) {
      loc = constraint.loc;
      break;
    }
  impl.diags.emitError(loc)
      << "could not infer the range of index '" << vars[dim]
      << "'; add a where clause such as 'where " << vars[dim] << " in 0:N'";
}

LogicalResult
StatementSolver::solveRound(llvm::SmallVectorImpl<unsigned> &unsolved) {
  llvm::SmallVector<unsigned, 4> solved, stillUnsolved;
  bool failed = false;
  for (unsigned dim : unsolved) {
    llvm::SmallVector<Constraint *, 4> own;
    for (Constraint &constraint : constraints)
      if (!constraint.done && constraint.solvable &&
          constraint.vars.size() == 1 && constraint.vars.front() == dim)
        own.push_back(&constraint);
    if (own.empty()) {
      stillUnsolved.push_back(dim);
      continue;
    }
    // The largest interval on which every single-variable constraint holds.
    isl::set allowed = stmtContext;
    for (const Constraint *constraint : own)
      allowed = allowed.intersect(*constraint->set);
    allowed = projectOntoDim(allowed, dim);
    if (!isBounded(allowed)) {
      stillUnsolved.push_back(dim);
      continue;
    }
    if (allowed.intersect_params(impl.context).is_empty()) {
      auto diag = impl.diags.emitError(own.front()->loc)
                  << "inferred an empty range for index '" << vars[dim] << "'"
                  << (impl.allSizesKnown ? " with the given sizes" : "");
      for (const Constraint *constraint : own)
        diag.note(constraint->loc, "'" + vars[dim] + "' must satisfy '" +
                                       constraint->text + "' here");
      failed = true;
      continue;
    }
    solutions[dim] = Solution{dimMin(allowed), dimMax(allowed)};
    solved.push_back(dim);
    for (Constraint *constraint : own)
      constraint->done = true;
  }
  if (failed)
    return failure();
  if (solved.empty()) {
    for (unsigned dim : stillUnsolved)
      reportUnsolved(dim);
    return failure();
  }
  // Solved variables are eliminated only now: all variables of a round are
  // solved simultaneously, as in TC.
  for (unsigned dim : solved)
    markSolved(dim, *solutions[dim]);
  eliminate(solved);
  unsolved.assign(stillUnsolved.begin(), stillUnsolved.end());
  return success();
}

std::optional<StatementRanges> StatementSolver::run() {
  collectVariables();
  space = makeSetSpace(impl.paramSpace, vars.size());
  stmtContext = universeSet(space).intersect_params(impl.symbolicContext);
  concreteContext = universeSet(space).intersect_params(impl.context);
  solvedRange = universeSet(space);
  solutions.resize(vars.size());
  for (const TensorAccess &access : stmt.accesses)
    addConstraints(access);

  // Constraints without index variables (`I(0)`, `I(N)`) are preconditions.
  for (Constraint &constraint : constraints)
    if (constraint.vars.empty())
      finish(constraint);
  if (failed(applyWheres()))
    return std::nullopt;

  llvm::SmallVector<unsigned, 8> unsolved;
  for (unsigned dim = 0; dim < vars.size(); ++dim)
    if (!solutions[dim])
      unsolved.push_back(dim);
  while (!unsolved.empty())
    if (failed(solveRound(unsolved)))
      return std::nullopt;

  // At given sizes a precondition either holds (finish dropped it) or
  // fails: an unconditional read would then be out of bounds.
  bool outOfBounds = false;
  for (const Constraint *constraint : preconditions) {
    bool fails = impl.allSizesKnown && constraint->set &&
                 concreteContext.intersect(*constraint->set).is_empty();
    if (fails && !constraint->conditional) {
      impl.diags.emitError(constraint->loc)
          << "the read of '" << constraint->tensor
          << "' is out of bounds at these sizes: precondition '"
          << constraint->text << "' does not hold";
      outOfBounds = true;
      continue;
    }
    impl.diags.emitWarning(constraint->loc)
        << "precondition '" << constraint->text << "' of the read of '"
        << constraint->tensor << "' is not checked at run time";
  }
  if (outOfBounds)
    return std::nullopt;

  StatementRanges result;
  for (unsigned dim = 0; dim < vars.size(); ++dim) {
    const std::string &var = vars[dim];
    const Solution &solution = *solutions[dim];
    VarRange range;
    range.var = var;
    isl::pw_aff hi = solution.max.add_constant(1);
    range.lo = impl.evaluate(solution.lo);
    range.hi = impl.evaluate(hi);
    range.loExpr = impl.expression(solution.lo);
    range.hiExpr = impl.expression(hi);
    result.ranges.push_back(std::move(range));
  }
  recordLhs(result);
  return result;
}

void StatementSolver::recordLhs(const StatementRanges &ranges) {
  // Later statements writing the same tensor overwrite its bounds (TC's
  // clobbering); reads in later statements see the last ones.
  llvm::SmallVector<DimBounds, 4> bounds;
  TensorShape shape;
  for (const std::string &index : stmt.lhsIndices) {
    unsigned dim = dimOf(index);
    const Solution &solution = *solutions[dim];
    const VarRange &range = ranges.ranges[dim];
    isl::pw_aff hi = solution.max.add_constant(1);
    bounds.push_back({solution.lo, hi, range.loExpr, range.hiExpr});

    isl::pw_aff extent = hi.sub(solution.lo);
    IndexExpr extentExpr = impl.expression(extent);
    // A piecewise extent that is neither affine nor a min/max becomes a
    // select over its pieces; `hi - lo` of the bounds reads better.
    bool loIsZero = range.loExpr.getKind() == IndexExpr::Kind::Constant &&
                    range.loExpr.getValue() == 0;
    if (extentExpr.hasSelect())
      extentExpr = loIsZero ? range.hiExpr
                            : IndexExpr::binary(IndexExpr::Kind::Sub,
                                                range.hiExpr, range.loExpr);
    shape.loExprs.push_back(range.loExpr);
    shape.extentExprs.push_back(std::move(extentExpr));
    shape.lo.push_back(range.lo);
    shape.extent.push_back(impl.evaluate(extent));
  }
  impl.definedBounds[stmt.lhsTensor] = std::move(bounds);
  impl.shapes[stmt.lhsTensor] = std::move(shape);
}

//===----------------------------------------------------------------------===//
// RangeInference
//===----------------------------------------------------------------------===//

const VarRange *StatementRanges::lookup(llvm::StringRef var) const {
  for (const VarRange &range : ranges)
    if (range.var == var)
      return &range;
  return nullptr;
}

RangeInference::RangeInference(llvm::ArrayRef<std::string> sizeParams,
                               DiagnosticEngine &diags,
                               const llvm::StringMap<int64_t> &sizes)
    : impl(std::make_unique<Impl>(sizeParams, diags, sizes)) {}

RangeInference::~RangeInference() = default;

void RangeInference::declareInput(llvm::StringRef tensor,
                                  llvm::ArrayRef<IndexExpr> extents) {
  impl->inputExtents[tensor].assign(extents.begin(), extents.end());
  impl->definedBounds.erase(tensor);
  TensorShape shape;
  for (const IndexExpr &extent : extents) {
    shape.lo.push_back(0);
    shape.loExprs.push_back(IndexExpr::constant(0));
    std::optional<isl::pw_aff> value;
    if (impl->setupError.empty()) {
      try {
        MaxOperationsGuard guard(impl->isl, kDefaultMaxOperations);
        value = impl->toParamFunction(extent);
        if (value) {
          shape.extentExprs.push_back(impl->expression(*value));
          shape.extent.push_back(impl->evaluate(*value));
          continue;
        }
      } catch (const isl::exception &) {
        // Fall through: keep the extent as written.
      }
    }
    shape.extentExprs.push_back(extent);
    shape.extent.push_back(std::nullopt);
  }
  impl->shapes[tensor] = std::move(shape);
}

std::optional<StatementRanges>
RangeInference::inferStatement(const StatementInfo &stmt) {
  if (!impl->setupError.empty()) {
    impl->diags.emitError(stmt.loc)
        << "range inference failed: " << impl->setupError;
    return std::nullopt;
  }
  MaxOperationsGuard guard(impl->isl, impl->maxOperations);
  try {
    return StatementSolver(*impl, stmt).run();
  } catch (const isl::exception_quota &) {
    impl->diags.emitError(stmt.loc)
        << "range inference for this statement exceeds the isl operation "
           "limit";
    return std::nullopt;
  } catch (const isl::exception &error) {
    // Errors raised inside our C helpers surface as a null result; the
    // context still knows why.
    if (impl->isl.quotaExceeded())
      impl->diags.emitError(stmt.loc)
          << "range inference for this statement exceeds the isl "
             "operation limit";
    else
      impl->diags.emitError(stmt.loc)
          << "range inference failed: " << error.what();
    return std::nullopt;
  }
}

void RangeInference::setMaxOperations(unsigned long maxOperations) {
  impl->maxOperations = maxOperations;
}

std::optional<TensorShape>
RangeInference::getShape(llvm::StringRef tensor) const {
  auto it = impl->shapes.find(tensor);
  if (it == impl->shapes.end())
    return std::nullopt;
  return it->second;
}
