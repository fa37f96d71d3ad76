//===- ExprVisitor.h - Dispatch over and walks of TC expressions -*- C++
//-*-===//
//
// The one place that switches over Expr::Kind to reach the node classes:
//
//  - ExprVisitor / ConstExprVisitor<Derived, RetTy, ArgTys...>: CRTP
//    dispatch from visit() to visitIntLit .. visitCast, each of which
//    defaults to visitExpr. For code with semantics per kind: printing,
//    Sema, evaluation, lowering, conversion to index expressions.
//  - forEachOperand: the operands of one node, in source order.
//  - walk: every node of a tree, pre- or post-order, optionally only those
//    of one node class; the callback may skip a subtree or stop the walk
//    (WalkResult). For code that only looks for something: the tensors an
//    expression reads, the indices it uses.
//
// A `where` let that a name refers to is not an operand of the name: code
// that looks through lets does so itself (IdentExpr::getLet).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_EXPRVISITOR_H
#define COMPREHEND_TC_EXPRVISITOR_H

#include "comprehend/tc/AST.h"

#include "llvm/Support/ErrorHandling.h"

#include <type_traits>

namespace comprehend::tc {

/// The dispatch of ExprVisitor (IsConst false) and ConstExprVisitor.
template <bool IsConst, typename Derived, typename RetTy, typename... ArgTys>
class ExprVisitorBase {
  template <typename T> using Ref = std::conditional_t<IsConst, const T &, T &>;

public:
  RetTy visit(Ref<Expr> expr, ArgTys... args) {
    Derived &self = static_cast<Derived &>(*this);
    switch (expr.getKind()) {
    case Expr::Kind::IntLit:
      return self.visitIntLit(llvm::cast<IntLitExpr>(expr), args...);
    case Expr::Kind::FloatLit:
      return self.visitFloatLit(llvm::cast<FloatLitExpr>(expr), args...);
    case Expr::Kind::Ident:
      return self.visitIdent(llvm::cast<IdentExpr>(expr), args...);
    case Expr::Kind::DimAccess:
      return self.visitDimAccess(llvm::cast<DimAccessExpr>(expr), args...);
    case Expr::Kind::Unary:
      return self.visitUnary(llvm::cast<UnaryExpr>(expr), args...);
    case Expr::Kind::Binary:
      return self.visitBinary(llvm::cast<BinaryExpr>(expr), args...);
    case Expr::Kind::Ternary:
      return self.visitTernary(llvm::cast<TernaryExpr>(expr), args...);
    case Expr::Kind::Apply:
      return self.visitApply(llvm::cast<ApplyExpr>(expr), args...);
    case Expr::Kind::Cast:
      return self.visitCast(llvm::cast<CastExpr>(expr), args...);
    }
    llvm_unreachable("unknown expression kind");
  }

  /// What the node visitors a Derived class does not define return.
  RetTy visitExpr(Ref<Expr>, ArgTys...) { return RetTy(); }

#define COMPREHEND_TC_DEFAULT_VISIT(Kind)                                      \
  RetTy visit##Kind(Ref<Kind##Expr> expr, ArgTys... args) {                    \
    return static_cast<Derived &>(*this).visitExpr(expr, args...);             \
  }
  COMPREHEND_TC_DEFAULT_VISIT(IntLit)
  COMPREHEND_TC_DEFAULT_VISIT(FloatLit)
  COMPREHEND_TC_DEFAULT_VISIT(Ident)
  COMPREHEND_TC_DEFAULT_VISIT(DimAccess)
  COMPREHEND_TC_DEFAULT_VISIT(Unary)
  COMPREHEND_TC_DEFAULT_VISIT(Binary)
  COMPREHEND_TC_DEFAULT_VISIT(Ternary)
  COMPREHEND_TC_DEFAULT_VISIT(Apply)
  COMPREHEND_TC_DEFAULT_VISIT(Cast)
#undef COMPREHEND_TC_DEFAULT_VISIT
};

/// Visits mutable expressions (Sema fills in types).
template <typename Derived, typename RetTy = void, typename... ArgTys>
using ExprVisitor = ExprVisitorBase<false, Derived, RetTy, ArgTys...>;
/// Visits const expressions.
template <typename Derived, typename RetTy = void, typename... ArgTys>
using ConstExprVisitor = ExprVisitorBase<true, Derived, RetTy, ArgTys...>;

