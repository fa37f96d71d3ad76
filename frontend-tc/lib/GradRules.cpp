//===- GradRules.cpp - Derivative rules of TC expressions -----------------===//
#include "GradRules.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

// Constants the rules need, as TC literals (floats, so the products keep
// the element type of the tensors they multiply).
const char *const kLn2 = "0.6931471805599453";
const char *const kLn10 = "2.302585092994046";
const char *const kPi = "3.141592653589793";
const char *const kTwoOverSqrtPi = "1.1283791670955126";
const char *const kSqrtPiOverTwo = "0.886226925452758";
const char *const kInvSqrtTwoPi = "0.3989422804014327";
const char *const kSqrtTwoPi = "2.5066282746310002";

Term sq(const Term &x) { return mul(x, x); }
Term cube(const Term &x) { return mul(mul(x, x), x); }
Term inv(const Term &x) { return div(lit("1.0"), x); }
Term fn(llvm::StringRef name, const Term &x) { return call(name, {x}); }
Term gt(const Term &a, const Term &b) { return binary(">", a, b); }
Term eq(const Term &a, const Term &b) { return binary("==", a, b); }

/// d|x|/dx: the sign, 0 at 0 (PyTorch's abs).
Term sign(const Term &x) {
  return select(gt(x, zero()), lit("1.0"),
                select(binary("<", x, zero()), lit("-1.0"), lit("0.0")));
}

/// d f(x) / dx from x and f(x).
using Rule = Term (*)(const Term &, const Term &);
const std::pair<const char *, Rule> unaryRules[] = {
      {"exp", [](const Term &, const Term &f) { return f; }},
      {"exp2", [](const Term &, const Term &f) { return mul(f, lit(kLn2)); }},
      {"exp10", [](const Term &, const Term &f) { return mul(f, lit(kLn10)); }},
      {"expm1", [](const Term &, const Term &f) { return add(f, lit("1.0")); }},
      {"log", [](const Term &x, const Term &) { return inv(x); }},
      {"log2",
       [](const Term &x, const Term &) { return inv(mul(x, lit(kLn2))); }},
      {"log10",
       [](const Term &x, const Term &) { return inv(mul(x, lit(kLn10))); }},
      {"log1p",
       [](const Term &x, const Term &) { return inv(add(lit("1.0"), x)); }},
      {"sqrt", [](const Term &, const Term &f) { return div(lit("0.5"), f); }},
      {"rsqrt",
       [](const Term &x, const Term &f) {
         return div(mul(lit("-0.5"), f), x);
       }},
      {"cbrt",
       [](const Term &x, const Term &f) {
         return div(f, mul(lit("3.0"), x));
       }},
      {"rcbrt",
       [](const Term &x, const Term &f) {
         return div(neg(f), mul(lit("3.0"), x));
       }},
      {"tanh",
       [](const Term &, const Term &f) { return sub(lit("1.0"), sq(f)); }},
      {"sin", [](const Term &x, const Term &) { return fn("cos", x); }},
      {"cos", [](const Term &x, const Term &) { return neg(fn("sin", x)); }},
      {"tan",
       [](const Term &, const Term &f) { return add(lit("1.0"), sq(f)); }},
      {"asin",
       [](const Term &x, const Term &) {
         return fn("rsqrt", sub(lit("1.0"), sq(x)));
       }},
      {"acos",
       [](const Term &x, const Term &) {
         return neg(fn("rsqrt", sub(lit("1.0"), sq(x))));
       }},
      {"atan",
       [](const Term &x, const Term &) { return inv(add(lit("1.0"), sq(x))); }},
      {"sinh", [](const Term &x, const Term &) { return fn("cosh", x); }},
      {"cosh", [](const Term &x, const Term &) { return fn("sinh", x); }},
      {"asinh",
       [](const Term &x, const Term &) {
         return fn("rsqrt", add(sq(x), lit("1.0")));
       }},
      {"acosh",
       [](const Term &x, const Term &) {
         return fn("rsqrt", sub(sq(x), lit("1.0")));
       }},
      {"atanh",
       [](const Term &x, const Term &) { return inv(sub(lit("1.0"), sq(x))); }},
      {"sinpi",
       [](const Term &x, const Term &) {
         return mul(lit(kPi), fn("cospi", x));
       }},
      {"cospi",
       [](const Term &x, const Term &) {
         return neg(mul(lit(kPi), fn("sinpi", x)));
       }},
      {"erf",
       [](const Term &x, const Term &) {
         return mul(lit(kTwoOverSqrtPi), fn("exp", neg(sq(x))));
       }},
      {"erfc",
       [](const Term &x, const Term &) {
         return neg(mul(lit(kTwoOverSqrtPi), fn("exp", neg(sq(x)))));
       }},
      {"erfinv",
       [](const Term &, const Term &f) {
         return mul(lit(kSqrtPiOverTwo), fn("exp", sq(f)));
       }},
      {"erfcinv",
       [](const Term &, const Term &f) {
         return neg(mul(lit(kSqrtPiOverTwo), fn("exp", sq(f))));
       }},
      {"erfcx",
       [](const Term &x, const Term &f) {
         return sub(mul(mul(lit("2.0"), x), f), lit(kTwoOverSqrtPi));
       }},
      {"normcdf",
       [](const Term &x, const Term &) {
         return mul(lit(kInvSqrtTwoPi),
                    fn("exp", mul(lit("-0.5"), sq(x))));
       }},
      {"normcdfinv",
       [](const Term &, const Term &f) {
         return mul(lit(kSqrtTwoPi), fn("exp", mul(lit("0.5"), sq(f))));
       }},
      {"fabs", [](const Term &x, const Term &) { return sign(x); }},
      {"j0", [](const Term &x, const Term &) { return neg(fn("j1", x)); }},
      {"j1",
       [](const Term &x, const Term &f) {
         return sub(fn("j0", x), div(f, x));
       }},
      {"y0", [](const Term &x, const Term &) { return neg(fn("y1", x)); }},
      {"y1",
       [](const Term &x, const Term &f) {
         return sub(fn("y0", x), div(f, x));
       }},
      {"cyl_bessel_i0",
       [](const Term &x, const Term &) { return fn("cyl_bessel_i1", x); }},
      {"cyl_bessel_i1",
       [](const Term &x, const Term &f) {
         return sub(fn("cyl_bessel_i0", x), div(f, x));
       }},
  };

