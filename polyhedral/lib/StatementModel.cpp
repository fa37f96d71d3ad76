//===- StatementModel.cpp - isl domains and accesses of a def -------------===//
#include "StatementModel.h"

#include "llvm/ADT/STLExtras.h"

#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>

using namespace comprehend::poly;

std::string comprehend::poly::statementTupleName(unsigned index) {
  return ("S" + llvm::Twine(index)).str();
}

std::optional<unsigned> comprehend::poly::readStatementTag(const isl::id &id) {
  std::optional<StatementTag> tag = id.try_user<StatementTag>();
  return tag ? std::optional<unsigned>(tag->index) : std::nullopt;
}

/// `[params] -> { S<index>[iterators] }` with named dimensions (for dumps);
/// the tuple's id carries the StatementTag.
static isl::space statementSpace(const isl::space &paramSpace, unsigned index,
                                 const ScheduledStatement &stmt) {
  isl::id tuple(paramSpace.ctx(), statementTupleName(index),
                StatementTag{index});
  isl_space *space = makeSetSpace(paramSpace, stmt.iterators.size()).release();
  space = isl_space_set_tuple_id(space, isl_dim_set, tuple.release());
  for (unsigned dim = 0; dim < stmt.iterators.size(); ++dim)
    space = isl_space_set_dim_name(space, isl_dim_set, dim,
                                   stmt.iterators[dim].c_str());
  return isl::manage(space);
}

/// `[params] -> { [x] }` with one anonymous dimension per \p numDims.
static isl::space anonymousSpace(const isl::space &space, unsigned numDims) {
  return isl::manage(isl_space_add_dims(
      isl_space_set_from_params(isl_space_params(space.copy())), isl_dim_set,
      numDims));
}

static llvm::Error modelError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

/// `{ S[x] -> T[subscripts] }` on \p domain; a non-affine subscript spans the
/// whole dimension. Fails for non-affine subscripts when \p mustBeAffine.
static std::optional<isl::map>
accessRelation(const isl::set &domain, llvm::ArrayRef<std::string> params,
               const ScheduledStatement &stmt, llvm::StringRef tensor,
               llvm::ArrayRef<IndexExpr> subscripts, bool mustBeAffine) {
  isl::space space = domain.space();
  isl_map *map = isl_map_from_domain(isl_set_universe(space.copy()));
  for (const IndexExpr &subscript : subscripts) {
    std::optional<AffineExpr> value =
        toAffine(subscript, space, params, stmt.iterators);
    if (!value && mustBeAffine) {
      isl_map_free(map);
      return std::nullopt;
    }
    isl_map *dim =
        value ? isl_map_from_pw_aff(value->value.copy())
              : isl_map_from_domain_and_range(
                    isl_set_universe(space.copy()),
                    isl_set_universe(anonymousSpace(space, 1).release()));
    map = isl_map_flat_range_product(map, dim);
  }
  map = isl_map_set_tuple_name(map, isl_dim_out, tensor.str().c_str());
  return isl::manage(map).intersect_domain(domain);
}

/// `{ S<index>[x] -> [index, x, 0...] }` padded to \p width output dims.
static isl::map scheduleOf(const isl::set &domain, unsigned index,
                           unsigned width) {
  unsigned numDims = numSetDims(domain);
  isl_space *space = isl_space_map_from_domain_and_range(
      domain.space().release(),
      anonymousSpace(domain.space(), width).release());
  isl_map *map = isl_map_universe(space);
  map = isl_map_fix_si(map, isl_dim_out, 0, index);
  for (unsigned dim = 0; dim < numDims; ++dim)
    map = isl_map_equate(map, isl_dim_in, dim, isl_dim_out, dim + 1);
  for (unsigned dim = numDims + 1; dim < width; ++dim)
    map = isl_map_fix_si(map, isl_dim_out, dim, 0);
  return isl::manage(map).intersect_domain(domain);
}

