//===- HoistToTemporaries.cpp - Costly invariants as temporaries ----------===//
//
// A statement such as batch normalisation's
//
//   Y(n, c) = gamma(c) * (X(n, c) - mean(c)) * rsqrt(var(c) + 1e-5) + beta(c)
//
// computes `rsqrt(var(c) + 1e-5)` once per (n, c), though it depends on c
// alone. The per-loop hoisting of the lowerings (collectInvariantSubexprs)
// lifts such a subexpression out of the loops it does not depend on only
// when those loops are inside the ones it does. Here it cannot: c is the
// contiguous index, so the loop over c runs innermost (on vector lanes) and
// the loop over n outside it. The statement becomes two:
//
//   Y_hoisted0(c) = rsqrt(var(c) + 1e-5)
//   Y(n, c) = gamma(c) * (X(n, c) - mean(c)) * Y_hoisted0(c) + beta(c)
//
// and the schedule computes the temporary once per c (a builtin costs far
// more than a load on a CPU core, where PoCL composes rsqrt from log2 and
// exp2).
//
// Only subexpressions that always run (not in a branch of `?:`, `&&` or
// `||`), call a builtin, read nothing the statement writes, use no `where`
// let, and vary with the statement's last LHS index but not with all of its
// indices or, in a reduction, with its reduction indices alone (a layer norm
// backward's `d_gamma(d) +=! d_Y(n, d) * rsqrt(var(n) + 1e-5) * ...`: the
// groups of a column sum each computed the rsqrt of every row again; the
// temporary is computed with the rows). Statements with `where` lets or
// `exists` and those of inlined calls stay as they are. This is the def-level
// pass `hoist-to-temporaries` (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"
#include "ExprLowering.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// What a subexpression uses.
struct Uses {
  llvm::StringSet<> indices;
  /// One IdentExpr per index variable, to copy into the temporary's reads.
  llvm::StringMap<const IdentExpr *> indexExprs;
  bool callsBuiltin = false;
};

void collectUses(const Expr &expr, Uses &uses) {
  walk(expr, [&](const Expr &node) {
    if (const auto *ident = llvm::dyn_cast<IdentExpr>(&node)) {
      if (ident->getRef() == IdentExpr::Ref::Index) {
        uses.indices.insert(ident->getName());
        uses.indexExprs.try_emplace(ident->getName(), ident);
      }
    } else if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&node)) {
      uses.callsBuiltin |= !apply->isTensorRead();
    }
  });
}

/// Collects the subexpressions of an expression that run whenever it does:
/// not the branches of `?:`, the right operand of `&&` and `||` or the
/// subscripts of a read.
class UnconditionalCollector : public ConstExprVisitor<UnconditionalCollector> {
public:
  explicit UnconditionalCollector(llvm::SmallPtrSetImpl<const Expr *> &out)
      : out(out) {}

  void visitExpr(const Expr &expr) {
    out.insert(&expr);
    forEachOperand(expr, [&](const Expr &operand) { visit(operand); });
  }
  void visitBinary(const BinaryExpr &binary) {
    if (binary.getOp() != BinaryOp::And && binary.getOp() != BinaryOp::Or)
      return visitExpr(binary);
    out.insert(&binary);
    visit(binary.getLhs());
  }
  void visitTernary(const TernaryExpr &ternary) {
    out.insert(&ternary);
    visit(ternary.getCond());
  }
  void visitApply(const ApplyExpr &apply) {
    if (!apply.isTensorRead())
      return visitExpr(apply);
    out.insert(&apply);
  }

private:
  llvm::SmallPtrSetImpl<const Expr *> &out;
};

/// The subexpressions of \p expr that run whenever it does.
void collectUnconditional(const Expr &expr,
                          llvm::SmallPtrSetImpl<const Expr *> &out) {
  UnconditionalCollector(out).visit(expr);
}

/// The subexpressions of one statement that become temporaries.
struct Hoist {
  const Expr *expr;
  /// The statement's index variables the expression uses, in its order.
  llvm::SmallVector<std::string, 4> vars;
  /// An IdentExpr of each, to copy into the temporary's reads.
  llvm::SmallVector<const IdentExpr *, 4> varExprs;
};

