//===- EvalExpr.cpp - The evaluator's compiled expressions ----------------===//
#include "EvalExpr.h"

#include "comprehend/tc/Builtins.h"
#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::eval;

void EvalState::fail(Location loc, const llvm::Twine &message) {
  if (report && !failed)
    report->emitError(loc, message).report();
  failed = true;
}

int64_t eval::getNumPoints(const Box &box) {
  int64_t count = 1;
  for (auto [lo, hi] : llvm::zip(box.lo, box.hi)) {
    if (hi <= lo)
      return 0;
    count *= hi - lo;
  }
  return count;
}

namespace {

using Values = std::array<double, kBatch>;

//===----------------------------------------------------------------------===//
// Integer conversions
//===----------------------------------------------------------------------===//

/// convertTo for one integral type, with a fast path for values that are
/// already in range (the common case, where wrapping changes nothing).
class IntConversion {
public:
  explicit IntConversion(ScalarType type) : type(type) {
    unsigned bits = getBitWidth(type);
    wide = bits >= 64;
    if (isUnsigned(type)) {
      min = 0;
      max = std::ldexp(1.0, bits) - 1;
    } else {
      min = -std::ldexp(1.0, bits - 1);
      max = std::ldexp(1.0, bits - 1) - 1;
    }
  }
  double operator()(double value) const {
    if (type == ScalarType::Bool)
      return value != 0 ? 1 : 0;
    // For 64-bit types max rounds up to 2^63 (2^64): convertTo then only
    // truncates, as here. Narrower types go through an int64_t there, which
    // turns -0 into +0; so does adding +0.
    if (value >= min && value <= max)
      return wide ? std::trunc(value) : std::trunc(value) + 0.0;
    return convertTo(value, type);
  }

private:
  ScalarType type;
  bool wide;
  double min, max;
};

int64_t floorDiv(int64_t a, int64_t b) {
  // INT64_MIN / -1 traps in hardware; -a wraps as the store would.
  if (b == -1)
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

//===----------------------------------------------------------------------===//
// Lane subsets (for `?:`, `&&`, `||`)
//===----------------------------------------------------------------------===//

/// The lanes of a parent batch where a mask is set, gathered into a dense
/// batch of their own, to evaluate an operand only where it is selected.
class LaneSubset {
public:
  explicit LaneSubset(unsigned numVars)
      : values(numVars * kBatch), indices(numVars * kBatch), valuePtrs(numVars),
        indexPtrs(numVars) {
    for (unsigned v = 0; v < numVars; ++v) {
      valuePtrs[v] = values.data() + v * kBatch;
      indexPtrs[v] = indices.data() + v * kBatch;
    }
  }

  /// Gathers the lanes of \p parent where \p mask is \p want; returns them.
  const Lanes &select(const Lanes &parent, const double *mask, bool want) {
    unsigned n = 0;
    for (unsigned l = 0; l < parent.n; ++l)
      if ((mask[l] != 0) == want)
        lanes[n++] = l;
    for (unsigned v = 0; v < valuePtrs.size(); ++v) {
      double *valueOut = values.data() + v * kBatch;
      int64_t *indexOut = indices.data() + v * kBatch;
      for (unsigned k = 0; k < n; ++k) {
        valueOut[k] = parent.values[v][lanes[k]];
        indexOut[k] = parent.indices[v][lanes[k]];
      }
    }
    subset.n = n;
    subset.values = valuePtrs.data();
    subset.indices = indexPtrs.data();
    subset.rowStart = nullptr;
    return subset;
  }

  /// Writes \p from (the values of the selected lanes) to their places.
  void scatter(const double *from, double *to) const {
    for (unsigned k = 0; k < subset.n; ++k)
      to[lanes[k]] = from[k];
  }

private:
  std::vector<double> values;
  std::vector<int64_t> indices;
  std::vector<const double *> valuePtrs;
  std::vector<const int64_t *> indexPtrs;
  std::array<unsigned, kBatch> lanes;
  Lanes subset;
};

/// How many of the first \p n values of \p mask are non-zero.
unsigned countSet(const double *mask, unsigned n) {
  unsigned count = 0;
  for (unsigned l = 0; l < n; ++l)
    count += mask[l] != 0;
  return count;
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

class ConstNode : public Node {
public:
  explicit ConstNode(double value) { out.fill(value); }
  const double *eval(const Lanes &, EvalState &) override { return out.data(); }

private:
  Values out;
};

class VarNode : public Node {
public:
  explicit VarNode(unsigned var) : var(var) {}
  const double *eval(const Lanes &lanes, EvalState &) override {
    return lanes.values[var];
  }

private:
  unsigned var;
};

/// An expression that fails wherever it is evaluated.
class ErrorNode : public Node {
public:
  ErrorNode(Location loc, std::string message)
      : loc(loc), message(std::move(message)) {
    out.fill(0);
  }
  const double *eval(const Lanes &lanes, EvalState &state) override {
    if (lanes.n)
      state.fail(loc, message);
    return out.data();
  }

private:
  Location loc;
  std::string message;
  Values out;
};

class UnaryNode : public Node {
public:
  UnaryNode(UnaryOp op, ScalarType type, NodePtr operand)
      : op(op), integral(isIntegral(type)), conversion(type),
        operand(std::move(operand)) {}
  const double *eval(const Lanes &lanes, EvalState &state) override {
    const double *a = operand->eval(lanes, state);
    unsigned n = lanes.n;
    if (op == UnaryOp::Not)
      for (unsigned l = 0; l < n; ++l)
        out[l] = a[l] == 0 ? 1 : 0;
    else if (integral)
      for (unsigned l = 0; l < n; ++l)
        out[l] = conversion(-a[l]);
    else
      for (unsigned l = 0; l < n; ++l)
        out[l] = -a[l];
    return out.data();
  }

private:
  UnaryOp op;
  bool integral;
  IntConversion conversion;
  NodePtr operand;
  Values out;
};

class CastNode : public Node {
public:
  CastNode(ScalarType type, NodePtr operand)
      : type(type), conversion(type), operand(std::move(operand)) {}
  const double *eval(const Lanes &lanes, EvalState &state) override {
    const double *a = operand->eval(lanes, state);
    unsigned n = lanes.n;
    if (isIntegral(type))
      for (unsigned l = 0; l < n; ++l)
        out[l] = conversion(a[l]);
    else
      for (unsigned l = 0; l < n; ++l)
        out[l] = convertTo(a[l], type);
    return out.data();
  }

private:
  ScalarType type;
  IntConversion conversion;
  NodePtr operand;
  Values out;
};

/// Every binary operator but `&&` and `||`.
class BinaryNode : public Node {
public:
  BinaryNode(BinaryOp op, ScalarType type, Location loc, NodePtr lhs,
             NodePtr rhs)
      : op(op), integral(isIntegral(type)), conversion(type), loc(loc),
        lhs(std::move(lhs)), rhs(std::move(rhs)) {}

  const double *eval(const Lanes &lanes, EvalState &state) override {
    const double *a = lhs->eval(lanes, state);
    const double *b = rhs->eval(lanes, state);
    unsigned n = lanes.n;
    double *o = out.data();
    auto loop = [&](auto f) {
      for (unsigned l = 0; l < n; ++l)
        o[l] = f(a[l], b[l]);
    };
    switch (op) {
    case BinaryOp::Add:
      if (integral)
        loop([&](double x, double y) { return conversion(x + y); });
      else
        loop([](double x, double y) { return x + y; });
      break;
    case BinaryOp::Sub:
      if (integral)
        loop([&](double x, double y) { return conversion(x - y); });
      else
        loop([](double x, double y) { return x - y; });
      break;
    case BinaryOp::Mul:
      if (integral)
        loop([&](double x, double y) { return conversion(x * y); });
      else
        loop([](double x, double y) { return x * y; });
      break;
    case BinaryOp::Div:
      if (!integral) {
        loop([](double x, double y) { return x / y; });
        break;
      }
      for (unsigned l = 0; l < n; ++l) {
        if (b[l] == 0) {
          state.fail(loc, "integer division by zero");
          o[l] = 0;
          continue;
        }
        o[l] = conversion(static_cast<double>(
            floorDiv(static_cast<int64_t>(a[l]), static_cast<int64_t>(b[l]))));
      }
      break;
    case BinaryOp::Mod:
      if (!integral) {
        loop([](double x, double y) { return std::fmod(x, y); });
        break;
      }
      for (unsigned l = 0; l < n; ++l) {
        if (b[l] == 0) {
          state.fail(loc, "integer modulo by zero");
          o[l] = 0;
          continue;
        }
        int64_t x = static_cast<int64_t>(a[l]), y = static_cast<int64_t>(b[l]);
        // x % -1 is 0; computing it may overflow (INT64_MIN).
        o[l] = y == -1 ? 0 : static_cast<double>(x - y * floorDiv(x, y));
      }
      break;
    case BinaryOp::Less:
      loop([](double x, double y) -> double { return x < y; });
      break;
    case BinaryOp::Greater:
      loop([](double x, double y) -> double { return x > y; });
      break;
    case BinaryOp::LessEqual:
      loop([](double x, double y) -> double { return x <= y; });
      break;
    case BinaryOp::GreaterEqual:
      loop([](double x, double y) -> double { return x >= y; });
      break;
    case BinaryOp::Equal:
      loop([](double x, double y) -> double { return x == y; });
      break;
    case BinaryOp::NotEqual:
      loop([](double x, double y) -> double { return x != y; });
      break;
    case BinaryOp::Min:
      loop([](double x, double y) { return std::min(x, y); });
      break;
    case BinaryOp::Max:
      loop([](double x, double y) { return std::max(x, y); });
      break;
    case BinaryOp::And:
    case BinaryOp::Or:
      llvm_unreachable("compiled as a LogicNode");
    }
    return o;
  }

private:
  BinaryOp op;
  bool integral;
  IntConversion conversion;
  Location loc;
  NodePtr lhs, rhs;
  Values out;
};

/// `a && b` and `a || b`: b is evaluated only on the lanes where a does not
/// decide the result, as C short-circuits.
class LogicNode : public Node {
public:
  LogicNode(bool isAnd, unsigned numVars, NodePtr lhs, NodePtr rhs)
      : isAnd(isAnd), subset(numVars), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}

  const double *eval(const Lanes &lanes, EvalState &state) override {
    const double *a = lhs->eval(lanes, state);
    unsigned n = lanes.n;
    // `&&` needs b where a is true, `||` where a is false.
    unsigned numTrue = countSet(a, n);
    unsigned numNeeded = isAnd ? numTrue : n - numTrue;
    double decided = isAnd ? 0 : 1;
    if (numNeeded == 0) {
      std::fill_n(out.data(), n, decided);
      return out.data();
    }
    if (numNeeded == n) {
      const double *b = rhs->eval(lanes, state);
      for (unsigned l = 0; l < n; ++l)
        out[l] = b[l] != 0 ? 1 : 0;
      return out.data();
    }
    // a is copied first: evaluating b may not reuse a's values, but a's
    // values may be the lanes' own (a variable).
    std::array<double, kBatch> mask;
    std::copy_n(a, n, mask.data());
    const Lanes &needed = subset.select(lanes, mask.data(), isAnd);
    const double *b = rhs->eval(needed, state);
    std::array<double, kBatch> bits;
    for (unsigned k = 0; k < needed.n; ++k)
      bits[k] = b[k] != 0 ? 1 : 0;
    for (unsigned l = 0; l < n; ++l)
      out[l] = decided;
    subset.scatter(bits.data(), out.data());
    return out.data();
  }

private:
  bool isAnd;
  LaneSubset subset;
  NodePtr lhs, rhs;
  Values out;
};

/// `c ? a : b`: each branch is evaluated only on the lanes that select it.
class TernaryNode : public Node {
public:
  TernaryNode(unsigned numVars, NodePtr cond, NodePtr trueValue,
              NodePtr falseValue)
      : trueLanes(numVars), falseLanes(numVars), cond(std::move(cond)),
        trueValue(std::move(trueValue)), falseValue(std::move(falseValue)) {}

  const double *eval(const Lanes &lanes, EvalState &state) override {
    const double *c = cond->eval(lanes, state);
    unsigned n = lanes.n;
    unsigned numTrue = countSet(c, n);
    if (numTrue == n)
      return trueValue->eval(lanes, state);
    if (numTrue == 0)
      return falseValue->eval(lanes, state);
    std::copy_n(c, n, mask.data());
    const Lanes &onTrue = trueLanes.select(lanes, mask.data(), true);
    trueLanes.scatter(trueValue->eval(onTrue, state), out.data());
    const Lanes &onFalse = falseLanes.select(lanes, mask.data(), false);
    falseLanes.scatter(falseValue->eval(onFalse, state), out.data());
    return out.data();
  }

private:
  LaneSubset trueLanes, falseLanes;
  NodePtr cond, trueValue, falseValue;
  Values mask, out;
};

class BuiltinNode : public Node {
public:
  BuiltinNode(BuiltinFunction function, llvm::SmallVector<NodePtr, 4> args)
      : function(function), args(std::move(args)) {}

  const double *eval(const Lanes &lanes, EvalState &state) override {
    llvm::SmallVector<const double *, 4> values;
    for (NodePtr &arg : args)
      values.push_back(arg->eval(lanes, state));
    llvm::SmallVector<double, 4> point(args.size());
    for (unsigned l = 0; l < lanes.n; ++l) {
      for (size_t a = 0; a < values.size(); ++a)
        point[a] = values[a][l];
      out[l] = function(point);
    }
    return out.data();
  }

private:
  BuiltinFunction function;
  llvm::SmallVector<NodePtr, 4> args;
  Values out;
};

/// A read whose flat offset is affine in the index variables and that range
/// analysis proved inside the tensor over the whole box: no bounds checks.
class AffineReadNode : public Node {
public:
  /// Offset of a lane: offset + sum of strides[v] * variable v.
  AffineReadNode(const double *data, int64_t offset,
                 llvm::ArrayRef<int64_t> strides)
      : data(data), offset(offset), strides(strides.begin(), strides.end()) {
    for (size_t v = 0; v < strides.size(); ++v)
      if (strides[v] != 0)
        terms.push_back({static_cast<unsigned>(v), strides[v]});
  }

  const double *eval(const Lanes &lanes, EvalState &) override {
    unsigned n = lanes.n;
    if (lanes.rowStart) {
      // Partial sums may leave int64 where the total does not: unsigned
      // arithmetic wraps back.
      uint64_t base = offset;
      for (auto [var, stride] : terms)
        base += static_cast<uint64_t>(stride) *
                static_cast<uint64_t>(lanes.rowStart[var]);
      const double *from = data + static_cast<int64_t>(base);
      int64_t lastStride = strides[lanes.inner];
      if (lastStride == 1)
        return from; // Consecutive elements: the tensor's own storage.
      for (unsigned l = 0; l < n; ++l)
        out[l] = from[static_cast<int64_t>(l) * lastStride];
      return out.data();
    }
    std::fill_n(offsets.data(), n, static_cast<uint64_t>(offset));
    for (auto [var, stride] : terms) {
      const int64_t *index = lanes.indices[var];
      for (unsigned l = 0; l < n; ++l)
        offsets[l] +=
            static_cast<uint64_t>(stride) * static_cast<uint64_t>(index[l]);
    }
    for (unsigned l = 0; l < n; ++l)
      out[l] = data[static_cast<int64_t>(offsets[l])];
    return out.data();
  }

private:
  const double *data;
  int64_t offset;
  llvm::SmallVector<int64_t, 4> strides;
  llvm::SmallVector<std::pair<unsigned, int64_t>, 4> terms;
  std::array<uint64_t, kBatch> offsets;
  Values out;
};

/// Any other read: indices computed per lane and checked.
class ReadNode : public Node {
public:
  ReadNode(const Storage &storage, llvm::StringRef name, Location loc,
           llvm::SmallVector<NodePtr, 4> args)
      : storage(storage), name(name), loc(loc), args(std::move(args)) {}

  const double *eval(const Lanes &lanes, EvalState &state) override {
    llvm::SmallVector<const double *, 4> index;
    for (NodePtr &arg : args)
      index.push_back(arg->eval(lanes, state));
    const Tensor &tensor = storage.tensor;
    bool empty = tensor.data.empty();
    for (unsigned l = 0; l < lanes.n; ++l) {
      int64_t offset = 0;
      bool inside = !empty;
      for (size_t d = 0; d < index.size() && inside; ++d) {
        int64_t i = static_cast<int64_t>(index[d][l]) - storage.lo[d];
        inside = i >= 0 && i < tensor.shape[d];
        offset = offset * tensor.shape[d] + i;
      }
      if (inside) {
        out[l] = tensor.data[offset];
        continue;
      }
      out[l] = 0;
      if (!state.report) {
        state.failed = true;
        continue;
      }
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "read of '" << name << "' at (";
      llvm::interleaveComma(index, os, [&](const double *values) {
        os << static_cast<int64_t>(values[l]);
      });
      os << ") is out of bounds";
      state.fail(loc, text);
    }
    return out.data();
  }

private:
  const Storage &storage;
  llvm::StringRef name;
  Location loc;
  llvm::SmallVector<NodePtr, 4> args;
  Values out;
};

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

/// constant + sum of coefficients[v] * variable v, for integer expressions
/// whose every intermediate value provably fits its type over the box (so
/// that wrapping never applies) and stays exact in a double.
struct Affine {
  int64_t constant = 0;
  llvm::SmallVector<int64_t, 4> coefficients;
};

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_add_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t result;
  if (__builtin_mul_overflow(a, b, &result))
    return std::nullopt;
  return result;
}

} // namespace

