//===- LowerLoops.cpp - Statements as foreach + for loops -----------------===//
//
// The general lowering of a comprehension
//
//   O(i, j) op=[!] rhs(i, j, k, l)
//
// is
//
//   foreach (%j, %i) = (lo_j, lo_i), (hi_j, hi_i) {        ; SPMD body
//     %init = identity(op) or load O'[%j - lo, %i - lo]
//     %acc = for %k = lo_k, hi_k init(%a = %init) -> (T) {
//       %r = for %l ... { ...; yield(op(%b, rhs)) }
//       yield(%r)
//     }
//     store %acc, O'[%j - lo, %i - lo]
//   }
//
// The foreach lists the indices in memref order (the last TC index first)
// so that its first, fastest-varying index walks the contiguous mode.
//
//===----------------------------------------------------------------------===//
#include "ExprLowering.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

LogicalResult lowering::lowerAsLoops(DefContext &def,
                                     const StmtContext &stmtContext) {
  const ComprehensionStmt &stmt = stmtContext.stmt;
  ir::Builder &b = def.builder;
  Location loc = stmt.getLoc();
  const TensorBinding *lhs = lookupLhsForLowering(def, stmt);
  if (!lhs)
    return failure();

  ExprLowerer lowerer(def, stmtContext);
  ir::Region *outer = b.getInsertionRegion();
  llvm::ArrayRef<Ident> lhsIndices = stmt.getIndices();

  // Leading LHS indices go on group_id: those the launch's statements share,
  // or for a statement alone in its launch at most three, keeping two for
  // the work-items of a group.
  std::pair<ir::Value *, ir::Value *> tileBounds;
  def.groupOrigins.clear();
  unsigned numGroupDims = def.sharedGroupDims;
  int64_t groupTile = def.sharedTile;
  if (numGroupDims == 0 && def.mayUseGroups && lhsIndices.size() > 2)
    numGroupDims = std::min<unsigned>(3, lhsIndices.size() - 2);
  if (numGroupDims == 0 && def.mayUseGroups && !lhsIndices.empty()) {
    // One or two LHS indices: the first goes on the groups, in tiles that
    // give a group about def.groupWork points.
    numGroupDims = 1;
    int64_t inner = 1;
    for (unsigned d = 1; d < lhsIndices.size(); ++d)
      inner *= stmtContext.ranges[d].hi - stmtContext.ranges[d].lo;
    groupTile = std::max<int64_t>(1, def.groupWork / inner);
    def.knobsUsed.groupWork = true;
  }
  // A tiled last group dimension: the group covers indices
  // [lo + g * tile, min(lo + (g + 1) * tile, hi)), spread over work-items.
  bool tiled = numGroupDims > 0 && groupTile > 1;
  if (tiled) {
    // One tile covers the whole dimension: no group dimension at all.
    const IndexRange &range = stmtContext.ranges[numGroupDims - 1];
    if (groupTile >= range.hi - range.lo) {
      tiled = false;
      --numGroupDims;
    }
  }
  unsigned numFixedDims = tiled ? numGroupDims - 1 : numGroupDims;
  for (unsigned d = 0; d < numGroupDims; ++d) {
    const IndexRange &range = stmtContext.ranges[d];
    int64_t tile = d < numFixedDims ? 1 : groupTile;
    def.grid[d] = (range.hi - range.lo + tile - 1) / tile;
    ir::Value *group =
        b.create<ir::GroupIdInst>(lhsIndices[d].loc, static_cast<ir::Comp3>(d))
            ->getResult(0);
    if (tile != 1)
      group = b.create<ir::MulInst>(lhsIndices[d].loc, group,
                                    lowerer.indexConstant(loc, tile))
                  ->getResult(0);
    if (range.lo != 0)
      group = b.create<ir::AddInst>(lhsIndices[d].loc, group,
                                    lowerer.indexConstant(loc, range.lo))
                  ->getResult(0);
    def.groupOrigins[range.var] = group;
    if (d < numFixedDims) {
      lowerer.bindIndex(range.var, group);
      continue;
    }
    ir::Value *end =
        b.create<ir::AddInst>(loc, group, lowerer.indexConstant(loc, tile))
            ->getResult(0);
    end = b.create<ir::MinInst>(loc, end, lowerer.indexConstant(loc, range.hi))
              ->getResult(0);
    tileBounds = {group, end};
  }

  // foreach over the remaining LHS indices, in memref order; a 0-d LHS
  // still needs an SPMD region for its store, a foreach over one point.
  llvm::SmallVector<ir::Value *, 4> from, to;
  llvm::SmallVector<unsigned, 4> loopDims;
  for (unsigned d = lhsIndices.size(); d-- > numFixedDims;)
    loopDims.push_back(d);
  if (loopDims.empty()) {
    from.push_back(lowerer.indexConstant(loc, 0));
    to.push_back(lowerer.indexConstant(loc, 1));
  }
  for (unsigned d : loopDims) {
    if (tiled && d == numFixedDims) {
      from.push_back(tileBounds.first);
      to.push_back(tileBounds.second);
      continue;
    }
    from.push_back(lowerer.indexConstant(loc, stmtContext.ranges[d].lo));
    to.push_back(lowerer.indexConstant(loc, stmtContext.ranges[d].hi));
  }
  // What depends on none of the foreach's and the reductions' indices is
  // computed once per work-item before them (as the mapper does).
  bool nonEmpty = llvm::all_of(stmtContext.ranges, [](const IndexRange &range) {
    return range.lo < range.hi;
  });
  if (!tiled && nonEmpty) {
    llvm::StringSet<> variant, written;
    for (unsigned d : loopDims)
      variant.insert(stmtContext.ranges[d].var);
    for (const IndexRange &range :
         llvm::ArrayRef<IndexRange>(stmtContext.ranges)
             .drop_front(lhsIndices.size()))
      variant.insert(range.var);
    written.insert(def.resolve(stmt.getLhs().name));
    llvm::SmallVector<const Expr *, 2> invariants;
    collectInvariantSubexprs(def, stmtContext, variant, written, invariants);
    for (const Expr *expr : invariants)
      if (ir::Value *value = lowerer.lowerValue(*expr))
        lowerer.bindValue(expr, value);
  }
  auto foreach = b.create<ir::ForeachInst>(loc, from, to);
  ir::Region &body = foreach.getBody();
  for (unsigned i = 0; i < loopDims.size(); ++i)
    lowerer.bindIndex(stmtContext.ranges[loopDims[i]].var,
                      body.getParameter(i));
  b.setInsertionPointToEnd(body);

  llvm::SmallVector<ir::Value *, 4> lhsSubscripts =
      lowerer.lowerLhsSubscripts(*lhs);
  ScalarType lhsType = lhs->type;
  ReductionKind kind = stmt.getReduction();
  auto lowerRhs = [&]() {
    return lowerer.lowerValueAs(stmt.getRhs(), lhsType);
  };

  ir::Value *result = nullptr;
  if (kind == ReductionKind::None) {
    result = lowerRhs();
  } else {
    ir::Value *init =
        stmt.hasInit()
            ? lowerer.constant(loc, lhsType, getIdentity(kind, lhsType))
            : b.create<ir::LoadInst>(loc, lhs->memref, lhsSubscripts)
                  ->getResult(0);
    // One `for` per reduction index, the accumulator carried through all.
    llvm::ArrayRef<IndexRange> reductions =
        llvm::ArrayRef<IndexRange>(stmtContext.ranges)
            .drop_front(lhsIndices.size());
    llvm::SmallVector<ir::ForInst, 4> loops;
    ir::Value *acc = init;
    for (const IndexRange &range : reductions) {
      auto loop = b.create<ir::ForInst>(
          loc, lowerer.indexConstant(loc, range.lo),
          lowerer.indexConstant(loc, range.hi), /*step=*/nullptr,
          llvm::ArrayRef<ir::Value *>{acc},
          ir::getSimdLoopAttributes(b.getContext()));
      lowerer.bindIndex(range.var, loop.getBody().getParameter(0));
      acc = loop.getBody().getParameter(1);
      loops.push_back(loop);
      b.setInsertionPointToEnd(loop.getBody());
    }
    ir::Value *value = lowerRhs();
    result = value ? combine(b, loc, kind, acc, value) : nullptr;
    for (ir::ForInst loop : llvm::reverse(loops)) {
      if (!result)
        break;
      b.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{result});
      b.setInsertionPointAfter(loop);
      result = loop->getResult(0);
    }
    if (result && !loops.empty())
      b.setInsertionPointToEnd(body);
  }
  if (result)
    b.create<ir::StoreInst>(stmt.getLhs().loc, result, lhs->memref,
                            lhsSubscripts);
  b.setInsertionPointToEnd(*outer);
  return success(result && !lowerer.hasFailed());
}
