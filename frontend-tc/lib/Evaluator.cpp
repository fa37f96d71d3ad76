//===- Evaluator.cpp - Reference interpreter of TC programs ---------------===//
#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/Builtins.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace comprehend;
using namespace comprehend::tc;

//===----------------------------------------------------------------------===//
// Tensor and conversions
//===----------------------------------------------------------------------===//

Tensor::Tensor(ScalarType type, llvm::ArrayRef<int64_t> shape,
               std::vector<double> values)
    : type(type), shape(shape.begin(), shape.end()), data(std::move(values)) {
  if (data.empty())
    data.assign(getNumElements(), 0.0);
}

int64_t Tensor::getNumElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= std::max<int64_t>(extent, 0);
  return count;
}

int64_t Tensor::getOffset(llvm::ArrayRef<int64_t> index) const {
  int64_t offset = 0;
  for (auto [i, extent] : llvm::zip(index, shape))
    offset = offset * extent + i;
  return offset;
}

static double wrapInteger(double value, unsigned bits, bool isUnsignedType) {
  if (!std::isfinite(value))
    return 0;
  // Truncate towards zero, then wrap modulo 2^bits like a C conversion of
  // an in-range value (and a two's complement store of an out-of-range one).
  double truncated = std::trunc(value);
  if (bits >= 64)
    return truncated;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t raw = static_cast<uint64_t>(static_cast<int64_t>(
                     std::fmod(truncated, 18446744073709551616.0))) &
                 mask;
  if (isUnsignedType)
    return static_cast<double>(raw);
  uint64_t signBit = uint64_t(1) << (bits - 1);
  return raw & signBit ? static_cast<double>(static_cast<int64_t>(raw) -
                                             static_cast<int64_t>(mask) - 1)
                       : static_cast<double>(raw);
}

double tc::convertTo(double value, ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return value != 0 ? 1 : 0;
  case ScalarType::Half:
#ifdef __FLT16_MAX__
    return static_cast<double>(static_cast<_Float16>(value));
#else
    return static_cast<double>(static_cast<float>(value));
#endif
  case ScalarType::Float:
    return static_cast<double>(static_cast<float>(value));
  case ScalarType::Double:
    return value;
  default:
    return wrapInteger(value, getBitWidth(type), isUnsigned(type));
  }
}

static double identityOf(ReductionKind kind, ScalarType type) {
  switch (kind) {
  case ReductionKind::Add:
  case ReductionKind::None:
    return 0;
  case ReductionKind::Mul:
    return 1;
  case ReductionKind::Min:
    if (isFloatingPoint(type))
      return std::numeric_limits<double>::infinity();
    return isUnsigned(type) ? std::ldexp(1.0, getBitWidth(type)) - 1
                            : std::ldexp(1.0, getBitWidth(type) - 1) - 1;
  case ReductionKind::Max:
    if (isFloatingPoint(type))
      return -std::numeric_limits<double>::infinity();
    return isUnsigned(type) ? 0 : -std::ldexp(1.0, getBitWidth(type) - 1);
  }
  return 0;
}