namespace detail {
/// Calls a function on each operand of the node it visits.
template <bool IsConst, typename Fn>
class OperandVisitor
    : public ExprVisitorBase<IsConst, OperandVisitor<IsConst, Fn>, void> {
  template <typename T> using Ref = std::conditional_t<IsConst, const T &, T &>;

public:
  explicit OperandVisitor(Fn &fn) : fn(fn) {}
  void visitUnary(Ref<UnaryExpr> unary) { fn(unary.getOperand()); }
  void visitCast(Ref<CastExpr> cast) { fn(cast.getOperand()); }
  void visitBinary(Ref<BinaryExpr> binary) {
    fn(binary.getLhs());
    fn(binary.getRhs());
  }
  void visitTernary(Ref<TernaryExpr> ternary) {
    fn(ternary.getCond());
    fn(ternary.getTrueValue());
    fn(ternary.getFalseValue());
  }
  void visitApply(Ref<ApplyExpr> apply) {
    for (const ExprPtr &arg : apply.getArgs())
      fn(static_cast<Ref<Expr>>(*arg));
  }

private:
  Fn &fn;
};
} // namespace detail

/// Calls \p fn on each operand of \p expr in source order: the operand of a
/// unary or a cast, the two sides of a binary, the condition and the two
/// values of `?:`, the arguments of an application. Literals, names and
/// `T.d` have none.
template <typename Fn> void forEachOperand(const Expr &expr, Fn &&fn) {
  detail::OperandVisitor<true, Fn>(fn).visit(expr);
}
template <typename Fn> void forEachOperand(Expr &expr, Fn &&fn) {
  detail::OperandVisitor<false, Fn>(fn).visit(expr);
}

/// What a walk callback asks for: go on, leave out the operands of the
/// node just visited (pre-order only), or stop the walk.
class WalkResult {
public:
  static WalkResult advance() { return WalkResult(Advance); }
  static WalkResult skip() { return WalkResult(Skip); }
  static WalkResult interrupt() { return WalkResult(Interrupt); }
  bool wasInterrupted() const { return result == Interrupt; }
  bool wasSkipped() const { return result == Skip; }

private:
  enum Result { Advance, Skip, Interrupt };
  explicit WalkResult(Result result) : result(result) {}
  Result result;
};

enum class WalkOrder { PreOrder, PostOrder };

namespace detail {
template <typename NodeT, typename Fn>
WalkResult callWalkFn(const Expr &expr, Fn &fn) {
  const auto *node = llvm::dyn_cast<NodeT>(&expr);
  if (!node)
    return WalkResult::advance();
  if constexpr (std::is_void_v<std::invoke_result_t<Fn &, const NodeT &>>) {
    fn(*node);
    return WalkResult::advance();
  } else {
    return fn(*node);
  }
}
} // namespace detail

/// Calls \p fn on every node of the tree \p root of class \p NodeT (every
/// node by default), parents before operands (PreOrder) or after. \p fn
/// takes `const NodeT &` and returns void or a WalkResult. Returns
/// interrupt() where \p fn stopped the walk.
template <typename NodeT = Expr, typename Fn>
WalkResult walk(const Expr &root, Fn &&fn,
                WalkOrder order = WalkOrder::PreOrder) {
  if (order == WalkOrder::PreOrder) {
    WalkResult result = detail::callWalkFn<NodeT>(root, fn);
    if (result.wasInterrupted())
      return result;
    if (result.wasSkipped())
      return WalkResult::advance();
  }
  bool interrupted = false;
  forEachOperand(root, [&](const Expr &operand) {
    if (!interrupted)
      interrupted = walk<NodeT>(operand, fn, order).wasInterrupted();
  });
  if (interrupted)
    return WalkResult::interrupt();
  if (order == WalkOrder::PostOrder &&
      detail::callWalkFn<NodeT>(root, fn).wasInterrupted())
    return WalkResult::interrupt();
  return WalkResult::advance();
}

/// Calls \p fn with each read of a tensor in \p expr and the tensor's name:
/// `T(i, j)` (an ApplyExpr) and `T` of a 0-d tensor (an IdentExpr), in
/// pre-order; not `T.d`, which reads an extent. With \p throughLets, also
/// those in the values of the `where` lets that names of \p expr refer to.
template <typename Fn>
void forEachTensorRead(const Expr &expr, Fn &&fn, bool throughLets = false) {
  walk(expr, [&](const Expr &node) {
    if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&node)) {
      if (apply->isTensorRead())
        fn(node, apply->getCallee().name);
      return;
    }
    const auto *ident = llvm::dyn_cast<IdentExpr>(&node);
    if (!ident)
      return;
    if (ident->getRef() == IdentExpr::Ref::Tensor)
      fn(node, ident->getName());
    if (throughLets && ident->getRef() == IdentExpr::Ref::Let &&
        ident->getLet())
      forEachTensorRead(ident->getLet()->getValue(), fn, throughLets);
  });
}

} // namespace comprehend::tc

#endif // COMPREHEND_TC_EXPRVISITOR_H
