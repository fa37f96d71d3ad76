//===- StatementModel.cpp - isl domains and accesses of a def -------------===//
#include "StatementModel.h"

#include "ScheduleTreeSupport.h"

#include "llvm/ADT/STLExtras.h"

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
  return makeNamedSetSpace(paramSpace, tuple, stmt.iterators);
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
  llvm::SmallVector<std::optional<isl::pw_aff>, 4> dims;
  for (const IndexExpr &subscript : subscripts) {
    std::optional<AffineExpr> value =
        toAffine(subscript, space, params, stmt.iterators);
    if (!value && mustBeAffine)
      return std::nullopt;
    dims.push_back(value ? std::optional(value->value) : std::nullopt);
  }
  return functionsMap(space, dims)
      .set_range_tuple(tensor.str())
      .intersect_domain(domain);
}

/// `{ S<index>[x] -> [index, x, 0...] }` padded to \p width output dims.
static isl::map scheduleOf(const isl::set &domain, unsigned index,
                           unsigned width) {
  unsigned numDims = numSetDims(domain);
  isl::map map = fixOutputDim(universeMapTo(domain.space(), width), 0, index);
  for (unsigned dim = 0; dim < numDims; ++dim)
    map = equateDims(map, dim, dim + 1);
  for (unsigned dim = numDims + 1; dim < width; ++dim)
    map = fixOutputDim(map, dim, 0);
  return map.intersect_domain(domain);
}

llvm::Expected<StatementModel> comprehend::poly::buildStatementModel(
    const IslContext &ctx, llvm::ArrayRef<std::string> params,
    llvm::ArrayRef<ScheduledStatement> stmts) {
  isl::space paramSpace = makeParamSpace(ctx, params);
  StatementModel model;
  unsigned width = 1;
  for (const ScheduledStatement &stmt : stmts)
    width = std::max<unsigned>(width, stmt.iterators.size() + 1);
  model.schedule = emptyUnionMap(paramSpace);

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
      isl::union_map empty = emptyUnionMap(paramSpace);
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
  isl::map map = universeMapTo(domain.space(), positions.size());
  for (unsigned dim = 0; dim < positions.size(); ++dim)
    map = equateDims(map, positions[dim], dim);
  return map.intersect_domain(domain);
}
