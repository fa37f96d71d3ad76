//===- VectorizeLoops.cpp - simd loops on the core's vector registers -----===//
//
// A CPU OpenCL compiler such as PoCL vectorizes across work-items, but a
// loop inside one work-item stays scalar: it may not reorder a float sum,
// and it does not know that two buffers never overlap. Measured on PoCL
// with AVX-512, a softmax row loop ran 14x faster on `vector<f32x16>` than
// on scalars. So the compiler does it, where the producer of the IR vouches
// for it: a `for` with the attribute `simd = true` (the OpenMP `simd`
// contract) promises that consecutive iterations may run together in
// vector lanes and that its loop-carried values are reductions whose order
// does not matter.
//
//   %s = for %i = %lo, %hi init(%a = %s0) -> (f32) {   ; simd
//     %x = load %X[%i, %n] : f32
//     %y = exp %x : f32
//     store %y, %Y[%i, %n]
//     %t = add %a, %y : f32
//     yield (%t)
//   }
//
// becomes a loop over W consecutive iterations at a time, from %lo up to
// %lo + (%hi - %lo) / W * W, on `vector_load` / `vector_store`, vector
// arithmetic and a vector accumulator per carried value; its lanes are
// combined after it, and the original loop runs the remaining iterations
// from there. Where the bounds are constants, a loop without carried values
// whose iterations do not fill one native vector runs on the widest vector
// of 4 or more lanes they do fill, and its remainder, if 4 or more, goes on
// to narrower vectors (37 floats: 16 + 16 + 4 + 1). A loop with carried values
// first runs blocks of kReductionUnroll vector iterations, each with
// accumulators of its own: one accumulator chains every iteration to the
// latency of its add (4 cycles), which bounds a sum over a row in L1 (softmax's
// s, layer norm's var) rather than the loads do. W fills one native vector
// register (CoreInfo), so cores without vectors (the GPU presets: width 1) keep
// their loops.
//
// The body must be straight-line code: index arithmetic in the iterator
// (`%i + c`), loads and stores whose mode-0 index is such an index and
// whose other indices do not depend on the iterator, on stride-1 memrefs;
// elementwise arithmetic and math functions on real scalars; values that do
// not depend on the iterator at all (kept scalar and splat where a vector
// needs them). A carried value may only be combined once per iteration by
// add, mul, max or min. As a guard against a producer's mistake, every
// access to a memref that the loop stores to must use the store's indices.
// Anything else leaves the loop as it is.
//
// Like a reduction's order, `simd` leaves the rounding of a division by a
// loop invariant to the compiler (as -freciprocal-math does): `x / u`
// becomes `x * (1 / u)`, the scalar division computed once before the
// vector loop (once per vector iteration where `u` is computed in the
// body), instead of a vector division per iteration. A vector division
// costs as much as the rest of a softmax row's last loop: measured on
// PoCL, AVX-512, softmax 8192x2048 took 8.6 -> 7.4 ms.
//
//===----------------------------------------------------------------------===//
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <array>

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;
using ir::ScalarKind;

namespace {

/// How a value of the scalar loop is carried by the vector loop.
enum class Shape {
  Uniform,     ///< the same in every lane: kept scalar
  Consecutive, ///< an index: the iterator plus something uniform
  Varying      ///< a vector of W lanes
};

/// A loop-carried value and the one instruction that combines it.
struct Reduction {
  InstKind kind;
  ir::Instruction *combine;
};

/// Vector iterations per block of a loop with carried values, each with its
/// own accumulators (a vector add's latency over its throughput).
constexpr unsigned kReductionUnroll = 4;

/// The narrowest vector a loop of few constant iterations runs on.
constexpr unsigned kMinNarrowWidth = 4;

bool isReductionKind(InstKind kind) {
  return kind == InstKind::Add || kind == InstKind::Mul ||
         kind == InstKind::Max || kind == InstKind::Min;
}

/// A real number kind a vector may hold.
bool isLaneKind(const ir::Type *type) {
  const auto *scalar = llvm::dyn_cast<ir::ScalarType>(type);
  return scalar && scalar->getScalarKind() != ScalarKind::Index &&
         !scalar->isComplex();
}

bool hasSimdAttribute(ir::ForInst loop) {
  const ir::DictionaryAttr *attrs = loop.getAttributes();
  const ir::Attribute *simd = attrs ? attrs->get("simd") : nullptr;
  auto *flag = llvm::dyn_cast_or_null<ir::BoolAttr>(simd);
  return flag && flag->getValue();
}

class LoopVectorizer {
public:
  LoopVectorizer(ir::ForInst loop, unsigned nativeWidth)
      : loop(loop), body(loop.getBody()), nativeWidth(nativeWidth) {}

