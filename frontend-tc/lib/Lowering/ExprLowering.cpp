//===- ExprLowering.cpp - TC expressions inside an SPMD body --------------===//
#include "ExprLowering.h"

#include "comprehend/tc/ExprVisitor.h"

#include <cmath>
#include <limits>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

ir::Value *ExprLowerer::constant(Location loc, ScalarType type, double value) {
  const ir::Type *irType = getIrType(ctx, type);
  if (type == ScalarType::Bool)
    return b.createConstant(loc, value != 0, irType);
  if (isFloatingPoint(type))
    return b.createConstant(loc, value, irType);
  return b.createConstant(loc, static_cast<int64_t>(value), irType);
}

/// The type arithmetic on \p type runs in: a bool's number is an int32.
static ScalarType arithmeticType(ScalarType type) {
  return type == ScalarType::Bool ? ScalarType::Int32 : type;
}

ir::Value *ExprLowerer::convert(ir::Value *value, ScalarType from,
                                ScalarType to, Location loc) {
  if (!value)
    return nullptr;
  std::optional<ir::ScalarKind> fromKind = toIrScalarKind(from);
  std::optional<ir::ScalarKind> toKind = toIrScalarKind(to);
  if (fromKind == toKind)
    return value;
  // TC's bool is an unsigned one-bit integer (tc-frontend-notes.md, section
  // 5): true is 1 as a number, and a number is true where it is not 0, as
  // the reference evaluator converts (Evaluator.cpp, convertTo).
  if (from == ScalarType::Bool && toKind)
    return b
        .create<ir::SelectInst>(loc, value, constant(loc, to, 1),
                                constant(loc, to, 0))
        ->getResult(0);
  if (to == ScalarType::Bool && fromKind)
    return create<ir::NotEqualInst>(loc, value, constant(loc, from, 0));
  if (!fromKind || !toKind)
    return fail(loc, "conversion between '" + getSpelling(from) + "' and '" +
                         getSpelling(to) + "' cannot be lowered yet");
  return b.create<ir::CastInst>(loc, ir::ScalarType::get(ctx, *toKind), value)
      ->getResult(0);
}

ir::Value *ExprLowerer::lowerValueAs(const Expr &expr, ScalarType type) {
  if (type != ScalarType::Bool) {
    if (const auto *literal = llvm::dyn_cast<IntLitExpr>(&expr))
      return constant(expr.getLoc(), type, literal->getValue());
    if (const auto *literal = llvm::dyn_cast<FloatLitExpr>(&expr))
      return constant(expr.getLoc(), type, literal->getValue());
  }
  return convert(lowerValue(expr), expr.getType(), type, expr.getLoc());
}

ir::Value *ExprLowerer::lowerIndex(const Expr &expr) {
  Location loc = expr.getLoc();
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
    return indexConstant(loc, llvm::cast<IntLitExpr>(expr).getValue());
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    if (ident.getRef() == IdentExpr::Ref::Index) {
      if (ir::Value *value = indices.lookup(ident.getName()))
        return value;
      return fail(loc, "index '" + ident.getName() + "' is not bound");
    }
    if (ident.getRef() == IdentExpr::Ref::Size)
      return indexConstant(loc, def.getSize(ident.getName()));
    if (ident.getRef() == IdentExpr::Ref::Let && ident.getLet())
      return lowerIndex(ident.getLet()->getValue());
    break;
  }
  case Expr::Kind::Unary: {
    const auto &unary = llvm::cast<UnaryExpr>(expr);
    if (unary.getOp() == UnaryOp::Neg) {
      ir::Value *operand = lowerIndex(unary.getOperand());
      return operand ? create<ir::NegInst>(loc, operand) : nullptr;
    }
    break;
  }
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    if (!isIntegral(binary.getType()) || binary.getType() == ScalarType::Bool)
      break;
    ir::Value *lhs = lowerIndex(binary.getLhs());
    ir::Value *rhs = lowerIndex(binary.getRhs());
    if (!lhs || !rhs)
      return nullptr;
    // Integral, non-bool results come only from arithmetic operators.
    if (ir::Value *result = createBinary(binary.getOp(), loc, lhs, rhs))
      return result;
    break;
  }
  default:
    break;
  }
  // Anything else (a tensor read in a subscript, a cast, ...) is computed
  // as a value and converted.
  if (!isIntegral(expr.getType()))
    return fail(loc, "subscript of type '" + getSpelling(expr.getType()) +
                         "' cannot be lowered; subscripts are integers");
  ir::Value *value = lowerValueAs(expr, arithmeticType(expr.getType()));
  if (!value)
    return nullptr;
  return b.create<ir::CastInst>(loc, b.getIndexType(), value)->getResult(0);
}

