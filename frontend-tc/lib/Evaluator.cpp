//===- Evaluator.cpp - Reference interpreter of TC programs ---------------===//
//
// Binds the inputs, allocates the outputs and temporaries with their
// inferred shapes and runs the statements in textual order: a call through
// a nested interpreter, a comprehension by compiling its right-hand side
// once (EvalExpr.h) and evaluating it over its box a batch of points at a
// time, accumulating per LHS point in double precision.
//
//===----------------------------------------------------------------------===//
#include "comprehend/tc/Evaluator.h"
#include "EvalExpr.h"

#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
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

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

namespace {

using eval::Storage;

struct LhsAccumulators;

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
  /// The box of \p stmt's index variables from their concrete \p ranges.
  LogicalResult buildBox(const ComprehensionStmt &stmt,
                         const poly::StatementRanges &ranges, eval::Box &box);
  /// Evaluates \p stmt's right-hand side over \p box into \p acc.
  LogicalResult accumulateRhs(const ComprehensionStmt &stmt,
                              const eval::Box &box, LhsAccumulators &acc);
  LogicalResult runCall(const CallStmt &call);

  const Program &program;
  const Def &def;
  DiagnosticEngine &diags;
  llvm::StringMap<int64_t> sizes;
  llvm::StringMap<Storage> tensors;
};

/// Calls \p f(flat, offset) for every point of the box \p extents (row-major,
/// flat is the point's index in the box) with offset the row-major offset
/// in \p storage of the point shifted by \p shift - storage.lo; stops and
/// returns false at the first point outside the storage.
template <typename F>
bool forEachStoredPoint(llvm::ArrayRef<int64_t> extents,
                        llvm::ArrayRef<int64_t> shift, const Storage &storage,
                        F f) {
  size_t rank = extents.size();
  int64_t count = 1;
  for (int64_t extent : extents)
    count *= extent;
  llvm::SmallVector<int64_t, 4> point(rank, 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      int64_t i = point[d] + shift[d] - storage.lo[d];
      if (i < 0 || i >= storage.tensor.shape[d])
        return false;
      offset = offset * storage.tensor.shape[d] + i;
    }
    f(flat, offset);
    for (size_t d = rank; d-- > 0;) {
      if (++point[d] < extents[d])
        break;
      point[d] = 0;
    }
  }
  return true;
}

/// The offsets of consecutive accumulators.
struct Contiguous {
  int64_t operator()(unsigned l) const { return l; }
};

/// Folds \p values into the accumulators \p acc: lane l into
/// acc[offsets(l)], in lane order (the order of a scalar loop).
template <typename Offsets>
void accumulate(ReductionKind kind, double *acc, const double *values,
                unsigned n, Offsets offsets) {
  switch (kind) {
  case ReductionKind::None:
    for (unsigned l = 0; l < n; ++l)
      acc[offsets(l)] = values[l];
    return;
  case ReductionKind::Add:
    if constexpr (std::is_same_v<Offsets, Contiguous>) {
      // Independent slots: let the compiler vectorize.
      double *__restrict to = acc;
      const double *__restrict from = values;
      for (unsigned l = 0; l < n; ++l)
        to[l] += from[l];
      return;
    }
    for (unsigned l = 0; l < n; ++l)
      acc[offsets(l)] += values[l];
    return;
  case ReductionKind::Mul:
    for (unsigned l = 0; l < n; ++l)
      acc[offsets(l)] *= values[l];
    return;
  case ReductionKind::Min:
    for (unsigned l = 0; l < n; ++l) {
      double &slot = acc[offsets(l)];
      slot = std::min(slot, values[l]);
    }
    return;
  case ReductionKind::Max:
    for (unsigned l = 0; l < n; ++l) {
      double &slot = acc[offsets(l)];
      slot = std::max(slot, values[l]);
    }
    return;
  }
}

/// Folds \p values into the single accumulator \p slot, in lane order.
void accumulateInto(ReductionKind kind, double &slot, const double *values,
                    unsigned n) {
  if (n == 0)
    return;
  double acc = slot;
  switch (kind) {
  case ReductionKind::None:
    acc = values[n - 1];
    break;
  case ReductionKind::Add:
    for (unsigned l = 0; l < n; ++l)
      acc += values[l];
    break;
  case ReductionKind::Mul:
    for (unsigned l = 0; l < n; ++l)
      acc *= values[l];
    break;
  case ReductionKind::Min:
    for (unsigned l = 0; l < n; ++l)
      acc = std::min(acc, values[l]);
    break;
  case ReductionKind::Max:
    for (unsigned l = 0; l < n; ++l)
      acc = std::max(acc, values[l]);
    break;
  }
  slot = acc;
}

