//===- Types.cpp - Uniquing, layout rules and printing of types -----------===//
#include "ContextImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

using namespace comprehend;
using namespace comprehend::ir;

//===----------------------------------------------------------------------===//
// Type
//===----------------------------------------------------------------------===//

static void printDim(llvm::raw_ostream &os, int64_t value) {
  if (isDynamic(value))
    os << '?';
  else
    os << value;
}

void Type::print(llvm::raw_ostream &os) const {
  switch (kind) {
  case TypeKind::Void:
    os << "void";
    return;
  case TypeKind::Bool:
    os << "bool";
    return;
  case TypeKind::Scalar:
    os << stringify(llvm::cast<ScalarType>(this)->getScalarKind());
    return;
  case TypeKind::MemRef: {
    const auto *memref = llvm::cast<MemRefType>(this);
    os << "memref<" << stringify(memref->getElementKind());
    for (int64_t size : memref->getShape()) {
      os << 'x';
      printDim(os, size);
    }
    if (!memref->isPackedLayout()) {
      os << ",strided<";
      llvm::interleave(
          memref->getStride(), os, [&](int64_t s) { printDim(os, s); }, ",");
      os << '>';
    }
    if (memref->getAddressSpace() == AddressSpace::Local)
      os << ",local";
    os << '>';
    return;
  }
  case TypeKind::Group: {
    const auto *group = llvm::cast<GroupType>(this);
    os << "group<" << *group->getMemRefType() << 'x';
    printDim(os, group->getSize());
    if (group->getOffset() != 0) {
      os << ", offset: ";
      printDim(os, group->getOffset());
    }
    os << '>';
    return;
  }
  case TypeKind::CoopMatrix: {
    const auto *coop = llvm::cast<CoopMatrixType>(this);
    os << "coopmatrix<" << stringify(coop->getComponentKind()) << 'x'
       << coop->getRows() << 'x' << coop->getCols() << ','
       << stringify(coop->getUse()) << '>';
    return;
  }
  case TypeKind::Vector: {
    const auto *vector = llvm::cast<VectorType>(this);
    os << "vector<" << stringify(vector->getElementKind()) << 'x'
       << vector->getWidth() << '>';
    return;
  }
  }
}

std::string Type::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(os);
  return text;
}

llvm::raw_ostream &comprehend::ir::operator<<(llvm::raw_ostream &os,
                                              const Type *type) {
  if (!type)
    return os << "<<null type>>";
  type->print(os);
  return os;
}

const VoidType *VoidType::get(Context &ctx) { return ctx.getImpl().voidType; }
const BoolType *BoolType::get(Context &ctx) { return ctx.getImpl().boolType; }

const ScalarType *ScalarType::get(Context &ctx, ScalarKind kind) {
  return ctx.getImpl().scalarTypes[static_cast<unsigned>(kind)];
}

std::optional<ScalarKind>
comprehend::ir::getScalarOrComponentKind(const Type *type) {
  if (const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type))
    return scalar->getScalarKind();
  if (const auto *coop = llvm::dyn_cast_or_null<CoopMatrixType>(type))
    return coop->getComponentKind();
  if (const auto *vector = llvm::dyn_cast_or_null<VectorType>(type))
    return vector->getElementKind();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// MemRefType
//===----------------------------------------------------------------------===//

llvm::SmallVector<int64_t, 4>
MemRefType::getPackedStride(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> stride;
  int64_t next = 1;
  for (int64_t size : shape) {
    stride.push_back(next);
    // A product past 64 bits cannot occur for a type that passed
    // isRepresentable(); `?` keeps it defined for any other caller.
    if (isDynamic(next) || isDynamic(size) ||
        llvm::MulOverflow(next, size, next))
      next = kDynamic;
  }
  return stride;
}