std::optional<llvm::SmallVector<ir::Value *, 4>>
ExprLowerer::lowerSubscripts(const TensorBinding &tensor,
                             llvm::ArrayRef<ExprPtr> args, Location loc) {
  llvm::SmallVector<ir::Value *, 4> result(args.size());
  // Memref modes are the TC dimensions reversed.
  for (unsigned d = 0; d < args.size(); ++d) {
    ir::Value *index = lowerIndex(*args[d]);
    if (!index)
      return std::nullopt;
    result[args.size() - 1 - d] = toMemRefIndex(tensor, d, index, loc);
  }
  return result;
}

ir::Value *ExprLowerer::toMemRefIndex(const TensorBinding &tensor, unsigned dim,
                                      ir::Value *index, Location loc) {
  // The group's own coordinate: the slice holds one element there.
  if (tensor.localFixedDims & (1u << dim))
    return indexConstant(loc, 0);
  if (int64_t lo = tensor.lowerBounds[dim])
    return create<ir::SubInst>(loc, index, indexConstant(loc, lo));
  return index;
}

llvm::SmallVector<ir::Value *, 4>
ExprLowerer::lowerLhsSubscripts(const TensorBinding &tensor) {
  llvm::ArrayRef<Ident> lhs = stmt.stmt.getIndices();
  llvm::SmallVector<ir::Value *, 4> result(lhs.size());
  for (unsigned d = 0; d < lhs.size(); ++d) {
    const Ident &index = lhs[d];
    result[lhs.size() - 1 - d] =
        toMemRefIndex(tensor, d, indices.lookup(index.name), index.loc);
  }
  return result;
}

namespace comprehend::tc::lowering {

/// ExprLowerer::lowerValue by kind.
class ValueLowering : public ConstExprVisitor<ValueLowering, ir::Value *> {
public:
  explicit ValueLowering(ExprLowerer &lowerer) : lowerer(lowerer) {}

  ir::Value *visitIntLit(const IntLitExpr &lit) {
    return lowerer.constant(lit.getLoc(), lit.getType(), lit.getValue());
  }
  ir::Value *visitFloatLit(const FloatLitExpr &lit) {
    return lowerer.constant(lit.getLoc(), lit.getType(), lit.getValue());
  }
  ir::Value *visitIdent(const IdentExpr &ident) {
    return lowerer.lowerIdent(ident);
  }
  ir::Value *visitDimAccess(const DimAccessExpr &access) {
    return lowerer.lowerDimAccess(access);
  }
  ir::Value *visitUnary(const UnaryExpr &unary) {
    return lowerer.lowerUnary(unary);
  }
  ir::Value *visitBinary(const BinaryExpr &binary) {
    return lowerer.lowerBinary(binary);
  }
  ir::Value *visitTernary(const TernaryExpr &ternary) {
    return lowerer.lowerTernary(ternary);
  }
  ir::Value *visitApply(const ApplyExpr &apply) {
    return lowerer.lowerApply(apply);
  }
  ir::Value *visitCast(const CastExpr &cast) {
    return lowerer.convert(lowerer.lowerValue(cast.getOperand()),
                           cast.getOperand().getType(), cast.getType(),
                           cast.getLoc());
  }

private:
  ExprLowerer &lowerer;
};

} // namespace comprehend::tc::lowering

ir::Value *ExprLowerer::lowerValue(const Expr &expr) {
  if (ir::Value *value = values.lookup(&expr))
    return value;
  return ValueLowering(*this).visit(expr);
}

