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

static int precedence(IndexExpr::Kind kind) {
  switch (kind) {
  case IndexExpr::Kind::Add:
  case IndexExpr::Kind::Sub:
    return 1;
  case IndexExpr::Kind::Mul:
  case IndexExpr::Kind::Mod:
    return 2;
  case IndexExpr::Kind::Neg:
    return 3;
  default:
    return 4;
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
  case Kind::Mod: {
    static constexpr const char *spelling[] = {" + ", " - ", " * ", " % "};
    int index = kind == Kind::Add   ? 0
                : kind == Kind::Sub ? 1
                : kind == Kind::Mul ? 2
                                    : 3;
    int own = precedence(kind);
    printOperand(operands[0], own, false, os);
    os << spelling[index];
    printOperand(operands[1], own, kind != Kind::Add && kind != Kind::Mul, os);
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