/// The order in which to walk a statement's box (outermost first), the
/// scalar loop's order (LHS variables, then the reduction variables) with
/// one variable moved innermost where that makes the reads and the
/// accumulators contiguous. Every accumulator still sees its values in the
/// order of the scalar loop: the reduction variables keep their relative
/// order (only the last one may be innermost), and which LHS variable runs
/// fastest does not matter to one LHS point. Only the order of errors
/// would differ, so they are looked for again in the scalar loop's order.
llvm::SmallVector<unsigned, 4>
chooseOrder(const eval::Box &box, size_t numLhs,
            llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> reads,
            llvm::ArrayRef<int64_t> accStrides, int64_t minRow) {
  unsigned numVars = box.vars.size();
  llvm::SmallVector<unsigned, 4> order;
  for (unsigned v = 0; v < numVars; ++v)
    order.push_back(v);
  if (numVars < 2)
    return order;
  // A contiguous stream is best, an invariant one good, a strided one
  // (a cache line per element) bad.
  auto score = [](int64_t stride) {
    if (stride == 0)
      return 1;
    return stride == 1 || stride == -1 ? 2 : -2;
  };
  unsigned best = numVars - 1;
  int bestScore = std::numeric_limits<int>::min();
  for (unsigned v = numVars; v-- > 0;) {
    bool candidate = v < numLhs || v == numVars - 1;
    if (!candidate || box.hi[v] - box.lo[v] < minRow)
      continue;
    int total = score(v < numLhs ? accStrides[v] : 0);
    for (const llvm::SmallVector<int64_t, 4> &read : reads)
      total += score(read[v]);
    if (total > bestScore) {
      best = v;
      bestScore = total;
    }
  }
  order.erase(order.begin() + best);
  order.push_back(best);
  return order;
}

/// The variables of a statement's box over one batch of its points, and
/// the odometer that walks the box in batches in a given loop order.
class BatchWalker {
public:
  /// Runs of the innermost variable at least this long are evaluated a run
  /// (or kBatch lanes of one) at a time, so that affine reads become strided
  /// loads; shorter ones are packed into full batches.
  static constexpr int64_t kMinRow = 32;

  /// \p order lists the variables outermost first.
  /// With \p rowsOnly and rows long enough for row batches, the lanes'
  /// values are left unset (no node needs more than rowStart).
  BatchWalker(const eval::Box &box, llvm::ArrayRef<unsigned> order,
              bool rowsOnly = false)
      : box(box), order(order.begin(), order.end()), numVars(box.vars.size()),
        current(box.lo), rowStart(numVars), values(numVars * eval::kBatch),
        indices(numVars * eval::kBatch), valuePtrs(numVars),
        indexPtrs(numVars) {
    for (unsigned v = 0; v < numVars; ++v) {
      valuePtrs[v] = values.data() + v * eval::kBatch;
      indexPtrs[v] = indices.data() + v * eval::kBatch;
    }
    remaining = eval::getNumPoints(box);
    inner = numVars > 0 ? order.back() : 0;
    rows = numVars > 0 && box.hi[inner] - box.lo[inner] >= kMinRow;
    fill = !(rows && rowsOnly);
  }