ir::Value *ExprLowerer::lowerIdent(const IdentExpr &ident) {
  Location loc = ident.getLoc();
  ScalarType type = ident.getType();
  switch (ident.getRef()) {
  case IdentExpr::Ref::Index: {
    ir::Value *index = lowerIndex(ident);
    return index ? b.create<ir::CastInst>(loc, getIrType(ctx, type), index)
                       ->getResult(0)
                 : nullptr;
  }
  case IdentExpr::Ref::Size:
    return constant(loc, type, def.getSize(ident.getName()));
  case IdentExpr::Ref::Let:
    return ident.getLet() ? lowerValue(ident.getLet()->getValue()) : nullptr;
  case IdentExpr::Ref::Tensor: {
    const TensorBinding *tensor = def.lookup(ident.getName());
    if (!tensor)
      return fail(loc, "unknown tensor '" + ident.getName() + "'");
    return b
        .create<ir::LoadInst>(loc, tensor->memref,
                              llvm::ArrayRef<ir::Value *>{})
        ->getResult(0);
  }
  case IdentExpr::Ref::Unresolved:
    break;
  }
  return fail(loc, "unresolved name '" + ident.getName() + "'");
}

ir::Value *ExprLowerer::lowerDimAccess(const DimAccessExpr &access) {
  const TensorBinding *tensor = def.lookup(access.getTensor().name);
  if (!tensor || access.getDim() < 0 ||
      access.getDim() >= static_cast<int64_t>(tensor->shape.size()))
    return fail(access.getLoc(), "invalid dimension access");
  return constant(access.getLoc(), access.getType(),
                  tensor->shape[access.getDim()]);
}

ir::Value *ExprLowerer::lowerUnary(const UnaryExpr &unary) {
  Location loc = unary.getLoc();
  if (unary.getOp() == UnaryOp::Not) {
    ir::Value *operand = lowerValueAs(unary.getOperand(), ScalarType::Bool);
    return operand ? create<ir::NotInst>(loc, operand) : nullptr;
  }
  // The negation of a bool is computed on its number and converted back:
  // -true is -1, which is true.
  ScalarType type = arithmeticType(unary.getType());
  ir::Value *operand = lowerValueAs(unary.getOperand(), type);
  if (!operand)
    return nullptr;
  return convert(create<ir::NegInst>(loc, operand), type, unary.getType(), loc);
}

ir::Value *ExprLowerer::createBinary(BinaryOp op, Location loc, ir::Value *lhs,
                                     ir::Value *rhs) {
  switch (op) {
  case BinaryOp::Add:
    return create<ir::AddInst>(loc, lhs, rhs);
  case BinaryOp::Sub:
    return create<ir::SubInst>(loc, lhs, rhs);
  case BinaryOp::Mul:
    return create<ir::MulInst>(loc, lhs, rhs);
  // Range inference assumes floor semantics; the IR's div/rem truncate,
  // which agrees for the non-negative subscripts of in-bounds reads.
  case BinaryOp::Div:
    return create<ir::DivInst>(loc, lhs, rhs);
  case BinaryOp::Mod:
    return create<ir::RemInst>(loc, lhs, rhs);
  case BinaryOp::Min:
    return create<ir::MinInst>(loc, lhs, rhs);
  case BinaryOp::Max:
    return create<ir::MaxInst>(loc, lhs, rhs);
  case BinaryOp::Less:
    return create<ir::LessThanInst>(loc, lhs, rhs);
  case BinaryOp::Greater:
    return create<ir::GreaterThanInst>(loc, lhs, rhs);
  case BinaryOp::LessEqual:
    return create<ir::LessThanEqualInst>(loc, lhs, rhs);
  case BinaryOp::GreaterEqual:
    return create<ir::GreaterThanEqualInst>(loc, lhs, rhs);
  case BinaryOp::Equal:
    return create<ir::EqualInst>(loc, lhs, rhs);
  case BinaryOp::NotEqual:
    return create<ir::NotEqualInst>(loc, lhs, rhs);
  case BinaryOp::And:
    return create<ir::AndInst>(loc, lhs, rhs);
  case BinaryOp::Or:
    return create<ir::OrInst>(loc, lhs, rhs);
  }
  return nullptr;
}

