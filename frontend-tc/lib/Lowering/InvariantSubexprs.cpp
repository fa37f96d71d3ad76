//===- InvariantSubexprs.cpp - Subexpressions invariant in some loops -----===//
//
// collectInvariantSubexprs (ExprLowering.h): the schedule-driven lowering
// computes them before the loops they do not depend on, and
// HoistToTemporaries.cpp takes its candidates from them.
//
//===----------------------------------------------------------------------===//
#include "ExprLowering.h"

#include "comprehend/tc/ExprVisitor.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// Finds the invariant subexpressions of one right-hand side.
class InvariantFinder : public ConstExprVisitor<InvariantFinder, bool> {
public:
  InvariantFinder(const DefContext &def, const llvm::StringSet<> &variant,
                  const llvm::StringSet<> &written,
                  llvm::SmallVectorImpl<const Expr *> &out,
                  bool hoistReads = false)
      : def(def), variant(variant), written(written), out(out),
        hoistReads(hoistReads) {}

  // visit(expr): whether \p expr is invariant; collects the largest
  // invariant subexpressions below a variant one.

  /// An operator (or a literal): invariant where its operands are.
  bool visitExpr(const Expr &expr) {
    llvm::SmallVector<const Expr *, 3> operands;
    forEachOperand(expr,
                   [&](const Expr &operand) { operands.push_back(&operand); });
    bool invariant = true;
    llvm::SmallVector<bool, 3> invariants;
    for (const Expr *operand : operands) {
      invariants.push_back(visit(*operand));
      invariant &= invariants.back();
    }
    if (!invariant)
      for (unsigned i = 0; i < operands.size(); ++i)
        if (invariants[i] && worthHoisting(*operands[i]))
          out.push_back(operands[i]);
    return invariant;
  }
  bool visitIdent(const IdentExpr &ident) {
    switch (ident.getRef()) {
    case IdentExpr::Ref::Index:
      return !variant.contains(ident.getName());
    case IdentExpr::Ref::Size:
      return true;
    case IdentExpr::Ref::Tensor:
      return !written.contains(def.resolve(ident.getName()));
    default:
      return false;
    }
  }
  bool visitApply(const ApplyExpr &apply) {
    if (!apply.isTensorRead())
      return visitExpr(apply);
    // A read's subscripts are index expressions, never hoisted alone.
    if (written.contains(def.resolve(apply.getCallee().name)))
      return false;
    for (const ExprPtr &arg : apply.getArgs())
      if (!isInvariantIndex(*arg))
        return false;
    return true;
  }

  /// Whether hoisting \p expr saves work: it applies an operator, or it
  /// reads a tensor and reads count.
  bool worthHoisting(const Expr &expr) const {
    return computes(expr) || (hoistReads && isRead(expr));
  }

private:
  bool isInvariantIndex(const Expr &expr) {
    llvm::SmallVector<const Expr *, 4> ignored;
    return InvariantFinder(def, variant, written, ignored).visit(expr);
  }
  static bool isRead(const Expr &expr) {
    if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr))
      return apply->isTensorRead();
    const auto *ident = llvm::dyn_cast<IdentExpr>(&expr);
    return ident && ident->getRef() == IdentExpr::Ref::Tensor;
  }
  /// Whether \p expr applies an operator.
  static bool computes(const Expr &expr) {
    if (const auto *cast = llvm::dyn_cast<CastExpr>(&expr))
      return computes(cast->getOperand());
    if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr))
      return !apply->isTensorRead();
    return llvm::isa<UnaryExpr, BinaryExpr, TernaryExpr>(expr);
  }

  const DefContext &def;
  const llvm::StringSet<> &variant, &written;
  llvm::SmallVectorImpl<const Expr *> &out;
  bool hoistReads;
};

} // namespace

void lowering::collectInvariantSubexprs(
    const DefContext &def, const StmtContext &stmt,
    const llvm::StringSet<> &variant, const llvm::StringSet<> &written,
    llvm::SmallVectorImpl<const Expr *> &out, bool hoistReads) {
  InvariantFinder finder(def, variant, written, out, hoistReads);
  const Expr &rhs = stmt.stmt.getRhs();
  if (finder.visit(rhs) && finder.worthHoisting(rhs))
    out.push_back(&rhs);
}
