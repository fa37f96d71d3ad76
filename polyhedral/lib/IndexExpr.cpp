//===- IndexExpr.cpp - Integer expressions for the polyhedral layer -------===//
#include "comprehend/polyhedral/IndexExpr.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend::poly;

IndexExpr IndexExpr::constant(int64_t value) {
  IndexExpr expr;
  expr.kind = Kind::Constant;
  expr.value = value;
  return expr;
}

IndexExpr IndexExpr::param(llvm::StringRef name) {
  IndexExpr expr;
  expr.kind = Kind::Param;
  expr.name = name.str();
  return expr;
}

IndexExpr IndexExpr::var(llvm::StringRef name) {
  IndexExpr expr;
  expr.kind = Kind::Var;
  expr.name = name.str();
  return expr;
}

IndexExpr IndexExpr::binary(Kind kind, IndexExpr lhs, IndexExpr rhs) {
  IndexExpr expr;
  expr.kind = kind;
  expr.operands.push_back(std::move(lhs));
  expr.operands.push_back(std::move(rhs));
  return expr;
}

IndexExpr IndexExpr::neg(IndexExpr operand) {
  IndexExpr expr;
  expr.kind = Kind::Neg;
  expr.operands.push_back(std::move(operand));
  return expr;
}

IndexExpr IndexExpr::select(IndexExpr condition, IndexExpr ifTrue,
                            IndexExpr ifFalse) {
  IndexExpr expr;
  expr.kind = Kind::Select;
  expr.operands.push_back(std::move(condition));
  expr.operands.push_back(std::move(ifTrue));
  expr.operands.push_back(std::move(ifFalse));
  return expr;
}

IndexExpr IndexExpr::opaque(llvm::ArrayRef<std::string> variables) {
  IndexExpr expr;
  expr.kind = Kind::Opaque;
  expr.opaqueVars.assign(variables.begin(), variables.end());
  return expr;
}

static void collectVariables(const IndexExpr &expr,
                             llvm::SmallVectorImpl<std::string> &out) {
  auto add = [&](llvm::StringRef name) {
    if (!llvm::is_contained(out, name))
      out.push_back(name.str());
  };
  if (expr.getKind() == IndexExpr::Kind::Var)
    add(expr.getName());
  for (const std::string &name : expr.getOpaqueVariables())
    add(name);
  for (const IndexExpr &operand : expr.getOperands())
    collectVariables(operand, out);
}

llvm::SmallVector<std::string, 4> IndexExpr::getVariables() const {
  llvm::SmallVector<std::string, 4> result;
  collectVariables(*this, result);
  return result;
}

bool IndexExpr::hasSelect() const {
  return kind == Kind::Select ||
         llvm::any_of(operands,
                      [](const IndexExpr &op) { return op.hasSelect(); });
}

/// C's precedence, higher binds tighter.
static int precedence(IndexExpr::Kind kind) {
  switch (kind) {
  case IndexExpr::Kind::Select:
    return 1;
  case IndexExpr::Kind::Or:
    return 2;
  case IndexExpr::Kind::And:
    return 3;
  case IndexExpr::Kind::Eq:
    return 4;
  case IndexExpr::Kind::Le:
  case IndexExpr::Kind::Ge:
    return 5;
  case IndexExpr::Kind::Add:
  case IndexExpr::Kind::Sub:
    return 6;
  case IndexExpr::Kind::Mul:
  case IndexExpr::Kind::Mod:
    return 7;
  case IndexExpr::Kind::Neg:
    return 8;
  default:
    return 9;
  }
}

/// The spelling of an infix operator.
static const char *infixSpelling(IndexExpr::Kind kind) {
  switch (kind) {
  case IndexExpr::Kind::Add:
    return " + ";
  case IndexExpr::Kind::Sub:
    return " - ";
  case IndexExpr::Kind::Mul:
    return " * ";
  case IndexExpr::Kind::Mod:
    return " % ";
  case IndexExpr::Kind::Eq:
    return " == ";
  case IndexExpr::Kind::Le:
    return " <= ";
  case IndexExpr::Kind::Ge:
    return " >= ";
  case IndexExpr::Kind::And:
    return " && ";
  case IndexExpr::Kind::Or:
    return " || ";
  default:
    return nullptr;
  }
}

static void printOperand(const IndexExpr &operand, int parentPrecedence,
                         bool rightOfNonAssociative, llvm::raw_ostream &os) {
  int own = precedence(operand.getKind());
  bool parens = own < parentPrecedence ||
                (rightOfNonAssociative && own == parentPrecedence);
  if (parens)
    os << '(';
  operand.print(os);
  if (parens)
    os << ')';
}

void IndexExpr::print(llvm::raw_ostream &os) const {
  switch (kind) {
  case Kind::Constant:
    os << value;
    return;
  case Kind::Param:
  case Kind::Var:
    os << name;
    return;
  case Kind::Add:
  case Kind::Sub:
  case Kind::Mul:
  case Kind::Mod:
  case Kind::Eq:
  case Kind::Le:
  case Kind::Ge:
  case Kind::And:
  case Kind::Or: {
    bool associative = kind == Kind::Add || kind == Kind::Mul ||
                       kind == Kind::And || kind == Kind::Or;
    int own = precedence(kind);
    printOperand(operands[0], own, false, os);
    os << infixSpelling(kind);
    printOperand(operands[1], own, !associative, os);
    return;
  }
  case Kind::Select: {
    // Right-associative: `a ? b : c ? d : e` needs no parentheses.
    int own = precedence(kind);
    printOperand(operands[0], own, true, os);
    os << " ? ";
    printOperand(operands[1], own, true, os);
    os << " : ";
    printOperand(operands[2], own, false, os);
    return;
  }
  case Kind::FloorDiv:
  case Kind::Min:
  case Kind::Max:
    os << (kind == Kind::FloorDiv ? "floord("
           : kind == Kind::Min    ? "min("
                                  : "max(");
    operands[0].print(os);
    os << ", ";
    operands[1].print(os);
    os << ')';
    return;
  case Kind::Neg:
    os << '-';
    printOperand(operands[0], precedence(kind), true, os);
    return;
  case Kind::Opaque:
    os << "<opaque>";
    return;
  }
}

std::string IndexExpr::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}