ir::Value *ExprLowerer::lowerBinary(const BinaryExpr &expr) {
  Location loc = expr.getLoc();
  BinaryOp op = expr.getOp();
  bool isComparison = op >= BinaryOp::Less && op <= BinaryOp::NotEqual;
  // Operands are computed in the promoted type: the result type for
  // arithmetic, the common operand type for comparisons.
  // Arithmetic and comparisons on bools run on their numbers (the IR's
  // arithmetic and comparisons take numbers only); `&&` and `||` on bools.
  bool isLogical = op == BinaryOp::And || op == BinaryOp::Or;
  ScalarType operandType =
      isComparison ? promote(expr.getLhs().getType(), expr.getRhs().getType())
                   : expr.getType();
  if (!isLogical)
    operandType = arithmeticType(operandType);
  ir::Value *lhs = lowerValueAs(expr.getLhs(), operandType);
  ir::Value *rhs = lowerValueAs(expr.getRhs(), operandType);
  if (!lhs || !rhs)
    return nullptr;
  ir::Value *result = createBinary(op, loc, lhs, rhs);
  if (!result)
    return fail(loc, "operator cannot be lowered");
  return isComparison || isLogical
             ? result
             : convert(result, operandType, expr.getType(), loc);
}

ir::Value *ExprLowerer::lowerTernary(const TernaryExpr &expr) {
  Location loc = expr.getLoc();
  ir::Value *cond = lowerValue(expr.getCond());
  if (!cond)
    return nullptr;
  const ir::Type *type = getIrType(ctx, expr.getType());
  auto ifInst =
      b.create<ir::IfInst>(loc, llvm::ArrayRef<const ir::Type *>{type}, cond);
  ir::Region *outer = b.getInsertionRegion();
  auto branch = [&](ir::Region &region, const Expr &value) {
    b.setInsertionPointToEnd(region);
    ir::Value *result = lowerValueAs(value, expr.getType());
    if (result)
      b.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{result});
  };
  branch(ifInst.getThen(), expr.getTrueValue());
  branch(ifInst.getElse(), expr.getFalseValue());
  b.setInsertionPointToEnd(*outer);
  return failedOnce ? nullptr : ifInst->getResult(0);
}

ir::Value *ExprLowerer::lowerApply(const ApplyExpr &expr) {
  if (!expr.isTensorRead())
    return lowerBuiltin(expr);
  const TensorBinding *tensor = def.lookup(expr.getCallee().name);
  if (!tensor)
    return fail(expr.getLoc(),
                "unknown tensor '" + expr.getCallee().name + "'");
  std::optional<llvm::SmallVector<ir::Value *, 4>> subscripts =
      lowerSubscripts(*tensor, expr.getArgs(), expr.getLoc());
  if (!subscripts)
    return nullptr;
  return b.create<ir::LoadInst>(expr.getLoc(), tensor->memref, *subscripts)
      ->getResult(0);
}

