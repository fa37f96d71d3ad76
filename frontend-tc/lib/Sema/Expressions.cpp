//===- Expressions.cpp - Sema: types of expressions -----------------------===//
#include "Checker.h"
#include "comprehend/tc/Builtins.h"
#include "comprehend/tc/ExprVisitor.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::sema;

LogicalResult DefChecker::expectBool(const Expr &expr) {
  if (expr.getType() == ScalarType::Bool)
    return success();
  return error(expr.getLoc())
         << "expected boolean but found " << quoted(expr.getType());
}

LogicalResult DefChecker::checkApply(ApplyExpr &apply, StmtScope &scope,
                                     ExprContext context) {
  const Ident &callee = apply.getCallee();
  auto checkArgs = [&](ExprContext argContext) {
    bool ok = true;
    for (const ExprPtr &arg : apply.getArgs())
      ok &= succeeded(checkExpr(*arg, scope, argContext));
    return success(ok);
  };
  if (std::optional<unsigned> arity = getBuiltinArity(callee.name)) {
    if (failed(checkArgs(context)))
      return failure();
    if (apply.getArgs().size() != *arity)
      return error(apply.getLoc())
             << "'" << callee.name << "' expects " << plural(*arity, "argument")
             << " but found " << apply.getArgs().size();
    ScalarType type = ScalarType::Float;
    for (const ExprPtr &arg : apply.getArgs())
      type = promote(type, arg->getType());
    apply.setTarget(ApplyExpr::Target::Builtin);
    apply.setType(type);
    return success();
  }
  llvm::StringRef scalarKind =
      scope.indexLocs.count(callee.name) ? "index variable"
      : scope.lets.count(callee.name)    ? "'where' binding"
      : sizeVars.count(callee.name)      ? "size variable"
                                         : "";
  if (!scalarKind.empty())
    return error(callee.loc) << "expected a tensor but found " << scalarKind
                             << " '" << callee.name << "'";
  if (!def.lookupTensor(callee.name)) {
    if (poisoned.contains(callee.name))
      return failure();
    if (program.lookup(callee.name))
      return error(apply.getLoc())
             << "'" << callee.name
             << "' is a function; call it in a statement of its own, e.g. "
                "'a = "
             << callee.name << "(x)'";
    return error(callee.loc)
           << "undefined tensor or function '" << callee.name << "'";
  }
  if (context == ExprContext::Bound)
    return error(apply.getLoc())
           << "tensor accesses cannot be used in a range bound";
  const TensorInfo *info = lookupReadable(callee);
  if (!info || failed(checkArgs(ExprContext::Value)))
    return failure();
  if (apply.getArgs().size() != info->rank)
    return error(apply.getLoc())
           << "expected " << plural(info->rank, "subscript") << " for '"
           << callee.name << "' but found " << apply.getArgs().size();
  bool ok = true;
  for (const ExprPtr &arg : apply.getArgs())
    if (!isIntegral(arg->getType())) {
      error(arg->getLoc()) << "expected integral type but found "
                           << quoted(arg->getType()) << " in a subscript of '"
                           << callee.name << "'";
      ok = false;
    }
  apply.setTarget(ApplyExpr::Target::Tensor);
  apply.setType(info->type);
  return success(ok);
}

static bool isComparison(BinaryOp op) {
  switch (op) {
  case BinaryOp::Less:
  case BinaryOp::Greater:
  case BinaryOp::LessEqual:
  case BinaryOp::GreaterEqual:
  case BinaryOp::Equal:
  case BinaryOp::NotEqual:
    return true;
  default:
    return false;
  }
}

namespace comprehend::tc::sema {

/// Types one expression of a statement in \p scope and \p context (the
/// arguments of a read are checked by DefChecker::checkApply in theirs).
class ExprChecker : public ExprVisitor<ExprChecker, LogicalResult> {
public:
  ExprChecker(DefChecker &checker, StmtScope &scope, ExprContext context)
      : checker(checker), scope(scope), context(context) {}

  LogicalResult visitIntLit(IntLitExpr &) { return success(); }
  LogicalResult visitFloatLit(FloatLitExpr &) { return success(); }
  LogicalResult visitIdent(IdentExpr &ident) {
    return checker.checkIdent(ident, scope, context);
  }
  LogicalResult visitApply(ApplyExpr &apply) {
    return checker.checkApply(apply, scope, context);
  }
  LogicalResult visitCast(CastExpr &cast) { return visit(cast.getOperand()); }
  LogicalResult visitDimAccess(DimAccessExpr &dim) {
    const TensorInfo *info = checker.lookupReadable(dim.getTensor());
    if (!info)
      return failure();
    if (dim.getDim() < 0 || dim.getDim() >= static_cast<int64_t>(info->rank))
      return checker.error(dim.getLoc())
             << "dimension " << dim.getDim() << " of '" << dim.getTensor().name
             << "' does not exist: '" << dim.getTensor().name << "' has "
             << plural(info->rank, "dimension");
    dim.setType(ScalarType::Int32);
    return success();
  }
  LogicalResult visitUnary(UnaryExpr &unary) {
    if (failed(visit(unary.getOperand())))
      return failure();
    if (unary.getOp() == UnaryOp::Not) {
      unary.setType(ScalarType::Bool);
      return checker.expectBool(unary.getOperand());
    }
    unary.setType(unary.getOperand().getType());
    return success();
  }
  LogicalResult visitBinary(BinaryExpr &binary) {
    bool ok = succeeded(visit(binary.getLhs()));
    ok &= succeeded(visit(binary.getRhs()));
    if (!ok)
      return failure();
    BinaryOp op = binary.getOp();
    if (op == BinaryOp::And || op == BinaryOp::Or) {
      binary.setType(ScalarType::Bool);
      ok = succeeded(checker.expectBool(binary.getLhs()));
      ok &= succeeded(checker.expectBool(binary.getRhs()));
      return success(ok);
    }
    ScalarType type =
        promote(binary.getLhs().getType(), binary.getRhs().getType());
    binary.setType(isComparison(op) ? ScalarType::Bool : type);
    return success();
  }
  LogicalResult visitTernary(TernaryExpr &ternary) {
    bool ok = succeeded(visit(ternary.getCond()));
    ok &= succeeded(visit(ternary.getTrueValue()));
    ok &= succeeded(visit(ternary.getFalseValue()));
    if (!ok || failed(checker.expectBool(ternary.getCond())))
      return failure();
    ternary.setType(promote(ternary.getTrueValue().getType(),
                            ternary.getFalseValue().getType()));
    return success();
  }

private:
  DefChecker &checker;
  StmtScope &scope;
  ExprContext context;
};

} // namespace comprehend::tc::sema

LogicalResult DefChecker::checkExpr(Expr &expr, StmtScope &scope,
                                    ExprContext context) {
  return ExprChecker(*this, scope, context).visit(expr);
}