  /// Whether the loop qualifies; fixes the vector width.
  bool analyse();
  /// Vectorizes the loop; returns whether its scalar remainder keeps `simd`
  /// for narrower vectors (constant bounds, no carried values, at least
  /// kMinNarrowWidth iterations left).
  bool vectorize();

private:
  /// hi - lo where both are constants.
  std::optional<int64_t> getConstantTrips() const;
  bool analyseInstruction(ir::Instruction &inst);
  bool analyseAccess(ir::Instruction &inst, ir::Value *memref,
                     llvm::ArrayRef<ir::Value *> indices);
  bool isUniform(ir::Value *value) const {
    auto it = shapes.find(value);
    return it == shapes.end() || it->second == Shape::Uniform;
  }
  Shape shapeOf(ir::Value *value) const {
    auto it = shapes.find(value);
    return it == shapes.end() ? Shape::Uniform : it->second;
  }
  bool noteLaneKind(const ir::Type *type);

  /// The vector-loop value of scalar-loop value \p value: its clone, or
  /// itself when defined outside the loop.
  ir::Value *mapped(ir::Value *value) const {
    return map.lookup(value) ? map.lookup(value) : value;
  }
  /// \p value as a vector of the vector loop (splat when uniform).
  ir::Value *asVector(ir::Value *value, LoweringBuilder &b);
  /// The splat of 1 / \p divisor, a uniform real value.
  ir::Value *reciprocalVector(ir::Value *divisor, LoweringBuilder &b);
  /// Emits one vector iteration of the body at \p iterator with the
  /// accumulators \p carried; returns the updated accumulators.
  llvm::SmallVector<ir::Value *, 2>
  emitVectorIteration(LoweringBuilder &b, ir::Value *iterator,
                      llvm::ArrayRef<ir::Value *> carried);
  /// Creates a vector loop from \p from to \p to by \p step, \p
  /// iterations vector iterations per step, each with accumulators of its
  /// own starting from \p init (iterations x reductions values).
  ir::ForInst emitVectorLoop(LoweringBuilder &b, ir::Value *from, ir::Value *to,
                             ir::Value *step, unsigned iterations,
                             llvm::ArrayRef<ir::Value *> init);
  ir::Value *reduceLanes(ir::Value *vector, InstKind kind, LoweringBuilder &b);
  /// Combines \p values (a power of 2 of them) with \p kind pairwise, so
  /// that the dependence chain is log2 of their count long.
  static ir::Value *combinePairwise(llvm::MutableArrayRef<ir::Value *> values,
                                    InstKind kind, LoweringBuilder &b);
  const ir::VectorType *vectorOf(const ir::Type *type) const;

  /// Where the vector part starts, and how many iterations it has: a
  /// constant, or `trips` at run time.
  struct VectorBounds {
    ir::Value *lo = nullptr, *trips = nullptr;
    std::optional<int64_t> constantTrips;
  };
  /// lo plus the iterations rounded down to a multiple of \p step (a
  /// constant where the bounds are).
  ir::Value *endOfWholeSteps(LoweringBuilder &b, const VectorBounds &bounds,
                             ir::Value *step);
  /// Each reduction's vector accumulator at the start of the vector loops.
  llvm::SmallVector<ir::Value *, 2> vectorInits(LoweringBuilder &b);
  /// The vector loops up to \p vectorEnd; returns the last one.
  ir::ForInst emitVectorLoops(LoweringBuilder &b, const VectorBounds &bounds,
                              ir::Value *vectorEnd, ir::Value *vectorWidth);
  /// Turns the scalar loop into the remainder from \p vectorEnd; returns
  /// whether it keeps `simd`.
  bool makeRemainder(LoweringBuilder &b, ir::ForInst vectorLoop,
                     ir::Value *vectorEnd,
                     std::optional<int64_t> constantTrips);