  /// The next batch, or false at the end of the box.
  bool next(eval::Lanes &lanes) {
    if (remaining == 0)
      return false;
    lanes.values = valuePtrs.data();
    lanes.indices = indexPtrs.data();
    lanes.rowStart = nullptr;
    lanes.inner = inner;
    if (numVars == 0) {
      lanes.n = 1;
      remaining = 0;
      return true;
    }
    int64_t n = std::min<int64_t>(remaining, eval::kBatch);
    if (rows) {
      n = std::min(n, box.hi[inner] - current[inner]);
      std::copy(current.begin(), current.end(), rowStart.begin());
      lanes.rowStart = rowStart.data();
    }
    int64_t l = 0;
    while (l < n) {
      int64_t run = std::min(n - l, box.hi[inner] - current[inner]);
      for (unsigned v = 0; v < numVars && fill; ++v) {
        if (v == inner)
          continue;
        std::fill_n(indices.data() + v * eval::kBatch + l, run, current[v]);
        std::fill_n(values.data() + v * eval::kBatch + l, run,
                    static_cast<double>(current[v]));
      }
      int64_t *index = indices.data() + inner * eval::kBatch;
      double *value = values.data() + inner * eval::kBatch;
      for (int64_t k = 0; k < run && fill; ++k) {
        index[l + k] = current[inner] + k;
        value[l + k] = static_cast<double>(current[inner] + k);
      }
      l += run;
      current[inner] += run;
      if (current[inner] < box.hi[inner])
        continue;
      current[inner] = box.lo[inner];
      for (size_t o = numVars - 1; o-- > 0;) {
        unsigned d = order[o];
        if (++current[d] < box.hi[d])
          break;
        current[d] = box.lo[d];
      }
    }
    remaining -= n;
    lanes.n = static_cast<unsigned>(n);
    return true;
  }

  /// Lane \p l of \p lanes as a batch of its own.
  eval::Lanes single(const eval::Lanes &lanes, unsigned l) {
    singleValues.resize(numVars);
    singleIndices.resize(numVars);
    for (unsigned v = 0; v < numVars; ++v) {
      singleValues[v] = lanes.values[v] + l;
      singleIndices[v] = lanes.indices[v] + l;
    }
    eval::Lanes one;
    one.n = 1;
    one.values = singleValues.data();
    one.indices = singleIndices.data();
    return one;
  }

private:
  const eval::Box &box;
  llvm::SmallVector<unsigned, 4> order;
  unsigned numVars;
  unsigned inner;
  int64_t remaining;
  bool rows, fill;
  llvm::SmallVector<int64_t, 4> current, rowStart;
  std::vector<double> values;
  std::vector<int64_t> indices;
  std::vector<const double *> valuePtrs, singleValues;
  std::vector<const int64_t *> indexPtrs, singleIndices;
};

/// One double-precision accumulator per point of a statement's LHS box (the
/// box of its first numLhs variables), row-major.
struct LhsAccumulators {
  LhsAccumulators(const eval::Box &box, size_t numLhs)
      : strides(numLhs), lo(box.lo.begin(), box.lo.begin() + numLhs) {
    for (size_t d = 0; d < numLhs; ++d)
      shape.push_back(std::max<int64_t>(box.hi[d] - box.lo[d], 0));
    for (int64_t d = numLhs, stride = 1; d-- > 0;) {
      strides[d] = stride;
      stride *= shape[d];
    }
    values = Tensor(ScalarType::Double, shape);
  }

  /// Folds the \p rhs values of the batch \p lanes of \p box into the
  /// accumulators of their LHS points.
  void fold(ReductionKind kind, const eval::Box &box, const eval::Lanes &lanes,
            const double *rhs) {
    size_t numLhs = shape.size();
    double *accData = values.data.data();
    if (!lanes.rowStart) {
      accumulate(kind, accData, rhs, lanes.n, [&](unsigned l) {
        int64_t offset = 0;
        for (size_t d = 0; d < numLhs; ++d)
          offset += strides[d] * (lanes.indices[d][l] - box.lo[d]);
        return offset;
      });
      return;
    }
    int64_t base = 0;
    for (size_t d = 0; d < numLhs; ++d)
      base += strides[d] * (lanes.rowStart[d] - box.lo[d]);
    if (lanes.inner >= numLhs) {
      accumulateInto(kind, accData[base], rhs, lanes.n);
      return;
    }
    int64_t step = strides[lanes.inner];
    if (step == 1)
      accumulate(kind, accData + base, rhs, lanes.n, Contiguous());
    else
      accumulate(kind, accData + base, rhs, lanes.n,
                 [step](unsigned l) { return l * step; });
  }

  llvm::SmallVector<int64_t, 4> shape, strides, lo;
  Tensor values;
};

