//===- VerifyViews.cpp - Rules of memory access and view instructions -----===//
//
// Index counts of load/store/atomics, size, and the result types of
// subview (rank reduction, invariant strides), expand and fuse.
//
//===----------------------------------------------------------------------===//
#include "VerifyHelpers.h"

#include "llvm/Support/MathExtras.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

void detail::verifyIndexCount(const Instruction &inst, VerifyContext &vc) {
  unsigned group = *inst.getDescriptor().findOperand("tensor");
  auto range = vc.operandRange(inst, group);
  const Type *type = inst.getOperand(range.first)->getType();
  unsigned numIndices = inst.getOperandGroup(group + 1).size();
  unsigned expected = 1;
  if (const auto *memref = llvm::dyn_cast<MemRefType>(type))
    expected = memref->getOrder();
  if (numIndices != expected)
    vc.emitOperandError(inst, range.first)
        << "'" << inst.getName() << "' on " << type << " needs " << expected
        << (expected == 1 ? " index" : " indices") << ", but has "
        << numIndices;
}

void detail::verifySize(const Instruction &inst, VerifyContext &vc) {
  auto size = viewOf<SizeInst>(inst);
  const Type *type = size.getTensor()->getType();
  int64_t order = 1;
  if (const auto *memref = llvm::dyn_cast<MemRefType>(type))
    order = memref->getOrder();
  if (size.getMode() < 0 || size.getMode() >= order)
    vc.emitOperandError(inst, 0)
        << "mode " << size.getMode() << " of 'size' is out of bounds for "
        << type << " (must be in [0, " << order << "))";
}

/// Checks \p result against the expected shape and stride of a view:
/// element type and address space as \p source; every static expected size
/// must match; a dynamic expected size must be `?`; each stride must be the
/// expected one or `?`.
static void checkViewResult(const Instruction &inst, VerifyContext &vc,
                            const MemRefType *source, const MemRefType *result,
                            llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> stride) {
  auto fail = [&]() {
    return std::move(vc.emitError(inst.getLoc())
                     << "result of '" << inst.getName() << "' has type "
                     << result << ", but ");
  };
  if (result->getElementKind() != source->getElementKind() ||
      result->getAddressSpace() != source->getAddressSpace()) {
    fail() << "element type and address space must match " << source;
    return;
  }
  if (result->getOrder() != shape.size()) {
    fail() << "the view has order " << shape.size();
    return;
  }
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (result->getShape(i) != shape[i]) {
      fail() << "mode " << i << " must have size "
             << (isDynamic(shape[i]) ? "'?'" : dimText(shape[i]));
      return;
    }
    if (!result->isDynamicStride(i) && result->getStride(i) != stride[i]) {
      fail() << "mode " << i << " must have stride " << dimText(stride[i])
             << " or '?'";
      return;
    }
  }
}

/// True unless \p offset and \p stride are static and offset * stride *
/// element size (the byte offset a view adds) overflows 64 bits.
static bool fitsAsByteOffset(int64_t offset, int64_t stride, ScalarKind elem) {
  int64_t bytes = 0;
  return isDynamic(offset) || isDynamic(stride) ||
         !(llvm::MulOverflow(offset, stride, bytes) ||
           llvm::MulOverflow(bytes, int64_t(getSizeInBytes(elem)), bytes));
}

void detail::verifySubview(const Instruction &inst, VerifyContext &vc) {
  auto subview = viewOf<SubviewInst>(inst);
  const MemRefType *source = memrefOf(subview.getOperand());
  llvm::ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  llvm::ArrayRef<int64_t> sizes = subview.getStaticSizes();
  if (offsets.size() != source->getOrder() ||
      sizes.size() != source->getOrder()) {
    vc.emitOperandError(inst, 0)
        << "'subview' of " << source << " needs " << source->getOrder()
        << " indices or slices, but has " << offsets.size();
    return;
  }
  if (size_t(llvm::count_if(offsets, isDynamic)) !=
          subview.getOffsets().size() ||
      size_t(llvm::count_if(sizes, isDynamic)) != subview.getSizes().size()) {
    vc.emitError(inst.getLoc()) << "'subview' has a malformed operand list";
    return;
  }
  llvm::SmallVector<int64_t, 4> shape, stride;
  for (unsigned i = 0; i < offsets.size(); ++i) {
    if (!isDynamic(offsets[i]) && offsets[i] < 0)
      vc.emitError(inst.getLoc()) << "offset " << offsets[i] << " of mode " << i
                                  << " of 'subview' must not be negative";
    if (!isDynamic(sizes[i]) && sizes[i] < 0)
      vc.emitError(inst.getLoc()) << "size " << sizes[i] << " of mode " << i
                                  << " of 'subview' must not be negative";
    if (!fitsAsByteOffset(offsets[i], source->getStride(i),
                          source->getElementKind()))
      vc.emitError(inst.getLoc())
          << "offset " << offsets[i] << " of mode " << i
          << " of 'subview' times its stride and element size does not fit "
             "in 64 bits";
    if (sizes[i] == 0) // rank reduction
      continue;
    shape.push_back(sizes[i]);
    stride.push_back(source->getStride(i));
  }
  checkViewResult(inst, vc, source, memrefOf(subview.getResult()), shape,
                  stride);
}

