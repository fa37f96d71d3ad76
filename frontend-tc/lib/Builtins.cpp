//===- Builtins.cpp - TC's built-in math functions ------------------------===//
#include "comprehend/tc/Builtins.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <numbers>

using namespace comprehend;
using namespace comprehend::tc;

namespace {

using Fn = double (*)(llvm::ArrayRef<double>);

struct Builtin {
  const char *name;
  unsigned arity;
  Fn fn;
};

/// Inverse of erf on (-1, 1) by Newton's method from a rational first guess
/// (the C library has no erfinv).
double erfinv(double y) {
  if (y <= -1)
    return -INFINITY;
  if (y >= 1)
    return INFINITY;
  double w = -std::log((1 - y) * (1 + y));
  double x =
      std::copysign(std::sqrt(std::sqrt(w * w / 4 + 4.3307 * w) - w / 2), y);
  for (int i = 0; i < 4; ++i)
    x -= (std::erf(x) - y) /
         (2 / std::sqrt(std::numbers::pi) * std::exp(-x * x));
  return x;
}

#define UNARY(NAME, EXPR)                                                      \
  {                                                                            \
    NAME, 1, [](llvm::ArrayRef<double> a) -> double {                          \
      double x = a[0];                                                         \
      return EXPR;                                                             \
    }                                                                          \
  }
#define BINARY(NAME, EXPR)                                                     \
  {                                                                            \
    NAME, 2, [](llvm::ArrayRef<double> a) -> double {                          \
      double x = a[0], y = a[1];                                               \
      return EXPR;                                                             \
    }                                                                          \
  }

const Builtin builtins[] = {
    UNARY("acos", std::acos(x)),
    UNARY("acosh", std::acosh(x)),
    UNARY("asin", std::asin(x)),
    UNARY("asinh", std::asinh(x)),
    UNARY("atan", std::atan(x)),
    UNARY("atanh", std::atanh(x)),
    UNARY("cbrt", std::cbrt(x)),
    UNARY("ceil", std::ceil(x)),
    UNARY("cos", std::cos(x)),
    UNARY("cosh", std::cosh(x)),
    UNARY("cospi", std::cos(std::numbers::pi * x)),
    UNARY("cyl_bessel_i0", std::cyl_bessel_i(0.0, x)),
    UNARY("cyl_bessel_i1", std::cyl_bessel_i(1.0, x)),
    UNARY("erf", std::erf(x)),
    UNARY("erfc", std::erfc(x)),
    UNARY("erfcinv", erfinv(1 - x)),
    UNARY("erfcx", std::exp(x * x) * std::erfc(x)),
    UNARY("erfinv", erfinv(x)),
    UNARY("exp", std::exp(x)),
    UNARY("exp10", std::pow(10.0, x)),
    UNARY("exp2", std::exp2(x)),
    UNARY("expm1", std::expm1(x)),
    UNARY("fabs", std::fabs(x)),
    UNARY("floor", std::floor(x)),
    UNARY("j0", ::j0(x)),
    UNARY("j1", ::j1(x)),
    UNARY("lgamma", std::lgamma(x)),
    UNARY("log", std::log(x)),
    UNARY("log10", std::log10(x)),
    UNARY("log1p", std::log1p(x)),
    UNARY("log2", std::log2(x)),
    UNARY("logb", std::logb(x)),
    UNARY("normcdf", 0.5 * std::erfc(-x / std::numbers::sqrt2)),
    UNARY("normcdfinv", -std::numbers::sqrt2 * erfinv(1 - 2 * x)),
    UNARY("rcbrt", 1 / std::cbrt(x)),
    UNARY("round", std::round(x)),
    UNARY("rsqrt", 1 / std::sqrt(x)),
    UNARY("sin", std::sin(x)),
    UNARY("sinh", std::sinh(x)),
    UNARY("sinpi", std::sin(std::numbers::pi * x)),
    UNARY("sqrt", std::sqrt(x)),
    UNARY("tan", std::tan(x)),
    UNARY("tanh", std::tanh(x)),
    UNARY("tgamma", std::tgamma(x)),
    UNARY("trunc", std::trunc(x)),
    UNARY("y0", ::y0(x)),
    UNARY("y1", ::y1(x)),
    BINARY("atan2", std::atan2(x, y)),
    BINARY("copysign", std::copysign(x, y)),
    BINARY("fdim", std::fdim(x, y)),
    BINARY("fdivide", x / y),
    BINARY("fmax", std::fmax(x, y)),
    BINARY("fmin", std::fmin(x, y)),
    BINARY("fmod", std::fmod(x, y)),
    BINARY("hypot", std::hypot(x, y)),
    BINARY("nextafter", std::nextafter(x, y)),
    BINARY("pow", std::pow(x, y)),
    BINARY("remainder", std::remainder(x, y)),
    BINARY("rhypot", 1 / std::hypot(x, y)),
    {"fma", 3,
     [](llvm::ArrayRef<double> a) -> double { return std::fma(a[0], a[1], a[2]); }},
    {"norm3d", 3,
     [](llvm::ArrayRef<double> a) -> double {
       return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
     }},
    {"rnorm3d", 3,
     [](llvm::ArrayRef<double> a) -> double {
       return 1 / std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
     }},
    {"norm4d", 4,
     [](llvm::ArrayRef<double> a) -> double {
       return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
     }},
    {"rnorm4d", 4,
     [](llvm::ArrayRef<double> a) -> double {
       return 1 / std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] +
                            a[3] * a[3]);
     }},
};

#undef UNARY
#undef BINARY

const Builtin *find(llvm::StringRef name) {
  for (const Builtin &builtin : builtins)
    if (name == builtin.name)
      return &builtin;
  return nullptr;
}

} // namespace

std::optional<unsigned> tc::getBuiltinArity(llvm::StringRef name) {
  if (const Builtin *builtin = find(name))
    return builtin->arity;
  return std::nullopt;
}

BuiltinFunction tc::getBuiltinFunction(llvm::StringRef name) {
  const Builtin *builtin = find(name);
  return builtin ? builtin->fn : nullptr;
}

double tc::evaluateBuiltin(llvm::StringRef name, llvm::ArrayRef<double> args) {
  const Builtin *builtin = find(name);
  if (!builtin || args.size() != builtin->arity)
    return NAN;
  return builtin->fn(args);
}