static double combine(ReductionKind kind, double acc, double value) {
  switch (kind) {
  case ReductionKind::None:
    return value;
  case ReductionKind::Add:
    return acc + value;
  case ReductionKind::Mul:
    return acc * value;
  case ReductionKind::Min:
    return std::min(acc, value);
  case ReductionKind::Max:
    return std::max(acc, value);
  }
  return value;
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

namespace {

/// A tensor of the running def: storage plus the lower bound of each
/// dimension (non-zero for outputs whose inferred range does not start at 0).
struct Storage {
  Tensor tensor;
  llvm::SmallVector<int64_t, 4> lo;
};

class Interpreter {
public:
  Interpreter(const Program &program, const Def &def, DiagnosticEngine &diags)
      : program(program), def(def), diags(diags) {}

  std::optional<llvm::StringMap<Tensor>>
  run(const llvm::StringMap<Tensor> &args,
      const llvm::StringMap<int64_t> &givenSizes);

private:
  LogicalResult bindInputs(const llvm::StringMap<Tensor> &args);
  LogicalResult allocate(const DefRanges &ranges,
                         const llvm::StringMap<Tensor> &args);
  LogicalResult runComprehension(const ComprehensionStmt &stmt,
                                 const poly::StatementRanges &ranges);
  LogicalResult runCall(const CallStmt &call);
  double eval(const Expr &expr);
  /// Records the first evaluation error; evaluation continues with 0 and
  /// the statement fails afterwards.
  double fail(Location loc, const llvm::Twine &message) {
    if (!error) {
      diags.emitError(loc, message).report();
      error = true;
    }
    return 0;
  }

  const Program &program;
  const Def &def;
  DiagnosticEngine &diags;
  llvm::StringMap<int64_t> sizes;
  llvm::StringMap<Storage> tensors;
  llvm::StringMap<int64_t> indexValues;
  bool error = false;
};

} // namespace

LogicalResult Interpreter::bindInputs(const llvm::StringMap<Tensor> &args) {
  for (const Param &input : def.getInputs()) {
    llvm::StringRef name = input.name.name;
    auto it = args.find(name);
    if (it == args.end())
      return diags.emitError(input.name.loc)
             << "no value given for input '" << name << "' of '"
             << def.getName().name << "'";
    const Tensor &arg = it->second;
    const TensorType &type = *input.type;
    if (arg.shape.size() != type.dims.size())
      return diags.emitError(input.name.loc)
             << "input '" << name << "' expects " << type.dims.size()
             << " dimensions but the value has " << arg.shape.size();
    if (static_cast<int64_t>(arg.data.size()) != arg.getNumElements())
      return diags.emitError(input.name.loc)
             << "the value of input '" << name << "' has " << arg.data.size()
             << " elements but its shape needs " << arg.getNumElements();
    for (auto [extent, dim] : llvm::zip(arg.shape, type.dims)) {
      if (dim.sizeVar.empty()) {
        if (extent != dim.constant)
          return diags.emitError(dim.loc)
                 << "input '" << name << "' expects extent " << dim.constant
                 << " but the value has " << extent;
        continue;
      }
      auto [bound, inserted] = sizes.try_emplace(dim.sizeVar, extent);
      if (!inserted && bound->second != extent)
        return diags.emitError(dim.loc)
               << "mismatched sizes for size variable '" << dim.sizeVar
               << "': " << bound->second << " elsewhere but " << extent
               << " for input '" << name << "'";
    }
    Storage storage;
    storage.tensor = Tensor(type.scalar, arg.shape);
    for (auto [to, from] : llvm::zip(storage.tensor.data, arg.data))
      to = convertTo(from, type.scalar);
    storage.lo.assign(arg.shape.size(), 0);
    tensors[name] = std::move(storage);
  }
  return success();
}

LogicalResult Interpreter::allocate(const DefRanges &ranges,
                                    const llvm::StringMap<Tensor> &args) {
  for (const auto &[name, info] : def.getTensors()) {
    if (info.role == TensorInfo::Role::Input)
      continue;
    auto shapeIt = ranges.shapes.find(name);
    if (shapeIt == ranges.shapes.end())
      continue; // Written only by a call: allocated there.
    const poly::TensorShape &shape = shapeIt->second;
    Storage storage;
    llvm::SmallVector<int64_t, 4> extents;
    for (size_t d = 0; d < shape.extent.size(); ++d) {
      if (!shape.extent[d] || !shape.lo[d])
        return diags.emitError(info.loc)
               << "the shape of '" << name << "' is not concrete";
      extents.push_back(std::max<int64_t>(*shape.extent[d], 0));
      storage.lo.push_back(*shape.lo[d]);
    }
    storage.tensor = Tensor(info.type, extents);
    if (auto init = args.find(name);
        init != args.end() && info.role == TensorInfo::Role::Output) {
      if (init->second.shape != storage.tensor.shape ||
          init->second.data.size() != storage.tensor.data.size())
        return diags.emitError(info.loc)
               << "the initial value of output '" << name
               << "' does not have the inferred shape";
      for (auto [to, from] : llvm::zip(storage.tensor.data, init->second.data))
        to = convertTo(from, info.type);
    }
    tensors[name] = std::move(storage);
  }
  return success();
}

std::optional<llvm::StringMap<Tensor>>
Interpreter::run(const llvm::StringMap<Tensor> &args,
                 const llvm::StringMap<int64_t> &givenSizes) {
  for (const auto &size : givenSizes)
    sizes[size.first()] = size.second;
  if (failed(bindInputs(args)))
    return std::nullopt;
  for (const std::string &sizeVar : def.getSizeVars())
    if (!sizes.count(sizeVar)) {
      (void)(diags.emitError(def.getName().loc)
             << "size variable '" << sizeVar << "' has no value");
      return std::nullopt;
    }
  std::optional<DefRanges> ranges = inferRanges(program, def, sizes, diags);
  if (!ranges || failed(allocate(*ranges, args)))
    return std::nullopt;
  for (const StmtRanges &stmt : ranges->statements) {
    LogicalResult result =
        llvm::isa<CallStmt>(stmt.stmt)
            ? runCall(*llvm::cast<CallStmt>(stmt.stmt))
            : runComprehension(*llvm::cast<ComprehensionStmt>(stmt.stmt),
                               stmt.ranges);
    if (failed(result))
      return std::nullopt;
  }
  llvm::StringMap<Tensor> outputs;
  for (const Param &output : def.getOutputs())
    outputs[output.name.name] = tensors[output.name.name].tensor;
  return outputs;
}

LogicalResult Interpreter::runCall(const CallStmt &call) {
  const Def &callee = *call.getCalleeDef();
  llvm::StringMap<Tensor> calleeArgs;
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee.getInputs()))
    calleeArgs[param.name.name] = tensors[arg.name].tensor;
  std::optional<llvm::StringMap<Tensor>> results =
      Interpreter(program, callee, diags).run(calleeArgs, {});
  if (!results)
    return diags.emitError(call.getLoc())
           << "evaluation of the call of '" << callee.getName().name
           << "' failed";
  for (auto [result, output] :
       llvm::zip(call.getResults(), callee.getOutputs())) {
    Storage storage;
    storage.tensor = std::move((*results)[output.name.name]);
    storage.lo.assign(storage.tensor.shape.size(), 0);
    tensors[result.name] = std::move(storage);
  }
  return success();
}

