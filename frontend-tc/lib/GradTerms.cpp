//===- GradTerms.cpp - TC text building for the derived backward ----------===//
#include "GradTerms.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// Precedence of a binary operator spelled \p op.
int precOf(llvm::StringRef op) {
  if (op == "||")
    return PrecOr;
  if (op == "&&")
    return PrecAnd;
  if (op == "==" || op == "!=")
    return PrecEquality;
  if (op == "<" || op == ">" || op == "<=" || op == ">=")
    return PrecRelational;
  if (op == "+" || op == "-")
    return PrecAdditive;
  return PrecMultiplicative;
}

} // namespace

std::string grad::wrap(const Term &t, int prec) {
  return t.prec < prec ? "(" + t.text + ")" : t.text;
}

std::string grad::boundText(const Term &t) { return wrap(t, PrecAdditive); }

Term grad::lit(llvm::StringRef text) {
  return {text.str(), text.startswith("-") ? int(PrecUnary) : int(PrecPrimary)};
}

Term grad::zero() { return lit("0"); }

bool grad::isZero(const Term &t) { return t.text == "0" || t.text == "0.0"; }

bool grad::isOne(const Term &t) { return t.text == "1" || t.text == "1.0"; }

Term grad::binary(llvm::StringRef op, const Term &a, const Term &b) {
  int prec = precOf(op);
  // Left-associative: the right operand needs a tighter operator.
  return {wrap(a, prec) + " " + op.str() + " " + wrap(b, prec + 1), prec};
}

/// Whether \p t is `-x` (a negation or a negative literal).
static bool isNegation(const Term &t) {
  return t.prec == PrecUnary && t.text.size() > 1 && t.text[0] == '-';
}

/// x for `-x`: what follows the minus is a primary or a parenthesised
/// expression (see neg).
static Term negated(const Term &t) { return {t.text.substr(1), PrecPrimary}; }

Term grad::add(const Term &a, const Term &b) {
  if (isZero(a))
    return b;
  if (isZero(b))
    return a;
  if (isNegation(a) && a.text == b.text)
    return neg(add(negated(a), negated(b)));
  if (isNegation(b))
    return binary("-", a, negated(b));
  // x + x (a product whose factors are the same read): 2 * x. The integer
  // literal keeps x's element type.
  if (a.text == b.text)
    return binary("*", lit("2"), a);
  return binary("+", a, b);
}

Term grad::sub(const Term &a, const Term &b) {
  if (isZero(b))
    return a;
  if (isZero(a))
    return neg(b);
  if (isNegation(b))
    return binary("+", a, negated(b));
  return binary("-", a, b);
}

Term grad::mul(const Term &a, const Term &b) {
  if (isZero(a) || isZero(b))
    return zero();
  if (isOne(a))
    return b;
  if (isOne(b))
    return a;
  // Pull signs out, so sums print `a - b * c` rather than `a + -b * c`.
  if (isNegation(a))
    return neg(mul(negated(a), b));
  if (isNegation(b))
    return neg(mul(a, negated(b)));
  return binary("*", a, b);
}

Term grad::div(const Term &a, const Term &b) {
  if (isZero(a))
    return zero();
  if (isOne(b))
    return a;
  if (isNegation(a))
    return neg(div(negated(a), b));
  return binary("/", a, b);
}

Term grad::neg(const Term &a) {
  if (isZero(a))
    return zero();
  if (isNegation(a))
    return negated(a);
  return {"-" + wrap(a, PrecPrimary), PrecUnary};
}

Term grad::select(const Term &c, const Term &a, const Term &b) {
  if (isZero(a) && isZero(b))
    return zero();
  return {wrap(c, PrecOr) + " ? " + wrap(a, PrecOr) + " : " +
              wrap(b, PrecTernary),
          PrecTernary};
}

Term grad::call(llvm::StringRef name, llvm::ArrayRef<Term> args) {
  std::string text = name.str() + "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(args, os, [&](const Term &arg) { os << arg.text; });
  os << ')';
  return {os.str(), PrecPrimary};
}

Term grad::conjunction(llvm::ArrayRef<Term> conditions) {
  if (conditions.empty())
    return {"", PrecPrimary};
  Term result = conditions.front();
  for (const Term &condition : conditions.drop_front())
    result = binary("&&", result, condition);
  return result;
}