ir::Value *ExprLowerer::lowerBuiltin(const ApplyExpr &expr) {
  Location loc = expr.getLoc();
  llvm::StringRef name = expr.getCallee().name;
  ScalarType type = expr.getType();
  if (!isFloatingPoint(type))
    return fail(loc, "builtin '" + name + "' on '" + getSpelling(type) +
                         "' cannot be lowered; convert its argument to float");
  llvm::SmallVector<ir::Value *, 2> args;
  for (const ExprPtr &arg : expr.getArgs()) {
    ir::Value *value = lowerValueAs(*arg, type);
    if (!value)
      return nullptr;
    args.push_back(value);
  }
  auto scaled = [&](ir::Value *x, double factor) {
    return create<ir::MulInst>(loc, x, constant(loc, type, factor));
  };
  // The IR has exp, exp2, log, log2, cos, sin and abs; the other builtins
  // are composed from them.
  ir::Value *x = args.empty() ? nullptr : args[0];
  if (name == "exp")
    return create<ir::ExpInst>(loc, x);
  if (name == "exp2")
    return create<ir::Exp2Inst>(loc, x);
  if (name == "exp10")
    return create<ir::Exp2Inst>(loc, scaled(x, std::log2(10.0)));
  if (name == "log")
    return create<ir::LogInst>(loc, x);
  if (name == "log2")
    return create<ir::Log2Inst>(loc, x);
  if (name == "log10")
    return scaled(create<ir::Log2Inst>(loc, x), std::log10(2.0));
  if (name == "cos")
    return create<ir::CosInst>(loc, x);
  if (name == "sin")
    return create<ir::SinInst>(loc, x);
  if (name == "fabs")
    return create<ir::AbsInst>(loc, x);
  if (name == "fmax")
    return create<ir::MaxInst>(loc, args[0], args[1]);
  if (name == "fmin")
    return create<ir::MinInst>(loc, args[0], args[1]);
  if (name == "sqrt")
    return create<ir::SqrtInst>(loc, x);
  if (name == "rsqrt")
    return create<ir::RsqrtInst>(loc, x);
  if (name == "pow")
    return create<ir::Exp2Inst>(
        loc, create<ir::MulInst>(loc, args[1], create<ir::Log2Inst>(loc, x)));
  // tanh(x) = 1 - 2 / (exp(2x) + 1) saturates correctly at both ends.
  if (name == "tanh") {
    ir::Value *one = constant(loc, type, 1.0);
    ir::Value *e2x = create<ir::ExpInst>(loc, scaled(x, 2.0));
    ir::Value *quotient = create<ir::DivInst>(
        loc, constant(loc, type, 2.0), create<ir::AddInst>(loc, e2x, one));
    return create<ir::SubInst>(loc, one, quotient);
  }
  return fail(loc, "builtin '" + name +
                       "' cannot be lowered yet; the tensor language has no "
                       "counterpart");
}

/// The identity of reduction \p kind for element type \p type. Min and max
/// start from the largest finite values so that the constants print and
/// parse in every type.
const TensorBinding *
lowering::lookupLhsForLowering(DefContext &def, const ComprehensionStmt &stmt) {
  const TensorBinding *lhs = def.lookup(stmt.getLhs().name);
  if (!lhs) {
    def.diags.emitError(stmt.getLhs().loc)
        << "unknown tensor '" << stmt.getLhs().name << "'";
    return nullptr;
  }
  if (stmt.getReduction() == ReductionKind::None &&
      !stmt.getReductionVars().empty()) {
    def.diags.emitError(stmt.getOpLoc())
        << "'=' with reduction indices cannot be lowered; use a reduction "
           "operator such as '+=!'";
    return nullptr;
  }
  return lhs;
}

double lowering::getIdentity(ReductionKind kind, ScalarType type) {
  auto largest = [&]() -> double {
    switch (type) {
    case ScalarType::Half:
      return 65504.0;
    case ScalarType::Float:
      return std::numeric_limits<float>::max();
    case ScalarType::Double:
      return std::numeric_limits<double>::max();
    default:
      return std::ldexp(1.0, getBitWidth(type) - (isUnsigned(type) ? 0 : 1)) -
             1;
    }
  };
  switch (kind) {
  case ReductionKind::Mul:
    return 1;
  case ReductionKind::Max:
    if (isUnsigned(type))
      return 0;
    return isFloatingPoint(type) ? -largest() : -largest() - 1;
  case ReductionKind::Min:
    return largest();
  case ReductionKind::None:
  case ReductionKind::Add:
    break;
  }
  return 0;
}

ir::Value *lowering::combine(ir::Builder &b, Location loc, ReductionKind kind,
                             ir::Value *acc, ir::Value *value) {
  switch (kind) {
  case ReductionKind::Add:
    return b.create<ir::AddInst>(loc, acc, value)->getResult(0);
  case ReductionKind::Mul:
    return b.create<ir::MulInst>(loc, acc, value)->getResult(0);
  case ReductionKind::Min:
    return b.create<ir::MinInst>(loc, acc, value)->getResult(0);
  case ReductionKind::Max:
    return b.create<ir::MaxInst>(loc, acc, value)->getResult(0);
  case ReductionKind::None:
    break;
  }
  return value;
}