LogicalResult
Interpreter::runComprehension(const ComprehensionStmt &stmt,
                              const poly::StatementRanges &ranges) {
  llvm::ArrayRef<std::string> vars = stmt.getIndexVars();
  llvm::SmallVector<int64_t, 4> lo, hi;
  for (const std::string &var : vars) {
    const poly::VarRange *range = ranges.lookup(var);
    if (!range || !range->lo || !range->hi)
      return diags.emitError(stmt.getLoc())
             << "the range of '" << var << "' is not concrete";
    lo.push_back(*range->lo);
    hi.push_back(*range->hi);
  }
  size_t numLhs = stmt.getIndices().size();
  Storage &target = tensors[stmt.getLhs().name];
  if (target.tensor.shape.size() != numLhs || target.lo.size() != numLhs)
    return diags.emitError(stmt.getLhs().loc)
           << "no storage of rank " << numLhs << " for '" << stmt.getLhs().name
           << "'";
  const TensorInfo *info = def.lookupTensor(stmt.getLhs().name);
  ScalarType type = info ? info->type : target.tensor.type;

  // One accumulator per point of the LHS box, starting from the identity
  // (`!`) or from the current contents.
  llvm::SmallVector<int64_t, 4> boxShape;
  for (size_t d = 0; d < numLhs; ++d)
    boxShape.push_back(std::max<int64_t>(hi[d] - lo[d], 0));
  Tensor acc(ScalarType::Double, boxShape);
  llvm::SmallVector<int64_t, 4> point(numLhs), storeIndex(numLhs);
  auto toStorage = [&](llvm::ArrayRef<int64_t> box) -> bool {
    for (size_t d = 0; d < numLhs; ++d) {
      storeIndex[d] = box[d] + lo[d] - target.lo[d];
      if (storeIndex[d] < 0 || storeIndex[d] >= target.tensor.shape[d])
        return false;
    }
    return true;
  };
  bool writesOutside = false;
  for (int64_t flat = 0; flat < acc.getNumElements(); ++flat) {
    int64_t rest = flat;
    for (size_t d = numLhs; d-- > 0;) {
      point[d] = rest % boxShape[d];
      rest /= boxShape[d];
    }
    if (!toStorage(point)) {
      writesOutside = true;
      break;
    }
    acc.data[flat] = stmt.hasInit() ? identityOf(stmt.getReduction(), type)
                                    : target.tensor.at(storeIndex);
  }
  if (writesOutside)
    return diags.emitError(stmt.getLhs().loc)
           << "the statement writes '" << stmt.getLhs().name
           << "' outside the shape inferred for it";

  // All points of the iteration space, the last variable fastest.
  llvm::SmallVector<int64_t, 4> values(lo.begin(), lo.end());
  bool empty = llvm::any_of(llvm::zip(lo, hi), [](auto pair) {
    return std::get<0>(pair) >= std::get<1>(pair);
  });
  while (!empty) {
    for (auto [var, value] : llvm::zip(vars, values))
      indexValues[var] = value;
    double value = eval(stmt.getRhs());
    if (error)
      return failure();
    for (size_t d = 0; d < numLhs; ++d)
      point[d] = values[d] - lo[d];
    double &slot = acc.at(point);
    slot = combine(stmt.getReduction(), slot, value);
    size_t d = vars.size();
    while (d > 0) {
      --d;
      if (++values[d] < hi[d])
        break;
      values[d] = lo[d];
      if (d == 0)
        empty = true;
    }
    if (vars.empty())
      empty = true;
  }
  indexValues.clear();

  for (int64_t flat = 0; flat < acc.getNumElements(); ++flat) {
    int64_t rest = flat;
    for (size_t d = numLhs; d-- > 0;) {
      point[d] = rest % boxShape[d];
      rest /= boxShape[d];
    }
    (void)toStorage(point);
    target.tensor.at(storeIndex) = convertTo(acc.data[flat], type);
  }
  return success();
}