  ir::ForInst loop;
  ir::Region &body;
  unsigned nativeWidth;
  unsigned width = 0;
  unsigned laneBytes = 0;
  llvm::DenseMap<ir::Value *, Shape> shapes;
  /// Per carried value (body parameter 1 + k): how it is combined.
  llvm::SmallVector<Reduction, 2> reductions;
  llvm::DenseMap<ir::Value *, ir::Value *> map;
  llvm::DenseMap<ir::Value *, ir::Value *> splats;
  llvm::DenseMap<ir::Value *, ir::Value *> reciprocals;
  /// Inserts before the vector loop.
  LoweringBuilder *preheader = nullptr;
};

bool LoopVectorizer::noteLaneKind(const ir::Type *type) {
  if (!isLaneKind(type))
    return false;
  unsigned bytes =
      ir::getSizeInBytes(llvm::cast<ir::ScalarType>(type)->getScalarKind());
  if (laneBytes && laneBytes != bytes)
    return false;
  laneBytes = bytes;
  return true;
}

bool LoopVectorizer::analyse() {
  if (loop.getStep() && !isConstantNumber(loop.getStep(), 1))
    return false;
  shapes[body.getParameter(0)] = Shape::Consecutive;
  // Each carried value: used once, by an add/mul/max/min whose result is
  // what the loop yields for it and nothing else.
  ir::Instruction &yield = body.back();
  if (yield.getKind() != InstKind::Yield && loop.getInit().size())
    return false;
  for (unsigned k = 0; k < loop.getInit().size(); ++k) {
    ir::Value *carried = body.getParameter(k + 1);
    if (carried->getNumUses() != 1 || !isLaneKind(carried->getType()))
      return false;
    ir::Instruction *combine = carried->getUses().front().user;
    if (!isReductionKind(combine->getKind()) ||
        combine->getParentRegion() != &body ||
        combine->getResult(0)->getNumUses() != 1 ||
        yield.getOperand(k) != combine->getResult(0))
      return false;
    reductions.push_back({combine->getKind(), combine});
    shapes[carried] = Shape::Varying;
  }
  for (ir::Instruction &inst : body)
    if (!analyseInstruction(inst))
      return false;
  if (!laneBytes)
    return false;
  // One register of lanes; OpenCL vectors have 2, 4, 8 or 16.
  width = std::min(16u, nativeWidth * 4 / laneBytes);
  width = width >= 16 ? 16 : width >= 8 ? 8 : width >= 4 ? 4 : width;
  // Fewer constant iterations than that: a loop without carried values
  // runs on the widest vector of 4 or more lanes they fill (9 floats: 8,
  // then one scalar iteration) instead of on scalars alone. Reductions
  // stay scalar there: max pooling's 2-element window loop on 2-vectors
  // ran 3.7x slower on PoCL (2.5 -> 9.2 ms at 64^4).
  std::optional<int64_t> trips = getConstantTrips();
  if (trips && *trips < width) {
    if (!reductions.empty() || *trips < kMinNarrowWidth)
      return false;
    width = static_cast<unsigned>(llvm::PowerOf2Floor(*trips));
  }
  return width >= 2;
}

std::optional<int64_t> LoopVectorizer::getConstantTrips() const {
  std::optional<int64_t> lo = getIntegerConstant(loop.getFrom());
  std::optional<int64_t> hi = getIntegerConstant(loop.getTo());
  if (!lo || !hi)
    return std::nullopt;
  return *hi - *lo;
}

bool LoopVectorizer::analyseInstruction(ir::Instruction &inst) {
  if (inst.getNumRegions())
    return false;
  switch (inst.getKind()) {
  case InstKind::Yield:
    return &inst == &body.back();
  case InstKind::Load: {
    ir::LoadInst load(&inst);
    return analyseAccess(inst, load.getTensor(), load.getIndices());
  }
  case InstKind::Store: {
    ir::StoreInst store(&inst);
    return analyseAccess(inst, store.getTensor(), store.getIndices()) &&
           shapeOf(store.getValue()) != Shape::Consecutive;
  }
  default:
    break;
  }
  llvm::ArrayRef<ir::Value *> operands = inst.getOperands();
  bool uniform = llvm::all_of(
      operands, [&](ir::Value *value) { return isUniform(value); });
  if (inst.getNumResults() != 1)
    return false;
  if (uniform && inst.getDescriptor().isPure)
    return true;
  ir::Value *result = inst.getResult(0);
  // Index arithmetic that moves with the iterator: i + c, c + i, i - c.
  if (result->getType() == body.getParameter(0)->getType()) {
    bool add = inst.getKind() == InstKind::Add;
    bool sub = inst.getKind() == InstKind::Sub;
    if ((add || sub) && shapeOf(operands[0]) == Shape::Consecutive &&
        isUniform(operands[1]))
      return shapes[result] = Shape::Consecutive, true;
    if (add && isUniform(operands[0]) &&
        shapeOf(operands[1]) == Shape::Consecutive)
      return shapes[result] = Shape::Consecutive, true;
    return false;
  }
  bool elementwise = inst.hasTrait(ir::InstTrait::Elementwise) ||
                     inst.hasTrait(ir::InstTrait::MathFunction);
  if (!elementwise || !noteLaneKind(result->getType()) ||
      llvm::any_of(operands, [&](ir::Value *value) {
        return shapeOf(value) == Shape::Consecutive ||
               value->getType() != result->getType();
      }))
    return false;
  shapes[result] = Shape::Varying;
  return true;
}

bool LoopVectorizer::analyseAccess(ir::Instruction &inst, ir::Value *memref,
                                   llvm::ArrayRef<ir::Value *> indices) {
  const auto *type = llvm::dyn_cast<ir::MemRefType>(memref->getType());
  if (!type || !isUniform(memref) || indices.empty() ||
      llvm::any_of(indices.drop_front(),
                   [&](ir::Value *index) { return !isUniform(index); }))
    return false;
  bool isStore = inst.getKind() == InstKind::Store;
  if (isUniform(indices[0]) && !isStore) {
    // The same element in every lane: a scalar load, unless the loop
    // stores to this memref (checked below for every store).
    for (ir::Instruction &other : body)
      if (auto store = llvm::dyn_cast<ir::StoreInst>(&other);
          store && store.getTensor() == memref)
        return false;
    return true;
  }
  if (shapeOf(indices[0]) != Shape::Consecutive || type->getStride(0) != 1 ||
      !noteLaneKind(type->getElementType()))
    return false;
  // Every access to a memref the loop stores to must touch the store's
  // element: another iteration's element could be in a different lane.
  for (ir::Instruction &other : body) {
    if (&other == &inst)
      continue;
    ir::Value *otherMemref = nullptr;
    llvm::ArrayRef<ir::Value *> otherIndices;
    if (auto load = llvm::dyn_cast<ir::LoadInst>(&other))
      otherMemref = load.getTensor(), otherIndices = load.getIndices();
    else if (auto store = llvm::dyn_cast<ir::StoreInst>(&other))
      otherMemref = store.getTensor(), otherIndices = store.getIndices();
    bool conflicts = otherMemref == memref &&
                     (isStore || llvm::isa<ir::StoreInst>(&other)) &&
                     !llvm::equal(otherIndices, indices);
    if (conflicts)
      return false;
  }
  if (!isStore)
    shapes[inst.getResult(0)] = Shape::Varying;
  return true;
}

const ir::VectorType *LoopVectorizer::vectorOf(const ir::Type *type) const {
  return ir::VectorType::get(type->getContext(),
                             llvm::cast<ir::ScalarType>(type)->getScalarKind(),
                             width);
}

ir::Value *LoopVectorizer::asVector(ir::Value *value, LoweringBuilder &b) {
  if (shapeOf(value) == Shape::Varying)
    return mapped(value);
  ir::Value *&splat = splats[value];
  if (splat)
    return splat;
  // A value from outside the loop is splat once, before it.
  LoweringBuilder &at = map.count(value) ? b : *preheader;
  splat = at.create<ir::VectorSplatInst>(
                at.getLoc(), vectorOf(value->getType()), mapped(value))
              .getResult();
  return splat;
}

ir::Value *LoopVectorizer::reciprocalVector(ir::Value *divisor,
                                            LoweringBuilder &b) {
  ir::Value *&reciprocal = reciprocals[divisor];
  if (reciprocal)
    return reciprocal;
  LoweringBuilder &at = map.count(divisor) ? b : *preheader;
  const ir::Type *type = divisor->getType();
  ir::Value *one = at.createConstant(at.getLoc(), ir::ConstantValue(1.0), type);
  ir::Value *scalar =
      at.createBinary(at.getLoc(), InstKind::Div, one, mapped(divisor));
  reciprocal =
      at.create<ir::VectorSplatInst>(at.getLoc(), vectorOf(type), scalar)
          .getResult();
  return reciprocal;
}

llvm::SmallVector<ir::Value *, 2>
LoopVectorizer::emitVectorIteration(LoweringBuilder &b, ir::Value *iterator,
                                    llvm::ArrayRef<ir::Value *> carried) {
  map[body.getParameter(0)] = iterator;
  for (unsigned k = 0; k < reductions.size(); ++k)
    map[body.getParameter(k + 1)] = carried[k];
  for (ir::Instruction &inst : body) {
    if (inst.getKind() == InstKind::Yield)
      break;
    llvm::SmallVector<ir::Value *, 4> operands;
    for (ir::Value *operand : inst.getOperands())
      operands.push_back(mapped(operand));
    if (auto load = llvm::dyn_cast<ir::LoadInst>(&inst);
        load && shapeOf(load.getResult()) == Shape::Varying) {
      map[load.getResult()] =
          b.create<ir::VectorLoadInst>(
               inst.getLoc(), vectorOf(load.getResult()->getType()),
               mapped(load.getTensor()),
               llvm::ArrayRef<ir::Value *>(operands).drop_front())
              .getResult();
      continue;
    }
    if (auto store = llvm::dyn_cast<ir::StoreInst>(&inst)) {
      b.create<ir::VectorStoreInst>(
          inst.getLoc(), asVector(store.getValue(), b),
          mapped(store.getTensor()),
          llvm::ArrayRef<ir::Value *>(operands).drop_front(2));
      continue;
    }
    // Every other instruction has one result (analyse checked).
    ir::Value *result = inst.getResult(0);
    if (shapeOf(result) != Shape::Varying) {
      // Uniform or index arithmetic: the scalar instruction, once per
      // vector iteration.
      map[result] = b.cloneWithOperands(inst, operands, result->getType());
      continue;
    }
    auto div = llvm::dyn_cast<ir::DivInst>(&inst);
    if (div && isUniform(div.getB()) &&
        llvm::cast<ir::ScalarType>(result->getType())->isFloating()) {
      map[result] =
          b.createBinary(inst.getLoc(), InstKind::Mul, asVector(div.getA(), b),
                         reciprocalVector(div.getB(), b));
      continue;
    }
    for (auto [operand, original] : llvm::zip(operands, inst.getOperands()))
      operand = asVector(original, b);
    map[result] =
        b.cloneWithOperands(inst, operands, vectorOf(result->getType()));
  }
  llvm::SmallVector<ir::Value *, 2> updated;
  for (const Reduction &reduction : reductions)
    updated.push_back(mapped(reduction.combine->getResult(0)));
  return updated;
}

ir::ForInst LoopVectorizer::emitVectorLoop(LoweringBuilder &b, ir::Value *from,
                                           ir::Value *to, ir::Value *step,
                                           unsigned iterations,
                                           llvm::ArrayRef<ir::Value *> init) {
  ir::Context &ctx = body.getParameter(0)->getType()->getContext();
  auto vectorLoop = b.create<ir::ForInst>(b.getLoc(), from, to, step, init);
  // Splats of values computed in the scalar body belong to the loop that
  // computed them.
  auto inBody = [&](ir::Value *value) { return map.count(value) != 0; };
  for (auto *cache : {&splats, &reciprocals})
    for (auto it = cache->begin(); it != cache->end();) {
      auto current = it++;
      if (inBody(current->first))
        cache->erase(current);
    }
  LoweringBuilder before(ctx, loop.getLoc());
  before.setInsertionPoint(vectorLoop.getInstruction());
  preheader = &before;
  LoweringBuilder inner(ctx, loop.getLoc());
  inner.setInsertionPointToEnd(vectorLoop.getBody());
  ir::Region &vectorBody = vectorLoop.getBody();
  llvm::SmallVector<ir::Value *, 8> yielded;
  for (unsigned iteration = 0; iteration < iterations; ++iteration) {
    ir::Value *iterator = vectorBody.getParameter(0);
    if (iteration)
      iterator = inner.add(
          iterator, inner.index(static_cast<int64_t>(iteration) * width));
    llvm::SmallVector<ir::Value *, 2> carried;
    for (unsigned k = 0; k < reductions.size(); ++k)
      carried.push_back(
          vectorBody.getParameter(1 + iteration * reductions.size() + k));
    yielded.append(emitVectorIteration(inner, iterator, carried));
  }
  if (!yielded.empty())
    inner.create<ir::YieldInst>(loop.getLoc(), yielded);
  preheader = nullptr;
  return vectorLoop;
}

ir::Value *LoopVectorizer::reduceLanes(ir::Value *vector, InstKind kind,
                                       LoweringBuilder &b) {
  std::array<ir::Value *, 16> lanes = {};
  for (unsigned lane = 0; lane < width; ++lane)
    lanes[lane] =
        b.create<ir::VectorExtractInst>(b.getLoc(), vector, lane).getResult();
  return combinePairwise(llvm::MutableArrayRef(lanes).take_front(width), kind,
                         b);
}

ir::Value *
LoopVectorizer::combinePairwise(llvm::MutableArrayRef<ir::Value *> values,
                                InstKind kind, LoweringBuilder &b) {
  for (size_t stride = 1; stride < values.size(); stride *= 2)
    for (size_t i = 0; i + stride < values.size(); i += 2 * stride)
      values[i] =
          b.createBinary(b.getLoc(), kind, values[i], values[i + stride]);
  return values.front();
}

ir::Value *LoopVectorizer::endOfWholeSteps(LoweringBuilder &b,
                                           const VectorBounds &bounds,
                                           ir::Value *step) {
  if (bounds.constantTrips) {
    int64_t stepSize = *getIntegerConstant(step);
    return b.index(*getIntegerConstant(bounds.lo) +
                   *bounds.constantTrips / stepSize * stepSize);
  }
  return b.add(
      bounds.lo,
      b.mul(b.create<ir::DivInst>(b.getLoc(), bounds.trips, step).getResult(),
            step));
}

llvm::SmallVector<ir::Value *, 2>
LoopVectorizer::vectorInits(LoweringBuilder &b) {
  // max and min may start every lane from the initial value; add and mul
  // start from their identity and take it in after the lanes are combined.
  llvm::SmallVector<ir::Value *, 2> vectorInit;
  for (auto [reduction, init] : llvm::zip(reductions, loop.getInit())) {
    ir::Value *start = init;
    if (reduction.kind == InstKind::Add || reduction.kind == InstKind::Mul) {
      int64_t identity = reduction.kind == InstKind::Add ? 0 : 1;
      bool floating = llvm::cast<ir::ScalarType>(init->getType())->isFloating();
      start = b.createConstant(
          b.getLoc(),
          floating ? ir::ConstantValue(static_cast<double>(identity))
                   : ir::ConstantValue(identity),
          init->getType());
    }
    vectorInit.push_back(b.create<ir::VectorSplatInst>(
                              b.getLoc(), vectorOf(init->getType()), start)
                             .getResult());
  }
  return vectorInit;
}

ir::ForInst LoopVectorizer::emitVectorLoops(LoweringBuilder &b,
                                            const VectorBounds &bounds,
                                            ir::Value *vectorEnd,
                                            ir::Value *vectorWidth) {
  llvm::SmallVector<ir::Value *, 2> vectorInit = vectorInits(b);
  // Blocks of kReductionUnroll vector iterations with accumulators of their
  // own, combined; then single vector iterations up to vectorEnd.
  int64_t block = int64_t{kReductionUnroll} * width;
  if (reductions.empty())
    return emitVectorLoop(b, bounds.lo, vectorEnd, vectorWidth, 1, {});
  // Not one block: the single vector iterations only.
  if (bounds.constantTrips && *bounds.constantTrips < block)
    return emitVectorLoop(b, bounds.lo, vectorEnd, vectorWidth, 1, vectorInit);
  ir::Value *blockWidth = b.index(block);
  ir::Value *blockEnd = endOfWholeSteps(b, bounds, blockWidth);
  llvm::SmallVector<ir::Value *, 8> blockInit;
  for (unsigned iteration = 0; iteration < kReductionUnroll; ++iteration)
    blockInit.append(vectorInit);
  ir::ForInst blocks = emitVectorLoop(b, bounds.lo, blockEnd, blockWidth,
                                      kReductionUnroll, blockInit);
  llvm::SmallVector<ir::Value *, 2> combined;
  for (unsigned k = 0; k < reductions.size(); ++k) {
    llvm::SmallVector<ir::Value *, 4> partials;
    for (unsigned iteration = 0; iteration < kReductionUnroll; ++iteration)
      partials.push_back(
          blocks.getResults()[iteration * reductions.size() + k]);
    combined.push_back(combinePairwise(partials, reductions[k].kind, b));
  }
  return emitVectorLoop(b, blockEnd, vectorEnd, vectorWidth, 1, combined);
}

bool LoopVectorizer::makeRemainder(LoweringBuilder &b, ir::ForInst vectorLoop,
                                   ir::Value *vectorEnd,
                                   std::optional<int64_t> constantTrips) {
  // The scalar loop finishes the iterations from vectorEnd on, starting
  // from the combined lanes.
  llvm::SmallVector<ir::Value *, 2> remainderInit;
  for (unsigned k = 0; k < reductions.size(); ++k) {
    const Reduction &reduction = reductions[k];
    ir::Value *total =
        reduceLanes(vectorLoop.getResults()[k], reduction.kind, b);
    if (reduction.kind == InstKind::Add || reduction.kind == InstKind::Mul)
      total =
          b.createBinary(b.getLoc(), reduction.kind, loop.getInit()[k], total);
    remainderInit.push_back(total);
  }
  ir::Instruction &scalar = *loop.getInstruction();
  llvm::SmallVector<ir::Value *, 6> operands = {vectorEnd, loop.getTo()};
  if (loop.getStep())
    operands.push_back(loop.getStep());
  operands.append(remainderInit);
  scalar.setOperands(operands, {1, 1, loop.getStep() ? 1u : 0u,
                                static_cast<unsigned>(remainderInit.size())});
  bool remainderIsSimd = constantTrips && reductions.empty() &&
                         *constantTrips % width >= kMinNarrowWidth;
  if (remainderIsSimd)
    return true;
  llvm::SmallVector<ir::NamedAttribute, 2> kept;
  for (const ir::NamedAttribute &entry : loop.getAttributes()->getEntries())
    if (entry.name != "simd")
      kept.push_back(entry);
  loop.setAttributes(ir::DictionaryAttr::get(b.getContext(), kept));
  return false;
}

bool LoopVectorizer::vectorize() {
  ir::Context &ctx = body.getParameter(0)->getType()->getContext();
  LoweringBuilder b(ctx, loop.getLoc());
  b.setInsertionPoint(loop.getInstruction());
  VectorBounds bounds;
  bounds.lo = loop.getFrom();
  ir::Value *vectorWidth = b.index(width);
  bounds.constantTrips = getConstantTrips();
  if (!bounds.constantTrips)
    bounds.trips =
        b.create<ir::SubInst>(b.getLoc(), loop.getTo(), bounds.lo).getResult();
  ir::Value *vectorEnd = endOfWholeSteps(b, bounds, vectorWidth);
  ir::ForInst vectorLoop = emitVectorLoops(b, bounds, vectorEnd, vectorWidth);
  return makeRemainder(b, vectorLoop, vectorEnd, bounds.constantTrips);
}

/// The `simd` loops of \p region that run per work-item (vector
/// instructions are SPMD); \p spmd tells whether \p region does.
void collectSimdLoops(ir::Region &region, bool spmd,
                      llvm::SmallVectorImpl<ir::ForInst> &loops) {
  for (ir::Instruction &inst : region) {
    if (auto loop = llvm::dyn_cast<ir::ForInst>(&inst);
        loop && spmd && hasSimdAttribute(loop))
      loops.push_back(loop);
    for (ir::Region *nested : inst.getRegions())
      collectSimdLoops(*nested,
                       nested->getKind() == ir::RegionKind::Mixed
                           ? spmd
                           : nested->getKind() == ir::RegionKind::Spmd,
                       loops);
  }
}

class VectorizeLoopsPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &context) override {
    unsigned nativeWidth = context.core.nativeVectorWidth;
    if (nativeWidth < 2)
      return success();
    llvm::SmallVector<ir::ForInst, 8> loops;
    collectSimdLoops(function.getBody(), /*spmd=*/false, loops);
    for (ir::ForInst loop : loops) {
      // A remainder of constant length goes on to narrower vectors (24
      // floats: 16, then 8).
      for (bool again = true; again;) {
        LoopVectorizer vectorizer(loop, nativeWidth);
        again = vectorizer.analyse() && vectorizer.vectorize();
      }
    }
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createVectorizeLoopsPass() {
  return std::make_unique<VectorizeLoopsPass>();
}