std::vector<Term> unaryPartial(llvm::StringRef name, const Term &x,
                               const Term &f) {
  // Piecewise constant: the derivative is 0 wherever it exists (PyTorch's
  // floor, ceil, round and trunc give 0 too).
  static const llvm::StringRef piecewiseConstant[] = {"floor", "ceil", "round",
                                                      "trunc", "logb"};
  if (llvm::is_contained(piecewiseConstant, name))
    return {zero()};
  for (const auto &[ruleName, rule] : unaryRules)
    if (name == ruleName)
      return {rule(x, f)};
  return {};
}

std::vector<Term> binaryPartials(llvm::StringRef name, const Term &a,
                                 const Term &b, const Term &f) {
  if (name == "pow")
    return {mul(b, call("pow", {a, sub(b, lit("1.0"))})), mul(f, fn("log", a))};
  if (name == "atan2") { // atan2(y, x)
    Term r2 = add(sq(a), sq(b));
    return {div(b, r2), div(neg(a), r2)};
  }
  if (name == "hypot")
    return {div(a, f), div(b, f)};
  if (name == "rhypot")
    return {neg(mul(a, cube(f))), neg(mul(b, cube(f)))};
  if (name == "fdivide")
    return {inv(b), neg(div(f, b))};
  if (name == "copysign")
    return {select(eq(call("copysign", {lit("1.0"), a}),
                      call("copysign", {lit("1.0"), b})),
                   lit("1.0"), lit("-1.0")),
            zero()};
  if (name == "fdim")
    return {select(gt(a, b), lit("1.0"), lit("0.0")),
            select(gt(a, b), lit("-1.0"), lit("0.0"))};
  if (name == "fmod")
    return {lit("1.0"), neg(fn("trunc", div(a, b)))};
  return {};
}

} // namespace

std::vector<Term> grad::getBuiltinPartials(llvm::StringRef name,
                                           llvm::ArrayRef<Term> args,
                                           const Term &result) {
  if (args.size() == 1)
    return unaryPartial(name, args[0], result);
  if (args.size() == 2)
    return binaryPartials(name, args[0], args[1], result);
  if (name == "fma")
    return {args[1], args[0], lit("1.0")};
  if (name == "norm3d" || name == "norm4d") {
    std::vector<Term> partials;
    for (const Term &arg : args)
      partials.push_back(div(arg, result));
    return partials;
  }
  if (name == "rnorm3d" || name == "rnorm4d") {
    std::vector<Term> partials;
    for (const Term &arg : args)
      partials.push_back(neg(mul(arg, cube(result))));
    return partials;
  }
  return {};
}

bool Differentiator::containsTarget(const Expr &expr) const {
  if (llvm::is_contained(rewriter.targets, &expr))
    return true;
  switch (expr.getKind()) {
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    return ident.getRef() == IdentExpr::Ref::Let &&
           containsTarget(ident.getLet()->getValue());
  }
  case Expr::Kind::Unary:
    return containsTarget(llvm::cast<UnaryExpr>(expr).getOperand());
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    return containsTarget(binary.getLhs()) || containsTarget(binary.getRhs());
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    return containsTarget(ternary.getTrueValue()) ||
           containsTarget(ternary.getFalseValue());
  }
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<ApplyExpr>(expr);
    // Subscripts are integers: no gradient flows into them.
    return !apply.isTensorRead() &&
           llvm::any_of(apply.getArgs(), [&](const ExprPtr &arg) {
             return containsTarget(*arg);
           });
  }
  case Expr::Kind::Cast: {
    const auto &cast = llvm::cast<CastExpr>(expr);
    return isFloatingPoint(cast.getType()) && containsTarget(cast.getOperand());
  }
  default:
    return false;
  }
}

