//===- GradRules.h - Derivative rules of TC expressions ---------*- C++ -*-===//
//
// Reverse mode over one right-hand side: the adjoint that reaches a set of
// reads (the Rewriter's targets) from the adjoint of the whole expression,
// as TC text. Conditions, integer values and subscripts carry no gradient.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_GRADRULES_H
#define COMPREHEND_TC_GRADRULES_H

#include "GradTerms.h"

#include "comprehend/ir/Diagnostics.h"

namespace comprehend::tc::grad {

class Differentiator {
public:
  /// \p rootValue, when not empty, is the saved value of \p root (the
  /// statement's output element), used instead of recomputing it.
  Differentiator(Rewriter &rewriter, DiagnosticEngine &diags, const Expr *root,
                 Term rootValue)
      : rewriter(rewriter), diags(diags), root(root),
        rootValue(std::move(rootValue)) {}

  /// The adjoint reaching the targets inside \p expr when \p adjoint
  /// reaches \p expr; 0 when none is inside.
  Term propagate(const Expr &expr, const Term &adjoint);
  /// Whether a builtin without a derivative rule was on the way (reported).
  bool hasFailed() const { return failed; }
  /// Whether the saved value of the root was used.
  bool usedRootValue() const { return usedRoot; }

private:
  bool containsTarget(const Expr &expr) const;
  Term value(const Expr &expr);
  Term propagateBinary(const BinaryExpr &binary, const Term &adjoint);
  Term propagateBuiltin(const ApplyExpr &apply, const Term &adjoint);
  Term propagateExtremum(const Expr &a, const Expr &b, bool isMax,
                         bool splitTies, const Term &adjoint);

  Rewriter &rewriter;
  DiagnosticEngine &diags;
  const Expr *root;
  Term rootValue;
  bool failed = false;
  bool usedRoot = false;
};

/// The partial derivatives of builtin \p name at \p args whose value is
/// \p result, one per argument; empty if TC has no way to write one
/// (lgamma, tgamma: their derivative needs digamma).
std::vector<Term> getBuiltinPartials(llvm::StringRef name,
                                     llvm::ArrayRef<Term> args,
                                     const Term &result);

} // namespace comprehend::tc::grad

#endif // COMPREHEND_TC_GRADRULES_H