std::string Rewriter::tensorName(llvm::StringRef tensor) const {
  auto it = tensorNames.find(tensor);
  return it == tensorNames.end() ? tensor.str() : it->second;
}

Term Rewriter::index(llvm::StringRef name) const {
  auto it = indexSubst.find(name);
  return it == indexSubst.end() ? lit(name) : it->second;
}

Term Rewriter::printRead(llvm::StringRef tensor, llvm::ArrayRef<ExprPtr> args) {
  PrintedRead read{tensorName(tensor), {}};
  llvm::SmallVector<Term, 4> subscripts;
  for (const ExprPtr &arg : args) {
    subscripts.push_back(print(*arg));
    read.subscripts.push_back(subscripts.back().text);
  }
  reads.push_back(read);
  if (args.empty())
    return {read.tensor, PrecPrimary};
  return call(read.tensor, subscripts);
}

Term Rewriter::print(const Expr &expr) {
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::DimAccess: {
    std::string text;
    llvm::raw_string_ostream os(text);
    tc::print(expr, os);
    return lit(os.str());
  }
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    switch (ident.getRef()) {
    case IdentExpr::Ref::Let:
      return print(ident.getLet()->getValue());
    case IdentExpr::Ref::Tensor:
      return printRead(ident.getName(), {});
    case IdentExpr::Ref::Index:
      return index(ident.getName());
    default:
      return lit(ident.getName());
    }
  }
  case Expr::Kind::Unary: {
    const auto &unary = llvm::cast<UnaryExpr>(expr);
    Term operand = print(unary.getOperand());
    return {(unary.getOp() == UnaryOp::Neg ? "-" : "!") +
                wrap(operand, PrecUnary),
            PrecUnary};
  }
  case Expr::Kind::Binary:
    return printBinary(llvm::cast<BinaryExpr>(expr));
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    Term c = print(ternary.getCond());
    Term a = print(ternary.getTrueValue());
    Term b = print(ternary.getFalseValue());
    return {wrap(c, PrecOr) + " ? " + wrap(a, PrecOr) + " : " +
                wrap(b, PrecTernary),
            PrecTernary};
  }
  case Expr::Kind::Apply:
    return printApply(llvm::cast<ApplyExpr>(expr));
  case Expr::Kind::Cast: {
    const auto &cast = llvm::cast<CastExpr>(expr);
    return call(getSpelling(cast.getType()), {print(cast.getOperand())});
  }
  }
  return zero();
}

Term Rewriter::printApply(const ApplyExpr &apply) {
  if (!apply.isTensorRead()) {
    llvm::SmallVector<Term, 4> args;
    for (const ExprPtr &arg : apply.getArgs())
      args.push_back(print(*arg));
    return call(apply.getCallee().name, args);
  }
  std::string tensor = tensorName(apply.getCallee().name);
  if (!llvm::is_contained(targets, &apply))
    return printRead(apply.getCallee().name, apply.getArgs());
  // The read being inverted: its subscripts are the LHS indices.
  llvm::SmallVector<Term, 4> indices;
  for (const std::string &index : targetIndices)
    indices.push_back(lit(index));
  reads.push_back({tensor, targetIndices});
  return call(tensor, indices);
}

Term Rewriter::printBinary(const BinaryExpr &binary) {
  Term a = print(binary.getLhs());
  Term b = print(binary.getRhs());
  if (binary.getOp() == BinaryOp::Min || binary.getOp() == BinaryOp::Max)
    return call(getSpelling(binary.getOp()), {a, b});
  // No simplification: the forward's text keeps its types (`i * 1.0`).
  return grad::binary(getSpelling(binary.getOp()), a, b);
}