bool MemRefType::isRepresentable(ScalarKind elem, llvm::ArrayRef<int64_t> shape,
                                 llvm::ArrayRef<int64_t> stride,
                                 std::string *message) {
  // Zero-sized modes count as one: a view that fuses or drops them must
  // still have a representable element count.
  int64_t bytes = ir::getSizeInBytes(elem), span = 0, product = 0;
  bool overflow = false;
  for (int64_t size : shape)
    if (!isDynamic(size))
      overflow |= llvm::MulOverflow(bytes, std::max<int64_t>(size, 1), bytes);
  for (size_t i = 0; i < stride.size() && !overflow; ++i) {
    if (isDynamic(stride[i]) || isDynamic(shape[i]))
      continue;
    overflow |=
        llvm::MulOverflow(stride[i], std::max<int64_t>(shape[i], 1), product) ||
        llvm::MulOverflow(product, int64_t(ir::getSizeInBytes(elem)),
                          product) ||
        llvm::AddOverflow(span, product, span);
  }
  if (overflow && message)
    *message = "size in bytes of the memref (its static sizes and strides "
               "times the element size of " +
               std::to_string(ir::getSizeInBytes(elem)) +
               " bytes) does not fit in 64 bits";
  return !overflow;
}

bool MemRefType::isValidLayout(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> stride,
                               std::string *message) {
  auto fail = [&](const llvm::Twine &text) {
    if (message)
      *message = text.str();
    return false;
  };
  for (int64_t size : shape)
    if (!isDynamic(size) && size < 0)
      return fail("mode size must not be negative, but is " +
                  llvm::Twine(size));
  if (stride.empty())
    return true;
  if (stride.size() != shape.size())
    return fail("strided layout must have " + llvm::Twine(shape.size()) +
                " entries (one per mode), but has " +
                llvm::Twine(stride.size()));
  if (!isDynamic(stride[0]) && stride[0] < 1)
    return fail("first stride must be at least 1, but is " +
                llvm::Twine(stride[0]));
  for (size_t i = 1; i < shape.size(); ++i) {
    if (isDynamic(stride[i - 1]) || isDynamic(shape[i - 1]) ||
        isDynamic(stride[i]))
      continue;
    int64_t least = 0;
    if (llvm::MulOverflow(stride[i - 1], shape[i - 1], least))
      return fail("stride " + llvm::Twine(i) + " times size of mode " +
                  llvm::Twine(i) + " does not fit in 64 bits");
    if (least > stride[i])
      return fail("stride " + llvm::Twine(i + 1) + " must be at least " +
                  llvm::Twine(least) + " (stride times size of mode " +
                  llvm::Twine(i) + "), but is " + llvm::Twine(stride[i]));
  }
  return true;
}

void MemRefType::profile(llvm::FoldingSetNodeID &id, ScalarKind elem,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> stride, AddressSpace space) {
  id.AddInteger(static_cast<unsigned>(elem));
  id.AddInteger(static_cast<unsigned>(space));
  id.AddInteger(shape.size());
  for (int64_t size : shape)
    id.AddInteger(size);
  for (int64_t s : stride)
    id.AddInteger(s);
}

void MemRefType::Profile(llvm::FoldingSetNodeID &id) const {
  profile(id, elementKind, shape, stride, addressSpace);
}

const MemRefType *MemRefType::get(Context &ctx, ScalarKind elem,
                                  llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<int64_t> stride,
                                  AddressSpace space) {
  assert(isValidLayout(shape, stride) && isRepresentable(elem, shape, stride) &&
         "invalid memref layout");
  llvm::SmallVector<int64_t, 4> canonical =
      stride.empty()
          ? getPackedStride(shape)
          : llvm::SmallVector<int64_t, 4>(stride.begin(), stride.end());
  llvm::FoldingSetNodeID id;
  profile(id, elem, shape, canonical, space);
  auto &set = ctx.getImpl().memrefTypes;
  void *insertPos = nullptr;
  if (MemRefType *existing = set.FindNodeOrInsertPos(id, insertPos))
    return existing;
  auto *type = new (ctx.getAllocator().Allocate<MemRefType>())
      MemRefType(ctx, elem, ctx.allocateCopy(shape),
                 ctx.allocateCopy(llvm::ArrayRef<int64_t>(canonical)), space);
  set.InsertNode(type, insertPos);
  return type;
}

const MemRefType *
MemRefType::getChecked(Context &ctx, ScalarKind elem,
                       llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> stride, AddressSpace space,
                       llvm::function_ref<InFlightDiagnostic()> emitError) {
  std::string message;
  if (!isValidLayout(shape, stride, &message) ||
      !isRepresentable(elem, shape, stride, &message)) {
    emitError() << message;
    return nullptr;
  }
  return get(ctx, elem, shape, stride, space);
}