void detail::verifyExpand(const Instruction &inst, VerifyContext &vc) {
  auto expand = viewOf<ExpandInst>(inst);
  const MemRefType *source = memrefOf(expand.getOperand());
  llvm::ArrayRef<int64_t> expandShape = expand.getStaticExpandShape();
  int64_t mode = expand.getMode();
  if (mode < 0 || mode >= source->getOrder()) {
    vc.emitOperandError(inst, 0)
        << "mode " << mode << " of 'expand' is out of bounds for " << source
        << " (must be in [0, " << source->getOrder() << "))";
    return;
  }
  if (expandShape.size() < 2) {
    vc.emitError(inst.getLoc())
        << "expand shape of 'expand' must have at least 2 entries, but has "
        << expandShape.size();
    return;
  }
  if (size_t(llvm::count_if(expandShape, isDynamic)) !=
      expand.getExpandShape().size()) {
    vc.emitError(inst.getLoc()) << "'expand' has a malformed operand list";
    return;
  }
  int64_t product = 1;
  for (int64_t size : expandShape) {
    if (isDynamic(size)) {
      product = kDynamic;
      continue;
    }
    if (size <= 0) {
      vc.emitError(inst.getLoc())
          << "expand shape entries of 'expand' must be positive, but one is "
          << size;
      return;
    }
    if (!isDynamic(product) && llvm::MulOverflow(product, size, product)) {
      vc.emitError(inst.getLoc())
          << "product of the expand shape of 'expand' does not fit in 64 bits";
      return;
    }
  }
  int64_t modeSize = source->getShape(mode);
  if (!isDynamic(product) && !isDynamic(modeSize) && product != modeSize) {
    vc.emitError(inst.getLoc())
        << "product of the expand shape of 'expand' must equal the size "
        << modeSize << " of mode " << mode << ", but is " << product;
    return;
  }
  llvm::SmallVector<int64_t, 4> shape, stride;
  for (int64_t i = 0; i < mode; ++i) {
    shape.push_back(source->getShape(i));
    stride.push_back(source->getStride(i));
  }
  int64_t next = source->getStride(mode);
  for (int64_t size : expandShape) {
    shape.push_back(size);
    stride.push_back(next);
    if (isDynamic(next) || isDynamic(size) ||
        llvm::MulOverflow(next, size, next))
      next = kDynamic; // the result type's own check reports the overflow
  }
  for (unsigned i = mode + 1; i < source->getOrder(); ++i) {
    shape.push_back(source->getShape(i));
    stride.push_back(source->getStride(i));
  }
  checkViewResult(inst, vc, source, memrefOf(expand.getResult()), shape,
                  stride);
}

void detail::verifyFuse(const Instruction &inst, VerifyContext &vc) {
  auto fuse = viewOf<FuseInst>(inst);
  const MemRefType *source = memrefOf(fuse.getOperand());
  int64_t from = fuse.getFrom(), to = fuse.getTo();
  if (from < 0 || from >= to || to >= source->getOrder()) {
    vc.emitOperandError(inst, 0)
        << "'fuse' requires 0 <= from < to < order, but has [" << from << ", "
        << to << "] for " << source;
    return;
  }
  int64_t size = 1;
  for (int64_t k = from; k <= to; ++k) {
    int64_t s = source->getShape(k);
    size = isDynamic(size) || isDynamic(s) ? kDynamic : size * s;
    if (k == to)
      break;
    int64_t stride = source->getStride(k), next = source->getStride(k + 1);
    if (!isDynamic(stride) && !isDynamic(s) && !isDynamic(next) &&
        stride * s != next) {
      vc.emitOperandError(inst, 0)
          << "modes " << k << " and " << k + 1 << " of " << source
          << " cannot be fused: stride " << next << " != " << stride << " * "
          << s;
      return;
    }
  }
  llvm::SmallVector<int64_t, 4> shape, stride;
  for (int64_t i = 0; i < source->getOrder(); ++i) {
    if (i > from && i <= to)
      continue;
    shape.push_back(i == from ? size : source->getShape(i));
    stride.push_back(source->getStride(i));
  }
  checkViewResult(inst, vc, source, memrefOf(fuse.getResult()), shape, stride);
}