Term Differentiator::value(const Expr &expr) {
  if (&expr == root && !rootValue.text.empty()) {
    usedRoot = true;
    return rootValue;
  }
  return rewriter.print(expr);
}

Term Differentiator::propagate(const Expr &expr, const Term &adjoint) {
  if (llvm::is_contained(rewriter.targets, &expr))
    return adjoint;
  if (!containsTarget(expr))
    return zero();
  switch (expr.getKind()) {
  case Expr::Kind::Ident:
    return propagate(llvm::cast<IdentExpr>(expr).getLet()->getValue(), adjoint);
  case Expr::Kind::Unary:
    return propagate(llvm::cast<UnaryExpr>(expr).getOperand(), neg(adjoint));
  case Expr::Kind::Binary:
    return propagateBinary(llvm::cast<BinaryExpr>(expr), adjoint);
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    Term cond = rewriter.print(ternary.getCond());
    return add(
        propagate(ternary.getTrueValue(), select(cond, adjoint, zero())),
        propagate(ternary.getFalseValue(), select(cond, zero(), adjoint)));
  }
  case Expr::Kind::Apply:
    return propagateBuiltin(llvm::cast<ApplyExpr>(expr), adjoint);
  case Expr::Kind::Cast:
    return propagate(llvm::cast<CastExpr>(expr).getOperand(), adjoint);
  default:
    return zero();
  }
}

Term Differentiator::propagateBinary(const BinaryExpr &binary,
                                     const Term &adjoint) {
  const Expr &a = binary.getLhs(), &b = binary.getRhs();
  switch (binary.getOp()) {
  case BinaryOp::Add:
    return add(propagate(a, adjoint), propagate(b, adjoint));
  case BinaryOp::Sub:
    return add(propagate(a, adjoint), propagate(b, neg(adjoint)));
  case BinaryOp::Mul:
    return add(
        propagate(a, containsTarget(a) ? mul(adjoint, value(b)) : zero()),
        propagate(b, containsTarget(b) ? mul(adjoint, value(a)) : zero()));
  case BinaryOp::Div: {
    Term da = containsTarget(a) ? div(adjoint, value(b)) : zero();
    Term db = containsTarget(b)
                  ? neg(div(mul(adjoint, value(binary)), value(b)))
                  : zero();
    return add(propagate(a, da), propagate(b, db));
  }
  case BinaryOp::Mod: { // fmod on floating-point values
    Term db = containsTarget(b)
                  ? neg(mul(adjoint, fn("trunc", div(value(a), value(b)))))
                  : zero();
    return add(propagate(a, adjoint), propagate(b, db));
  }
  case BinaryOp::Min:
  case BinaryOp::Max:
    return propagateExtremum(a, b, binary.getOp() == BinaryOp::Max,
                             /*splitTies=*/true, adjoint);
  default: // comparisons and logic: no gradient
    return zero();
  }
}

Term Differentiator::propagateExtremum(const Expr &a, const Expr &b, bool isMax,
                                       bool splitTies, const Term &adjoint) {
  Term va = value(a), vb = value(b);
  if (!splitTies) {
    // torch.fmax / torch.fmin: a tie goes to the first operand.
    Term first = binary(isMax ? ">=" : "<=", va, vb);
    return add(propagate(a, containsTarget(a) ? select(first, adjoint, zero())
                                              : zero()),
               propagate(b, containsTarget(b) ? select(first, zero(), adjoint)
                                              : zero()));
  }
  // torch.maximum / torch.minimum: the larger (smaller) operand gets the
  // adjoint; on a tie each gets half.
  Term half = mul(adjoint, lit("0.5"));
  auto share = [&](const Term &self, const Term &other) {
    Term wins = binary(isMax ? ">" : "<", self, other);
    return select(wins, adjoint, select(eq(self, other), half, zero()));
  };
  return add(propagate(a, containsTarget(a) ? share(va, vb) : zero()),
             propagate(b, containsTarget(b) ? share(vb, va) : zero()));
}

Term Differentiator::propagateBuiltin(const ApplyExpr &apply,
                                      const Term &adjoint) {
  llvm::StringRef name = apply.getCallee().name;
  if (name == "fmax" || name == "fmin")
    return propagateExtremum(*apply.getArgs()[0], *apply.getArgs()[1],
                             name == "fmax", /*splitTies=*/false, adjoint);
  llvm::SmallVector<Term, 4> args;
  for (const ExprPtr &arg : apply.getArgs())
    args.push_back(value(*arg));
  std::vector<Term> partials = getBuiltinPartials(name, args, value(apply));
  if (partials.size() != args.size()) {
    diags.emitError(apply.getLoc())
        << "no derivative rule for builtin '" << name
        << "': its derivative cannot be written with TC's builtins";
    failed = true;
    return zero();
  }
  Term result = zero();
  for (auto [arg, partial] : llvm::zip(apply.getArgs(), partials))
    if (containsTarget(*arg))
      result = add(result, propagate(*arg, mul(adjoint, partial)));
  return result;
}