double Interpreter::eval(const Expr &expr) {
  ScalarType type = expr.getType();
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
    return static_cast<double>(llvm::cast<IntLitExpr>(expr).getValue());
  case Expr::Kind::FloatLit:
    return llvm::cast<FloatLitExpr>(expr).getValue();
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    switch (ident.getRef()) {
    case IdentExpr::Ref::Index:
      return static_cast<double>(indexValues.lookup(ident.getName()));
    case IdentExpr::Ref::Size:
      return static_cast<double>(sizes.lookup(ident.getName()));
    case IdentExpr::Ref::Let:
      return eval(ident.getLet()->getValue());
    case IdentExpr::Ref::Tensor: {
      const Tensor &tensor = tensors[ident.getName()].tensor;
      if (tensor.data.empty())
        return fail(expr.getLoc(), "'" + ident.getName() + "' is empty");
      return tensor.data[0];
    }
    case IdentExpr::Ref::Unresolved:
      break;
    }
    return fail(expr.getLoc(), "unresolved name");
  }
  case Expr::Kind::DimAccess: {
    const auto &dim = llvm::cast<DimAccessExpr>(expr);
    const Tensor &tensor = tensors[dim.getTensor().name].tensor;
    return static_cast<double>(tensor.shape[dim.getDim()]);
  }
  case Expr::Kind::Unary: {
    const auto &unary = llvm::cast<UnaryExpr>(expr);
    double operand = eval(unary.getOperand());
    if (unary.getOp() == UnaryOp::Not)
      return operand == 0 ? 1 : 0;
    return isIntegral(type) ? convertTo(-operand, type) : -operand;
  }
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    BinaryOp op = binary.getOp();
    double a = eval(binary.getLhs());
    // `&&` and `||` short-circuit as in C.
    if (op == BinaryOp::And && a == 0)
      return 0;
    if (op == BinaryOp::Or && a != 0)
      return 1;
    double b = eval(binary.getRhs());
    bool integral = isIntegral(type);
    switch (op) {
    case BinaryOp::Add:
      return integral ? convertTo(a + b, type) : a + b;
    case BinaryOp::Sub:
      return integral ? convertTo(a - b, type) : a - b;
    case BinaryOp::Mul:
      return integral ? convertTo(a * b, type) : a * b;
    case BinaryOp::Div:
      if (!integral)
        return a / b;
      if (b == 0)
        return fail(expr.getLoc(), "integer division by zero");
      return convertTo(static_cast<double>(floorDiv(static_cast<int64_t>(a),
                                                    static_cast<int64_t>(b))),
                       type);
    case BinaryOp::Mod: {
      if (!integral)
        return std::fmod(a, b);
      if (b == 0)
        return fail(expr.getLoc(), "integer modulo by zero");
      int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
      return static_cast<double>(x - y * floorDiv(x, y));
    }
    case BinaryOp::Less:
      return a < b;
    case BinaryOp::Greater:
      return a > b;
    case BinaryOp::LessEqual:
      return a <= b;
    case BinaryOp::GreaterEqual:
      return a >= b;
    case BinaryOp::Equal:
      return a == b;
    case BinaryOp::NotEqual:
      return a != b;
    case BinaryOp::And:
    case BinaryOp::Or:
      return b != 0;
    case BinaryOp::Min:
      return std::min(a, b);
    case BinaryOp::Max:
      return std::max(a, b);
    }
    return 0;
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    return eval(ternary.getCond()) != 0 ? eval(ternary.getTrueValue())
                                        : eval(ternary.getFalseValue());
  }
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<ApplyExpr>(expr);
    llvm::SmallVector<double, 4> args;
    for (const ExprPtr &arg : apply.getArgs())
      args.push_back(eval(*arg));
    if (!apply.isTensorRead())
      return evaluateBuiltin(apply.getCallee().name, args);
    const Storage &storage = tensors[apply.getCallee().name];
    llvm::SmallVector<int64_t, 4> index;
    for (size_t d = 0; d < args.size(); ++d) {
      int64_t i = static_cast<int64_t>(args[d]) - storage.lo[d];
      if (i < 0 || i >= storage.tensor.shape[d]) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "read of '" << apply.getCallee().name << "' at (";
        llvm::interleaveComma(args, os,
                              [&](double v) { os << static_cast<int64_t>(v); });
        os << ") is out of bounds";
        return fail(expr.getLoc(), text);
      }
      index.push_back(i);
    }
    return storage.tensor.at(index);
  }
  case Expr::Kind::Cast:
    return convertTo(eval(llvm::cast<CastExpr>(expr).getOperand()), type);
  }
  return 0;
}

std::optional<llvm::StringMap<Tensor>>
tc::evaluate(const Program &program, const Def &def,
             const llvm::StringMap<Tensor> &args, DiagnosticEngine &diags,
             const llvm::StringMap<int64_t> &sizes) {
  return Interpreter(program, def, diags).run(args, sizes);
}