/// The largest subexpressions of \p stmt to hoist (see the file comment).
llvm::SmallVector<Hoist, 2> findHoists(const DefContext &def,
                                       const StmtContext &stmt) {
  llvm::ArrayRef<std::string> vars = stmt.stmt.getIndexVars();
  llvm::StringRef last = stmt.stmt.getIndices().back().name;
  llvm::StringSet<> written;
  written.insert(def.resolve(stmt.stmt.getLhs().name));
  llvm::SmallPtrSet<const Expr *, 16> unconditional;
  collectUnconditional(stmt.stmt.getRhs(), unconditional);
  // The largest subexpressions invariant in some index other than `last`.
  llvm::SmallVector<const Expr *, 4> candidates;
  for (const std::string &var : vars) {
    if (var == last)
      continue;
    llvm::StringSet<> variant;
    variant.insert(var);
    collectInvariantSubexprs(def, stmt, variant, written, candidates);
  }
  // A reduction's subexpressions that use its reduction indices alone (a
  // column sum's `rsqrt(var(n) + 1e-5)` in `d_gamma(d) +=! ...`): every
  // group of LHS points would compute them again for each reduction point.
  llvm::SmallVector<const Expr *, 4> reductionOnly;
  if (vars.size() > stmt.stmt.getIndices().size()) {
    llvm::StringSet<> lhs;
    for (const auto &index : stmt.stmt.getIndices())
      lhs.insert(index.name);
    collectInvariantSubexprs(def, stmt, lhs, written, reductionOnly);
    candidates.append(reductionOnly.begin(), reductionOnly.end());
  }
  auto contains = [](const Expr *outer, const Expr *inner) {
    llvm::SmallPtrSet<const Expr *, 16> below;
    collectUnconditional(*outer, below);
    return below.contains(inner);
  };
  llvm::SmallVector<Hoist, 2> hoists;
  for (const Expr *candidate : candidates) {
    Uses uses;
    collectUses(*candidate, uses);
    bool varies =
        uses.indices.contains(last) ||
        (llvm::is_contained(reductionOnly, candidate) && !uses.indices.empty());
    if (!uses.callsBuiltin || !varies || !unconditional.contains(candidate) ||
        !toIrScalarKind(candidate->getType()) ||
        llvm::any_of(uses.indices, [&](const auto &var) {
          return !stmt.lookup(var.first());
        }))
      continue;
    // Of two nested candidates (invariant in different indices), the
    // larger one.
    if (llvm::any_of(hoists, [&](const Hoist &hoist) {
          return contains(hoist.expr, candidate);
        }))
      continue;
    llvm::erase_if(hoists, [&](const Hoist &hoist) {
      return contains(candidate, hoist.expr);
    });
    Hoist &hoist = hoists.emplace_back();
    hoist.expr = candidate;
    for (const std::string &var : vars)
      if (uses.indices.contains(var)) {
        hoist.vars.push_back(var);
        hoist.varExprs.push_back(uses.indexExprs.lookup(var));
      }
  }
  return hoists;
}

/// Moves the subexpressions of the statements of \p stmts (see the file
/// comment) into temporaries declared in \p def and appended to the
/// tensors of \p lowered, and listed in its `hoisted`.
void hoistStatements(DefContext &def, llvm::SmallVectorImpl<StmtContext> &stmts,
                     RewrittenStatements &created, LoweredDef &lowered) {
  llvm::SmallVector<StmtContext, 8> result;
  def.scope = nullptr;
  for (const StmtContext &stmtContext : stmts) {
    const ComprehensionStmt &stmt = stmtContext.stmt;
    llvm::SmallVector<Hoist, 2> hoists;
    if (!stmtContext.scope && !hasLetsOrExists(stmt) &&
        !stmt.getIndices().empty())
      hoists = findHoists(def, stmtContext);
    if (hoists.empty()) {
      result.push_back(stmtContext);
      continue;
    }
    llvm::DenseMap<const Expr *, ExprPtr> replaced;
    for (const Hoist &hoist : hoists) {
      // The temporary: the statement's ranges of the indices it uses.
      const Expr &expr = *hoist.expr;
      llvm::SmallVector<Ident, 4> indices;
      llvm::SmallVector<IndexRange, 4> ranges;
      TensorBinding binding;
      binding.type = expr.getType();
      binding.kind = *toIrScalarKind(expr.getType());
      for (auto [var, varExpr] : llvm::zip(hoist.vars, hoist.varExprs)) {
        const IndexRange &box = *stmtContext.lookup(var);
        indices.push_back(Ident{varExpr->getName(), expr.getLoc()});
        ranges.push_back(box);
        binding.shape.push_back(std::max<int64_t>(1, box.hi - box.lo));
        binding.lowerBounds.push_back(box.lo);
      }
      llvm::StringRef name = declareTemporary(
          def, created, lowered,
          stmt.getLhs().name + "_hoisted" + llvm::Twine(lowered.hoisted.size()),
          binding);
      lowered.hoisted.push_back({name.str(), stmt.getLhs().name.str()});

      // `name(vars) = expr`, just before the statement.
      const ComprehensionStmt &producer = createStatement(
          created, expr.getLoc(), expr.getLoc(), Ident{name, expr.getLoc()},
          indices, ReductionKind::None, /*init=*/false, cloneExpr(expr),
          hoist.vars);
      result.push_back(StmtContext{producer, ranges, nullptr});

      // In the statement, `name(vars)` instead of expr.
      replaced[&expr] = makeTensorRead(name, hoist.varExprs, expr);
    }
    const ComprehensionStmt &consumer = rewriteRhs(
        stmt,
        [&](const Expr &old) {
          auto it = replaced.find(&old);
          return it == replaced.end() ? nullptr : std::move(it->second);
        },
        created);
    result.push_back(StmtContext{consumer, stmtContext.ranges, nullptr});
  }
  stmts.assign(result.begin(), result.end());
}

} // namespace

LogicalResult lowering::hoistToTemporaries(DefLoweringState &state) {
  hoistStatements(state.context, state.stmts, state.rewritten, state.result);
  return success();
}