/// Evaluates \p rhs over \p box in the scalar loop's order up to the first
/// failing batch, then that batch lane by lane with reporting on: reports
/// the first error of the scalar loop.
void reportFirstError(const eval::Box &box, eval::Node &rhs, Location loc,
                      DiagnosticEngine &diags) {
  llvm::SmallVector<unsigned, 4> order;
  for (unsigned v = 0; v < box.vars.size(); ++v)
    order.push_back(v);
  BatchWalker walker(box, order);
  eval::Lanes lanes;
  eval::EvalState state;
  while (walker.next(lanes)) {
    rhs.eval(lanes, state);
    if (!state.failed)
      continue;
    state.failed = false;
    state.report = &diags;
    for (unsigned l = 0; l < lanes.n && !state.failed; ++l)
      rhs.eval(walker.single(lanes, l), state);
    break;
  }
  if (!state.failed)
    diags.emitError(loc)
        << "internal error: an evaluation error did not reproduce";
}

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

LogicalResult Interpreter::buildBox(const ComprehensionStmt &stmt,
                                    const poly::StatementRanges &ranges,
                                    eval::Box &box) {
  for (const std::string &var : stmt.getIndexVars()) {
    const poly::VarRange *range = ranges.lookup(var);
    if (!range || !range->lo || !range->hi)
      return diags.emitError(stmt.getLoc())
             << "the range of '" << var << "' is not concrete";
    box.vars.push_back(var);
    box.lo.push_back(*range->lo);
    box.hi.push_back(*range->hi);
  }
  return success();
}

LogicalResult Interpreter::accumulateRhs(const ComprehensionStmt &stmt,
                                         const eval::Box &box,
                                         LhsAccumulators &acc) {
  auto lookup = [&](llvm::StringRef name) -> const Storage * {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
  };
  eval::ExprCompiler compiler(box, lookup, sizes, diags);
  eval::NodePtr rhs = compiler.compile(stmt.getRhs());
  if (!rhs)
    return failure();

  BatchWalker walker(box,
                     chooseOrder(box, acc.shape.size(),
                                 compiler.getAffineReads(), acc.strides,
                                 BatchWalker::kMinRow),
                     !compiler.needsLaneValues());
  eval::Lanes lanes;
  eval::EvalState state;
  while (walker.next(lanes)) {
    const double *values = rhs->eval(lanes, state);
    if (state.failed) {
      reportFirstError(box, *rhs, stmt.getLoc(), diags);
      return failure();
    }
    acc.fold(stmt.getReduction(), box, lanes, values);
  }
  return success();
}

LogicalResult
Interpreter::runComprehension(const ComprehensionStmt &stmt,
                              const poly::StatementRanges &ranges) {
  eval::Box box;
  if (failed(buildBox(stmt, ranges, box)))
    return failure();
  size_t numLhs = stmt.getIndices().size();
  Storage &target = tensors[stmt.getLhs().name];
  if (target.tensor.shape.size() != numLhs || target.lo.size() != numLhs ||
      box.vars.size() < numLhs)
    return diags.emitError(stmt.getLhs().loc)
           << "no storage of rank " << numLhs << " for '" << stmt.getLhs().name
           << "'";
  const TensorInfo *info = def.lookupTensor(stmt.getLhs().name);
  ScalarType type = info ? info->type : target.tensor.type;

  // The accumulators start from the identity (`!`) or the current contents.
  // The statement's reads see the tensors as they were before it.
  LhsAccumulators acc(box, numLhs);
  double identity = identityOf(stmt.getReduction(), type);
  if (!forEachStoredPoint(
          acc.shape, acc.lo, target, [&](int64_t flat, int64_t offset) {
            acc.values.data[flat] =
                stmt.hasInit() ? identity : target.tensor.data[offset];
          }))
    return diags.emitError(stmt.getLhs().loc)
           << "the statement writes '" << stmt.getLhs().name
           << "' outside the shape inferred for it";

  if (failed(accumulateRhs(stmt, box, acc)))
    return failure();

  // `!` assigns the identity to every element of the tensor first (the
  // spec), also to those outside the statement's ranges.
  if (stmt.hasInit())
    std::fill(target.tensor.data.begin(), target.tensor.data.end(),
              convertTo(identity, type));
  forEachStoredPoint(
      acc.shape, acc.lo, target, [&](int64_t flat, int64_t offset) {
        target.tensor.data[offset] = convertTo(acc.values.data[flat], type);
      });
  return success();
}

std::optional<llvm::StringMap<Tensor>>
tc::evaluate(const Program &program, const Def &def,
             const llvm::StringMap<Tensor> &args, DiagnosticEngine &diags,
             const llvm::StringMap<int64_t> &sizes) {
  return Interpreter(program, def, diags).run(args, sizes);
}