llvm::Expected<StatementModel> comprehend::poly::buildStatementModel(
    const IslContext &ctx, llvm::ArrayRef<std::string> params,
    llvm::ArrayRef<ScheduledStatement> stmts) {
  isl::space paramSpace = makeParamSpace(ctx, params);
  StatementModel model;
  unsigned width = 1;
  for (const ScheduledStatement &stmt : stmts)
    width = std::max<unsigned>(width, stmt.iterators.size() + 1);
  model.schedule = isl::union_map(
      isl::manage(isl_union_map_empty(isl_space_params(paramSpace.copy()))));

  for (unsigned index = 0; index < stmts.size(); ++index) {
    const ScheduledStatement &stmt = stmts[index];
    if (stmt.lo.size() != stmt.iterators.size() ||
        stmt.hi.size() != stmt.iterators.size())
      return modelError("statement " + llvm::Twine(index) +
                        " needs one range per iterator");
    isl::space space = statementSpace(paramSpace, index, stmt);
    isl::set domain = universeSet(space);
    for (unsigned dim = 0; dim < stmt.iterators.size(); ++dim) {
      std::optional<AffineExpr> lo =
          toAffine(stmt.lo[dim], space, params, stmt.iterators);
      std::optional<AffineExpr> hi =
          toAffine(stmt.hi[dim], space, params, stmt.iterators);
      if (!lo || !hi)
        return modelError("the range of '" + stmt.iterators[dim] +
                          "' is not affine in the size variables");
      isl::pw_aff var = dimPwAff(space, dim);
      domain = domain.intersect(lo->value.le_set(var))
                   .intersect(var.lt_set(hi->value));
    }
    model.domains.push_back(domain);
    model.schedule = model.schedule.unite(scheduleOf(domain, index, width));

    auto entry = [&](llvm::StringRef tensor) -> TensorAccesses & {
      for (auto &[name, accesses] : model.accesses)
        if (name == tensor)
          return accesses;
      isl::union_map empty =
          isl::manage(isl_union_map_empty(isl_space_params(paramSpace.copy())));
      model.accesses.emplace_back(tensor.str(), TensorAccesses{empty, empty});
      return model.accesses.back().second;
    };
    llvm::SmallVector<IndexExpr, 4> lhsSubscripts;
    for (const std::string &index : stmt.lhsIndices)
      lhsSubscripts.push_back(IndexExpr::var(index));
    std::optional<isl::map> write = accessRelation(
        domain, params, stmt, stmt.lhsTensor, lhsSubscripts, true);
    if (!write)
      return modelError("the LHS indices of '" + stmt.lhsTensor +
                        "' must be iterators of its statement");
    TensorAccesses &lhs = entry(stmt.lhsTensor);
    lhs.writes = lhs.writes.unite(*write);
    if (stmt.readsLhs)
      lhs.reads = lhs.reads.unite(*write);
    for (const TensorAccess &read : stmt.reads) {
      std::optional<isl::map> relation = accessRelation(
          domain, params, stmt, read.tensor, read.subscripts, false);
      TensorAccesses &accesses = entry(read.tensor);
      accesses.reads = accesses.reads.unite(*relation);
    }
  }
  return model;
}

/// Position of each of the first \p numDims LHS indices among the iterators.
static llvm::SmallVector<unsigned, 4>
lhsPositions(const ScheduledStatement &stmt, unsigned numDims) {
  llvm::SmallVector<unsigned, 4> positions;
  for (unsigned dim = 0; dim < numDims && dim < stmt.lhsIndices.size(); ++dim)
    positions.push_back(llvm::find(stmt.iterators, stmt.lhsIndices[dim]) -
                        stmt.iterators.begin());
  return positions;
}

isl::map comprehend::poly::lhsProjection(const isl::set &domain,
                                         const ScheduledStatement &stmt,
                                         unsigned numDims) {
  llvm::SmallVector<unsigned, 4> positions = lhsPositions(stmt, numDims);
  isl_space *space = isl_space_map_from_domain_and_range(
      domain.space().release(),
      anonymousSpace(domain.space(), positions.size()).release());
  isl_map *map = isl_map_universe(space);
  for (unsigned dim = 0; dim < positions.size(); ++dim)
    map = isl_map_equate(map, isl_dim_in, positions[dim], isl_dim_out, dim);
  return isl::manage(map).intersect_domain(domain);
}
