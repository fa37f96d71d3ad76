//===- SnapshotSelfReads.cpp - Reads of the LHS as it was -----------------===//
//
// A statement reads every tensor as it was before the statement (TC's
// semantics, docs/tc.md), its own LHS included:
//
//   O(i, j) = O(i, j) * exp(O(0, j))
//
// reads O(0, j) as it was, although the statement overwrites it at i = 0.
// A read at the LHS point is safe in every lowering (each point reads its
// own element before writing it), but one at another point would see
// whatever the statement's other work-items, or its own earlier iterations,
// have written. Such reads go to a copy made just before:
//
//   O_before(i, j) = O(i, j)        (over all of O)
//   O(i, j) = O(i, j) * exp(O_before(0, j))
//
// Such a read in a statement with a `where` let (lowered at each use, where
// the rewrite cannot reach it) or `exists` is reported as not supported
// yet; `in` ranges are in the statement's ranges already.
//
// The def-level pass `snapshot-self-reads` rewrites the reads at other
// points. A reduction reads its LHS point as it was before the statement
// only where its update is alone in its reduction loop (the accumulator is
// stored after the loop). Where the schedule fuses that loop with other
// statements, the pass `segment` asks for its reads at the LHS point to go
// to the copy too.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// `name(i, j) = lhs(i, j)` over the whole of \p binding, the LHS's
/// copy, with the LHS's names for its indices, at the location of \p at.
StmtContext makeCopyStatement(const StmtContext &stmtContext,
                              llvm::StringRef name,
                              const TensorBinding &binding, const Expr &at,
                              RewrittenStatements &created) {
  const ComprehensionStmt &stmt = stmtContext.stmt;
  llvm::SmallVector<std::unique_ptr<IdentExpr>, 4> indexExprs;
  llvm::SmallVector<const IdentExpr *, 4> indices;
  llvm::SmallVector<IndexRange, 4> ranges;
  llvm::SmallVector<std::string, 4> vars;
  for (auto [index, extent, lo] :
       llvm::zip(stmt.getIndices(), binding.shape, binding.lowerBounds)) {
    auto &ident = indexExprs.emplace_back(std::make_unique<IdentExpr>(index));
    ident->resolve(IdentExpr::Ref::Index);
    ident->setType(ScalarType::Int32);
    indices.push_back(ident.get());
    ranges.push_back({index.name.str(), lo, lo + extent});
    vars.push_back(index.name.str());
  }
  const ComprehensionStmt &copy = createStatement(
      created, stmt.getLoc(), stmt.getOpLoc(), Ident{name, stmt.getLhs().loc},
      stmt.getIndices(), ReductionKind::None, /*init=*/false,
      makeTensorRead(stmt.getLhs().name, indices, at), vars);
  return StmtContext{copy, ranges, stmtContext.scope};
}

} // namespace

/// Whether \p read (of the statement's LHS tensor) reads the LHS point:
/// its subscripts are the LHS indices, in order.
static bool readsLhsPoint(const ApplyExpr &read,
                          const ComprehensionStmt &stmt) {
  llvm::ArrayRef<Ident> indices = stmt.getIndices();
  if (read.getArgs().size() != indices.size())
    return false;
  for (auto [arg, index] : llvm::zip(read.getArgs(), indices)) {
    const auto *ident = llvm::dyn_cast<IdentExpr>(arg.get());
    if (!ident || ident->getRef() != IdentExpr::Ref::Index ||
        ident->getName() != index.name)
      return false;
  }
  return true;
}

/// The reads of the LHS of \p stmt in \p expr at a point other than the LHS
/// point, or at any point with \p lhsPointToo.
void lowering::collectSelfReads(const Expr &expr, const ComprehensionStmt &stmt,
                                bool lhsPointToo,
                                llvm::SmallVectorImpl<const ApplyExpr *> &out) {
  walk<ApplyExpr>(expr, [&](const ApplyExpr &apply) {
    if (apply.isTensorRead() && apply.getCallee().name == stmt.getLhs().name &&
        (lhsPointToo || !readsLhsPoint(apply, stmt)))
      out.push_back(&apply);
  });
}

LogicalResult lowering::snapshotSelfReads(
    DefContext &def, llvm::SmallVectorImpl<StmtContext> &stmts,
    RewrittenStatements &created, LoweredDef &lowered,
    llvm::function_ref<bool(const ComprehensionStmt &)> lhsPointToo) {
  llvm::SmallVector<StmtContext, 8> result;
  for (const StmtContext &stmtContext : stmts) {
    const ComprehensionStmt &stmt = stmtContext.stmt;
    def.scope = stmtContext.scope;
    llvm::SmallVector<const ApplyExpr *, 2> reads;
    bool all = lhsPointToo && lhsPointToo(stmt);
    collectSelfReads(stmt.getRhs(), stmt, all, reads);
    for (const WhereClause &where : stmt.getWheres())
      if (where.getKind() != WhereClause::Kind::Range)
        collectSelfReads(where.getValue(), stmt, all, reads);
    // Sema gives every LHS a distinct index per dimension.
    const TensorBinding *lhs = def.lookup(stmt.getLhs().name);
    if (reads.empty() || !lhs ||
        lhs->shape.size() != stmt.getIndices().size()) {
      result.push_back(stmtContext);
      continue;
    }
    if (hasLetsOrExists(stmt))
      return def.diags.emitError(reads.front()->getLoc())
             << "reading '" << stmt.getLhs().name
             << "' at another point than the statement writes is not "
                "supported yet in a statement with a `where` let or `exists`";

    // The copy: a temporary of the LHS's shape, written over all of it.
    llvm::StringRef name = declareTemporary(
        def, created, lowered, stmt.getLhs().name + "_before", *lhs);
    const TensorBinding &binding = def.tensors.find(name)->second;

    result.push_back(
        makeCopyStatement(stmtContext, name, binding, *reads.front(), created));

    // The statement, reading the copy at the other points.
    const ComprehensionStmt &rewritten = rewriteRhs(
        stmt,
        [&](const Expr &old) -> ExprPtr {
          const auto *read = llvm::dyn_cast<ApplyExpr>(&old);
          if (!read || !llvm::is_contained(reads, read))
            return nullptr;
          return cloneReadOf(*read, name);
        },
        created);
    result.push_back(
        StmtContext{rewritten, stmtContext.ranges, stmtContext.scope});
  }
  stmts.assign(result.begin(), result.end());
  return success();
}

LogicalResult lowering::snapshotSelfReads(DefLoweringState &state) {
  return snapshotSelfReads(state.context, state.stmts, state.rewritten,
                           state.result);
}