const ScalarType *MemRefType::getElementType() const {
  return ScalarType::get(getContext(), elementKind);
}

unsigned MemRefType::getNumDynamicShape() const {
  return llvm::count_if(shape, isDynamic);
}

unsigned MemRefType::getNumDynamicStride() const {
  return llvm::count_if(stride, isDynamic);
}

bool MemRefType::isPackedLayout() const {
  return llvm::equal(stride, getPackedStride(shape));
}

int64_t MemRefType::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape) {
    // Overflow is excluded by isRepresentable() for every constructed type.
    if (isDynamic(size) || llvm::MulOverflow(count, size, count))
      return kDynamic;
  }
  return count;
}

int64_t MemRefType::getSizeInBytes() const {
  int64_t count = getNumElements(), bytes = 0;
  if (isDynamic(count) ||
      llvm::MulOverflow(count, int64_t(ir::getSizeInBytes(elementKind)), bytes))
    return kDynamic;
  return bytes;
}

//===----------------------------------------------------------------------===//
// GroupType and CoopMatrixType
//===----------------------------------------------------------------------===//

void GroupType::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddPointer(memref);
  id.AddInteger(size);
  id.AddInteger(offset);
}

const GroupType *GroupType::get(Context &ctx, const MemRefType *memref,
                                int64_t size, int64_t offset) {
  llvm::FoldingSetNodeID id;
  id.AddPointer(memref);
  id.AddInteger(size);
  id.AddInteger(offset);
  auto &set = ctx.getImpl().groupTypes;
  void *insertPos = nullptr;
  if (GroupType *existing = set.FindNodeOrInsertPos(id, insertPos))
    return existing;
  auto *type = new (ctx.getAllocator().Allocate<GroupType>())
      GroupType(ctx, memref, size, offset);
  set.InsertNode(type, insertPos);
  return type;
}

void CoopMatrixType::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddInteger(static_cast<unsigned>(componentKind));
  id.AddInteger(rows);
  id.AddInteger(cols);
  id.AddInteger(static_cast<unsigned>(use));
}

const CoopMatrixType *CoopMatrixType::get(Context &ctx, ScalarKind component,
                                          int64_t rows, int64_t cols,
                                          MatrixUse use) {
  llvm::FoldingSetNodeID id;
  id.AddInteger(static_cast<unsigned>(component));
  id.AddInteger(rows);
  id.AddInteger(cols);
  id.AddInteger(static_cast<unsigned>(use));
  auto &set = ctx.getImpl().coopTypes;
  void *insertPos = nullptr;
  if (CoopMatrixType *existing = set.FindNodeOrInsertPos(id, insertPos))
    return existing;
  auto *type = new (ctx.getAllocator().Allocate<CoopMatrixType>())
      CoopMatrixType(ctx, component, rows, cols, use);
  set.InsertNode(type, insertPos);
  return type;
}

const ScalarType *CoopMatrixType::getComponentType() const {
  return ScalarType::get(getContext(), componentKind);
}

const CoopMatrixType *CoopMatrixType::withComponent(ScalarKind kind) const {
  return get(getContext(), kind, rows, cols, use);
}

//===----------------------------------------------------------------------===//
// VectorType
//===----------------------------------------------------------------------===//

void VectorType::Profile(llvm::FoldingSetNodeID &id) const {
  id.AddInteger(static_cast<unsigned>(elementKind));
  id.AddInteger(width);
}

const VectorType *VectorType::get(Context &ctx, ScalarKind element,
                                  unsigned width) {
  llvm::FoldingSetNodeID id;
  id.AddInteger(static_cast<unsigned>(element));
  id.AddInteger(width);
  auto &set = ctx.getImpl().vectorTypes;
  void *insertPos = nullptr;
  if (VectorType *existing = set.FindNodeOrInsertPos(id, insertPos))
    return existing;
  auto *type = new (ctx.getAllocator().Allocate<VectorType>())
      VectorType(ctx, element, width);
  set.InsertNode(type, insertPos);
  return type;
}

const ScalarType *VectorType::getElementType() const {
  return ScalarType::get(getContext(), elementKind);
}