Term grad::printIndexExpr(const poly::IndexExpr &expr,
                          const llvm::StringMap<std::string> &sizeVarOf) {
  using Kind = poly::IndexExpr::Kind;
  if (auto it = sizeVarOf.find(expr.str()); it != sizeVarOf.end())
    return lit(it->second);
  auto operand = [&](unsigned i) {
    return printIndexExpr(expr.getOperands()[i], sizeVarOf);
  };
  switch (expr.getKind()) {
  case Kind::Constant:
    return lit(std::to_string(expr.getValue()));
  case Kind::Param:
  case Kind::Var:
    return lit(expr.getName());
  case Kind::Neg:
    return neg(operand(0));
  case Kind::Add:
    return add(operand(0), operand(1));
  case Kind::Sub:
    return sub(operand(0), operand(1));
  case Kind::Mul:
    return binary("*", operand(0), operand(1));
  case Kind::FloorDiv: // TC's integer division rounds down, as isl's.
    return binary("/", operand(0), operand(1));
  case Kind::Mod:
    return binary("%", operand(0), operand(1));
  case Kind::Min:
    return call("min", {operand(0), operand(1)});
  case Kind::Max:
    return call("max", {operand(0), operand(1)});
  case Kind::Eq:
    return binary("==", operand(0), operand(1));
  case Kind::Le:
    return binary("<=", operand(0), operand(1));
  case Kind::Ge:
    return binary(">=", operand(0), operand(1));
  case Kind::And:
    return binary("&&", operand(0), operand(1));
  case Kind::Or:
    return binary("||", operand(0), operand(1));
  case Kind::Select:
    return select(operand(0), operand(1), operand(2));
  case Kind::Opaque:
    break;
  }
  return zero();
}

bool grad::mentionsIndexVar(const Expr &expr,
                            llvm::function_ref<bool(llvm::StringRef)> which) {
  auto recurse = [&](const Expr &operand) {
    return mentionsIndexVar(operand, which);
  };
  switch (expr.getKind()) {
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    if (ident.getRef() == IdentExpr::Ref::Let)
      return recurse(ident.getLet()->getValue());
    return ident.getRef() == IdentExpr::Ref::Index && which(ident.getName());
  }
  case Expr::Kind::Unary:
    return recurse(llvm::cast<UnaryExpr>(expr).getOperand());
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    return recurse(binary.getLhs()) || recurse(binary.getRhs());
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    return recurse(ternary.getCond()) || recurse(ternary.getTrueValue()) ||
           recurse(ternary.getFalseValue());
  }
  case Expr::Kind::Apply:
    return llvm::any_of(llvm::cast<ApplyExpr>(expr).getArgs(),
                        [&](const ExprPtr &arg) { return recurse(*arg); });
  case Expr::Kind::Cast:
    return recurse(llvm::cast<CastExpr>(expr).getOperand());
  default:
    return false;
  }
}

bool grad::usesIndexVars(const Expr &expr) {
  return mentionsIndexVar(expr, [](llvm::StringRef) { return true; });
}

/// The value reads of \p expr: tensor reads outside subscripts and outside
/// conversions to integers (those carry no gradient).
void grad::collectValueReads(const Expr &expr,
                             llvm::SmallVectorImpl<const Expr *> &reads) {
  auto recurse = [&](const Expr &operand) {
    collectValueReads(operand, reads);
  };
  switch (expr.getKind()) {
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    if (ident.getRef() == IdentExpr::Ref::Tensor)
      reads.push_back(&expr);
    else if (ident.getRef() == IdentExpr::Ref::Let)
      recurse(ident.getLet()->getValue());
    return;
  }
  case Expr::Kind::Unary:
    return recurse(llvm::cast<UnaryExpr>(expr).getOperand());
  case Expr::Kind::Binary:
    recurse(llvm::cast<BinaryExpr>(expr).getLhs());
    return recurse(llvm::cast<BinaryExpr>(expr).getRhs());
  case Expr::Kind::Ternary:
    recurse(llvm::cast<TernaryExpr>(expr).getTrueValue());
    return recurse(llvm::cast<TernaryExpr>(expr).getFalseValue());
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<ApplyExpr>(expr);
    if (apply.isTensorRead()) {
      reads.push_back(&expr);
      return;
    }
    for (const ExprPtr &arg : apply.getArgs())
      recurse(*arg);
    return;
  }
  case Expr::Kind::Cast:
    if (isFloatingPoint(expr.getType()))
      recurse(llvm::cast<CastExpr>(expr).getOperand());
    return;
  default:
    return;
  }
}

llvm::StringRef grad::readTensor(const Expr &read) {
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&read))
    return apply->getCallee().name;
  return llvm::cast<IdentExpr>(read).getName();
}