struct ExprCompiler::Compiled {
  NodePtr node;
  std::optional<Affine> affine;
};

namespace {

/// The interval of \p affine over \p box, if it does not overflow.
std::optional<std::pair<int64_t, int64_t>> getInterval(const Affine &affine,
                                                       const Box &box) {
  std::optional<int64_t> lo = affine.constant, hi = affine.constant;
  for (auto [coefficient, first, end] :
       llvm::zip(affine.coefficients, box.lo, box.hi)) {
    if (coefficient == 0)
      continue;
    std::optional<int64_t> a = checkedMul(coefficient, first);
    std::optional<int64_t> b = checkedMul(coefficient, end - 1);
    if (!a || !b)
      return std::nullopt;
    lo = checkedAdd(*lo, std::min(*a, *b));
    hi = checkedAdd(*hi, std::max(*a, *b));
    if (!lo || !hi)
      return std::nullopt;
  }
  return std::make_pair(*lo, *hi);
}

/// \p affine if every value it takes over \p box is one of \p type's and
/// exact in a double.
std::optional<Affine> checkFits(std::optional<Affine> affine, ScalarType type,
                                const Box &box) {
  if (!affine || !isIntegral(type) || type == ScalarType::Bool)
    return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> interval =
      getInterval(*affine, box);
  if (!interval)
    return std::nullopt;
  constexpr double kExact = 9007199254740992.0; // 2^53
  double lo = static_cast<double>(interval->first);
  double hi = static_cast<double>(interval->second);
  unsigned bits = getBitWidth(type);
  double min = isUnsigned(type) ? 0 : -std::ldexp(1.0, bits - 1);
  double max = isUnsigned(type) ? std::ldexp(1.0, bits) - 1
                                : std::ldexp(1.0, bits - 1) - 1;
  if (lo < std::max(min, -kExact) || hi > std::min(max, kExact))
    return std::nullopt;
  return affine;
}

std::optional<Affine> combineAffine(const std::optional<Affine> &a,
                                    const std::optional<Affine> &b,
                                    int64_t sign) {
  if (!a || !b)
    return std::nullopt;
  Affine result = *a;
  std::optional<int64_t> constant = checkedAdd(a->constant, sign * b->constant);
  if (!constant)
    return std::nullopt;
  result.constant = *constant;
  for (auto [to, from] : llvm::zip(result.coefficients, b->coefficients)) {
    std::optional<int64_t> sum = checkedAdd(to, sign * from);
    if (!sum)
      return std::nullopt;
    to = *sum;
  }
  return result;
}

bool isConstant(const Affine &affine) {
  return llvm::all_of(affine.coefficients, [](int64_t c) { return c == 0; });
}

std::optional<Affine> scaleAffine(const Affine &a, int64_t factor) {
  Affine result = a;
  std::optional<int64_t> constant = checkedMul(a.constant, factor);
  if (!constant)
    return std::nullopt;
  result.constant = *constant;
  for (int64_t &c : result.coefficients) {
    std::optional<int64_t> scaled = checkedMul(c, factor);
    if (!scaled)
      return std::nullopt;
    c = *scaled;
  }
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// The compiler
//===----------------------------------------------------------------------===//

int ExprCompiler::findVar(llvm::StringRef name) const {
  for (size_t v = 0; v < box.vars.size(); ++v)
    if (box.vars[v] == name)
      return static_cast<int>(v);
  return -1;
}

NodePtr ExprCompiler::compile(const Expr &expr) {
  Compiled compiled = compileImpl(expr);
  if (error)
    return nullptr;
  return std::move(compiled.node);
}

ExprCompiler::Compiled ExprCompiler::compileConstant(double value,
                                                     ScalarType type) {
  Compiled result{std::make_unique<ConstNode>(value), std::nullopt};
  if (value == std::trunc(value) && std::abs(value) < 9.2e18) {
    Affine affine;
    affine.constant = static_cast<int64_t>(value);
    affine.coefficients.assign(box.vars.size(), 0);
    result.affine = checkFits(affine, type, box);
  }
  return result;
}

ExprCompiler::Compiled ExprCompiler::fail(const Expr &expr,
                                          const llvm::Twine &message) {
  diags.emitError(expr.getLoc(), message).report();
  error = true;
  return Compiled{std::make_unique<ConstNode>(0), std::nullopt};
}

ExprCompiler::Compiled ExprCompiler::compileIdent(const IdentExpr &ident) {
  ScalarType type = ident.getType();
  switch (ident.getRef()) {
  case IdentExpr::Ref::Index: {
    int var = findVar(ident.getName());
    if (var < 0)
      return compileConstant(0, type);
    Affine affine;
    affine.coefficients.assign(box.vars.size(), 0);
    affine.coefficients[var] = 1;
    ++laneUsers;
    return {std::make_unique<VarNode>(var), checkFits(affine, type, box)};
  }
  case IdentExpr::Ref::Size:
    return compileConstant(static_cast<double>(sizes.lookup(ident.getName())),
                           type);
  case IdentExpr::Ref::Let:
    // Re-evaluated at each use, like the scalar interpreter: one tree per
    // use, so no node's values are overwritten while still needed.
    return compileImpl(ident.getLet()->getValue());
  case IdentExpr::Ref::Tensor: {
    // A 0-d tensor: constant while the statement runs (its own stores
    // happen at the end of the statement).
    const Storage *storage = lookupTensor(ident.getName());
    if (!storage || storage->tensor.data.empty())
      return {std::make_unique<ErrorNode>(
                  ident.getLoc(), ("'" + ident.getName() + "' is empty").str()),
              std::nullopt};
    return {std::make_unique<ConstNode>(storage->tensor.data[0]), std::nullopt};
  }
  case IdentExpr::Ref::Unresolved:
    break;
  }
  return fail(ident, "unresolved name");
}

ExprCompiler::Compiled
ExprCompiler::compileDimAccess(const DimAccessExpr &dim) {
  const Storage *storage = lookupTensor(dim.getTensor().name);
  if (!storage || dim.getDim() < 0 ||
      dim.getDim() >= static_cast<int64_t>(storage->tensor.shape.size()))
    return fail(dim, "no extent " + llvm::Twine(dim.getDim()) + " of '" +
                         dim.getTensor().name + "'");
  return compileConstant(
      static_cast<double>(storage->tensor.shape[dim.getDim()]), dim.getType());
}

ExprCompiler::Compiled ExprCompiler::compileBinary(const BinaryExpr &binary) {
  ScalarType type = binary.getType();
  BinaryOp op = binary.getOp();
  Compiled lhs = compileImpl(binary.getLhs());
  Compiled rhs = compileImpl(binary.getRhs());
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    ++laneUsers;
    return {std::make_unique<LogicNode>(op == BinaryOp::And, box.vars.size(),
                                        std::move(lhs.node),
                                        std::move(rhs.node)),
            std::nullopt};
  }
  std::optional<Affine> affine;
  if (op == BinaryOp::Add || op == BinaryOp::Sub)
    affine =
        combineAffine(lhs.affine, rhs.affine, op == BinaryOp::Add ? 1 : -1);
  else if (op == BinaryOp::Mul && lhs.affine && rhs.affine) {
    if (isConstant(*lhs.affine))
      affine = scaleAffine(*rhs.affine, lhs.affine->constant);
    else if (isConstant(*rhs.affine))
      affine = scaleAffine(*lhs.affine, rhs.affine->constant);
  }
  return {std::make_unique<BinaryNode>(op, type, binary.getLoc(),
                                       std::move(lhs.node),
                                       std::move(rhs.node)),
          checkFits(affine, type, box)};
}

ExprCompiler::Compiled ExprCompiler::compileApply(const ApplyExpr &apply) {
  if (apply.isTensorRead())
    return compileRead(apply);
  llvm::SmallVector<NodePtr, 4> args;
  for (const ExprPtr &arg : apply.getArgs())
    args.push_back(compileImpl(*arg).node);
  BuiltinFunction function = getBuiltinFunction(apply.getCallee().name);
  if (!function || getBuiltinArity(apply.getCallee().name) != args.size())
    return {std::make_unique<ConstNode>(NAN), std::nullopt};
  return {std::make_unique<BuiltinNode>(function, std::move(args)),
          std::nullopt};
}

namespace comprehend::tc::eval {

/// ExprCompiler::compileImpl by kind.
class CompileDispatch
    : public ConstExprVisitor<CompileDispatch, ExprCompiler::Compiled> {
public:
  explicit CompileDispatch(ExprCompiler &compiler) : compiler(compiler) {}

  ExprCompiler::Compiled visitIntLit(const IntLitExpr &lit) {
    return compiler.compileConstant(static_cast<double>(lit.getValue()),
                                    lit.getType());
  }
  ExprCompiler::Compiled visitFloatLit(const FloatLitExpr &lit) {
    return {std::make_unique<ConstNode>(lit.getValue()), std::nullopt};
  }
  ExprCompiler::Compiled visitIdent(const IdentExpr &ident) {
    return compiler.compileIdent(ident);
  }
  ExprCompiler::Compiled visitDimAccess(const DimAccessExpr &dim) {
    return compiler.compileDimAccess(dim);
  }
  ExprCompiler::Compiled visitUnary(const UnaryExpr &unary) {
    return compiler.compileUnary(unary);
  }
  ExprCompiler::Compiled visitBinary(const BinaryExpr &binary) {
    return compiler.compileBinary(binary);
  }
  ExprCompiler::Compiled visitTernary(const TernaryExpr &ternary) {
    return compiler.compileTernary(ternary);
  }
  ExprCompiler::Compiled visitApply(const ApplyExpr &apply) {
    return compiler.compileApply(apply);
  }
  ExprCompiler::Compiled visitCast(const CastExpr &cast) {
    return compiler.compileCast(cast);
  }

private:
  ExprCompiler &compiler;
};

} // namespace comprehend::tc::eval

ExprCompiler::Compiled ExprCompiler::compileImpl(const Expr &expr) {
  return CompileDispatch(*this).visit(expr);
}

ExprCompiler::Compiled ExprCompiler::compileUnary(const UnaryExpr &unary) {
  ScalarType type = unary.getType();
  Compiled operand = compileImpl(unary.getOperand());
  std::optional<Affine> affine;
  if (unary.getOp() == UnaryOp::Neg && operand.affine)
    affine = checkFits(scaleAffine(*operand.affine, -1), type, box);
  return {
      std::make_unique<UnaryNode>(unary.getOp(), type, std::move(operand.node)),
      affine};
}

ExprCompiler::Compiled
ExprCompiler::compileTernary(const TernaryExpr &ternary) {
  Compiled cond = compileImpl(ternary.getCond());
  Compiled trueValue = compileImpl(ternary.getTrueValue());
  Compiled falseValue = compileImpl(ternary.getFalseValue());
  ++laneUsers;
  return {std::make_unique<TernaryNode>(box.vars.size(), std::move(cond.node),
                                        std::move(trueValue.node),
                                        std::move(falseValue.node)),
          std::nullopt};
}

ExprCompiler::Compiled ExprCompiler::compileCast(const CastExpr &cast) {
  ScalarType type = cast.getType();
  Compiled operand = compileImpl(cast.getOperand());
  // A conversion between integer types changes nothing when the value fits
  // the new type, which checkFits proves.
  return {std::make_unique<CastNode>(type, std::move(operand.node)),
          checkFits(operand.affine, type, box)};
}

ExprCompiler::Compiled ExprCompiler::compileRead(const ApplyExpr &apply) {
  llvm::StringRef name = apply.getCallee().name;
  const Storage *storage = lookupTensor(name);
  size_t rank = apply.getArgs().size();
  if (!storage || storage->tensor.shape.size() != rank ||
      storage->lo.size() != rank) {
    diags.emitError(apply.getLoc())
        << "no storage of rank " << rank << " for '" << name << "'";
    error = true;
    return {std::make_unique<ConstNode>(0), std::nullopt};
  }
  unsigned laneUsersBefore = laneUsers;
  llvm::SmallVector<Compiled, 4> args;
  for (const ExprPtr &arg : apply.getArgs())
    args.push_back(compileImpl(*arg));

  // The flat offset sum_d stride_d * (index_d - lo_d), if every index is
  // affine and provably inside its dimension over the whole box.
  const Tensor &tensor = storage->tensor;
  bool affine = getNumPoints(box) > 0 && !tensor.data.empty();
  Affine offset;
  offset.coefficients.assign(box.vars.size(), 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0 && affine;) {
    const std::optional<Affine> &index = args[d].affine;
    std::optional<std::pair<int64_t, int64_t>> interval;
    if (index)
      interval = getInterval(*index, box);
    if (!interval || interval->first < storage->lo[d] ||
        interval->second >= storage->lo[d] + tensor.shape[d]) {
      affine = false;
      break;
    }
    std::optional<int64_t> constant =
        checkedMul(stride, index->constant - storage->lo[d]);
    if (constant)
      constant = checkedAdd(offset.constant, *constant);
    affine = constant.has_value();
    if (constant)
      offset.constant = *constant;
    for (auto [to, from] :
         llvm::zip(offset.coefficients, index->coefficients)) {
      std::optional<int64_t> term = checkedMul(stride, from);
      if (term)
        term = checkedAdd(to, *term);
      affine &= term.has_value();
      if (term)
        to = *term;
    }
    stride *= tensor.shape[d];
  }
  if (affine) {
    laneUsers = laneUsersBefore; // The index nodes are dropped.
    affineReads.push_back(offset.coefficients);
    return {std::make_unique<AffineReadNode>(
                tensor.data.data(), offset.constant, offset.coefficients),
            std::nullopt};
  }
  llvm::SmallVector<NodePtr, 4> argNodes;
  for (Compiled &arg : args)
    argNodes.push_back(std::move(arg.node));
  return {std::make_unique<ReadNode>(*storage, name, apply.getLoc(),
                                     std::move(argNodes)),
          std::nullopt};
}
