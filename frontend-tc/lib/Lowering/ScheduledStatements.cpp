//===- ScheduledStatements.cpp - Statements as the scheduler sees them ----===//
//
// A statement of a def becomes a poly::ScheduledStatement: concrete bounds
// per index variable and every tensor read with its subscripts as
// IndexExprs. Sizes are constants here; a subscript isl cannot analyse (a
// data-dependent one such as gather's `idx(l)`) becomes Opaque over the
// index variables it uses, which the statement model treats as "may touch
// any element".
//
//===----------------------------------------------------------------------===//
#include "DefLowering.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using poly::IndexExpr;

namespace {

/// Converts subscript \p expr to an IndexExpr over index variables; sizes
/// are constants here. What isl cannot analyse becomes Opaque over the index
/// variables it uses, which the model treats as "may touch anything".
IndexExpr toIndexExpr(const Expr &expr, const llvm::StringMap<int64_t> &sizes);

void collectVars(const Expr &expr, llvm::SmallVectorImpl<std::string> &vars) {
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() == IdentExpr::Ref::Index &&
        !llvm::is_contained(vars, ident->getName()))
      vars.push_back(ident->getName().str());
    if (ident->getRef() == IdentExpr::Ref::Let && ident->getLet())
      collectVars(ident->getLet()->getValue(), vars);
    return;
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    return collectVars(unary->getOperand(), vars);
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    collectVars(binary->getLhs(), vars);
    return collectVars(binary->getRhs(), vars);
  }
  if (const auto *ternary = llvm::dyn_cast<TernaryExpr>(&expr)) {
    collectVars(ternary->getCond(), vars);
    collectVars(ternary->getTrueValue(), vars);
    return collectVars(ternary->getFalseValue(), vars);
  }
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr)) {
    for (const ExprPtr &arg : apply->getArgs())
      collectVars(*arg, vars);
    return;
  }
  if (const auto *cast = llvm::dyn_cast<CastExpr>(&expr))
    return collectVars(cast->getOperand(), vars);
}

IndexExpr opaqueOf(const Expr &expr) {
  llvm::SmallVector<std::string, 4> vars;
  collectVars(expr, vars);
  return IndexExpr::opaque(vars);
}

IndexExpr toIndexExpr(const Expr &expr, const llvm::StringMap<int64_t> &sizes) {
  if (const auto *literal = llvm::dyn_cast<IntLitExpr>(&expr))
    return IndexExpr::constant(literal->getValue());
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    switch (ident->getRef()) {
    case IdentExpr::Ref::Index:
      return IndexExpr::var(ident->getName());
    case IdentExpr::Ref::Size:
      if (sizes.count(ident->getName()))
        return IndexExpr::constant(sizes.lookup(ident->getName()));
      return opaqueOf(expr);
    case IdentExpr::Ref::Let:
      if (ident->getLet())
        return toIndexExpr(ident->getLet()->getValue(), sizes);
      return opaqueOf(expr);
    default:
      return opaqueOf(expr);
    }
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    if (unary->getOp() == UnaryOp::Neg)
      return IndexExpr::neg(toIndexExpr(unary->getOperand(), sizes));
  const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return opaqueOf(expr);
  IndexExpr lhs = toIndexExpr(binary->getLhs(), sizes);
  IndexExpr rhs = toIndexExpr(binary->getRhs(), sizes);
  using Kind = IndexExpr::Kind;
  auto isConstant = [](const IndexExpr &e) {
    return e.getKind() == Kind::Constant;
  };
  switch (binary->getOp()) {
  case BinaryOp::Add:
    return IndexExpr::binary(Kind::Add, lhs, rhs);
  case BinaryOp::Sub:
    return IndexExpr::binary(Kind::Sub, lhs, rhs);
  case BinaryOp::Min:
    return IndexExpr::binary(Kind::Min, lhs, rhs);
  case BinaryOp::Max:
    return IndexExpr::binary(Kind::Max, lhs, rhs);
  case BinaryOp::Mul:
    if (isConstant(lhs) || isConstant(rhs))
      return IndexExpr::binary(Kind::Mul, lhs, rhs);
    break;
  case BinaryOp::Div:
    if (isConstant(rhs) && rhs.getValue() > 0)
      return IndexExpr::binary(Kind::FloorDiv, lhs, rhs);
    break;
  case BinaryOp::Mod:
    if (isConstant(rhs) && rhs.getValue() > 0)
      return IndexExpr::binary(Kind::Mod, lhs, rhs);
    break;
  default:
    break;
  }
  return opaqueOf(expr);
}

/// Collects every tensor read of \p expr (subscript reads included).
void collectAccesses(const Expr &expr, const llvm::StringMap<int64_t> &sizes,
                     llvm::SmallVectorImpl<poly::TensorAccess> &accesses) {
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() == IdentExpr::Ref::Tensor) {
      poly::TensorAccess access;
      access.tensor = ident->getName().str();
      access.loc = ident->getLoc();
      accesses.push_back(std::move(access));
    }
    if (ident->getRef() == IdentExpr::Ref::Let && ident->getLet())
      collectAccesses(ident->getLet()->getValue(), sizes, accesses);
    return;
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    return collectAccesses(unary->getOperand(), sizes, accesses);
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    collectAccesses(binary->getLhs(), sizes, accesses);
    return collectAccesses(binary->getRhs(), sizes, accesses);
  }
  if (const auto *ternary = llvm::dyn_cast<TernaryExpr>(&expr)) {
    collectAccesses(ternary->getCond(), sizes, accesses);
    collectAccesses(ternary->getTrueValue(), sizes, accesses);
    return collectAccesses(ternary->getFalseValue(), sizes, accesses);
  }
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr)) {
    if (apply->isTensorRead()) {
      poly::TensorAccess access;
      access.tensor = apply->getCallee().name.str();
      access.loc = apply->getLoc();
      for (const ExprPtr &arg : apply->getArgs()) {
        access.subscripts.push_back(toIndexExpr(*arg, sizes));
        access.subscriptLocs.push_back(arg->getLoc());
      }
      accesses.push_back(std::move(access));
    }
    for (const ExprPtr &arg : apply->getArgs())
      collectAccesses(*arg, sizes, accesses);
    return;
  }
  if (const auto *cast = llvm::dyn_cast<CastExpr>(&expr))
    return collectAccesses(cast->getOperand(), sizes, accesses);
}

} // namespace

poly::ScheduledStatement lowering::toScheduled(const DefContext &def,
                                               const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  const llvm::StringMap<int64_t> &sizes =
      stmt.scope ? stmt.scope->sizes : def.sizes;
  poly::ScheduledStatement result;
  result.lhsTensor = def.resolve(comp.getLhs().name).str();
  for (const Ident &index : comp.getIndices())
    result.lhsIndices.push_back(index.name.str());
  for (const IndexRange &range : stmt.ranges) {
    result.iterators.push_back(range.var);
    result.lo.push_back(IndexExpr::constant(range.lo));
    result.hi.push_back(IndexExpr::constant(range.hi));
  }
  collectAccesses(comp.getRhs(), sizes, result.reads);
  for (const WhereClause &where : comp.getWheres())
    if (where.getKind() == WhereClause::Kind::Exists)
      collectAccesses(where.getValue(), sizes, result.reads);
  for (poly::TensorAccess &access : result.reads)
    access.tensor = def.resolve(access.tensor).str();
  result.readsLhs =
      comp.getReduction() != ReductionKind::None && !comp.hasInit();
  result.reduction = comp.getReduction() != ReductionKind::None;
  result.hasInit = comp.hasInit();
  return result;
}
