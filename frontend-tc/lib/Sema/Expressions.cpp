//===- Expressions.cpp - Sema: types of expressions -----------------------===//
#include "Checker.h"
#include "comprehend/tc/Builtins.h"

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

LogicalResult DefChecker::checkExpr(Expr &expr, StmtScope &scope,
                                    ExprContext context) {
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
    return success();
  case Expr::Kind::Ident:
    return checkIdent(llvm::cast<IdentExpr>(expr), scope, context);
  case Expr::Kind::DimAccess: {
    auto &dim = llvm::cast<DimAccessExpr>(expr);
    const TensorInfo *info = lookupReadable(dim.getTensor());
    if (!info)
      return failure();
    if (dim.getDim() < 0 || dim.getDim() >= static_cast<int64_t>(info->rank))
      return error(expr.getLoc())
             << "dimension " << dim.getDim() << " of '" << dim.getTensor().name
             << "' does not exist: '" << dim.getTensor().name << "' has "
             << plural(info->rank, "dimension");
    expr.setType(ScalarType::Int32);
    return success();
  }
  case Expr::Kind::Unary: {
    auto &unary = llvm::cast<UnaryExpr>(expr);
    if (failed(checkExpr(unary.getOperand(), scope, context)))
      return failure();
    if (unary.getOp() == UnaryOp::Not) {
      expr.setType(ScalarType::Bool);
      return expectBool(unary.getOperand());
    }
    expr.setType(unary.getOperand().getType());
    return success();
  }
  case Expr::Kind::Binary: {
    auto &binary = llvm::cast<BinaryExpr>(expr);
    bool ok = succeeded(checkExpr(binary.getLhs(), scope, context));
    ok &= succeeded(checkExpr(binary.getRhs(), scope, context));
    if (!ok)
      return failure();
    BinaryOp op = binary.getOp();
    if (op == BinaryOp::And || op == BinaryOp::Or) {
      expr.setType(ScalarType::Bool);
      ok = succeeded(expectBool(binary.getLhs()));
      ok &= succeeded(expectBool(binary.getRhs()));
      return success(ok);
    }
    ScalarType type =
        promote(binary.getLhs().getType(), binary.getRhs().getType());
    expr.setType(isComparison(op) ? ScalarType::Bool : type);
    return success();
  }
  case Expr::Kind::Ternary: {
    auto &ternary = llvm::cast<TernaryExpr>(expr);
    bool ok = succeeded(checkExpr(ternary.getCond(), scope, context));
    ok &= succeeded(checkExpr(ternary.getTrueValue(), scope, context));
    ok &= succeeded(checkExpr(ternary.getFalseValue(), scope, context));
    if (!ok || failed(expectBool(ternary.getCond())))
      return failure();
    expr.setType(promote(ternary.getTrueValue().getType(),
                         ternary.getFalseValue().getType()));
    return success();
  }
  case Expr::Kind::Apply:
    return checkApply(llvm::cast<ApplyExpr>(expr), scope, context);
  case Expr::Kind::Cast:
    return checkExpr(llvm::cast<CastExpr>(expr).getOperand(), scope, context);
  }
  return failure();
}
