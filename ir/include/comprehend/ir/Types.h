//===- Types.h - The types of the tensor language ---------------*- C++ -*-===//
//
// Every type is uniqued in a Context and compared by pointer. Types are
// immutable; `llvm::isa/dyn_cast/cast` work through `classof`.
//
//   void, bool, i8..i64, index, bf16, f16, f32, f64, c32, c64,
//   memref<f32x4x?, strided<1,?>, local>, group<memref<f32x8>x?, offset: 4>,
//   coopmatrix<f16x16x8, matrix_a>
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_TYPES_H
#define COMPREHEND_IR_TYPES_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Enums.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace comprehend::ir {

class Context;

/// Marks a dynamic (`?`) mode size, stride, group size or offset.
inline constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// Returns true if \p value is kDynamic.
inline bool isDynamic(int64_t value) { return value == kDynamic; }

//===----------------------------------------------------------------------===//
// Scalar kinds and promotion
//===----------------------------------------------------------------------===//

/// The number types of the language (bool is not a number type).
enum class ScalarKind : uint8_t {
  I8,
  I16,
  I32,
  I64,
  Index,
  BF16,
  F16,
  F32,
  F64,
  C32,
  C64
};
inline constexpr unsigned kNumScalarKinds = 11;

/// Signless integer kinds, including `index`.
bool isInteger(ScalarKind kind);
/// bf16, f16, f32, f64.
bool isFloating(ScalarKind kind);
/// c32, c64.
bool isComplex(ScalarKind kind);
/// Size in bytes (`index` counts as 8 bytes, i.e. a 64-bit target).
unsigned getSizeInBytes(ScalarKind kind);
/// The component kind of a complex kind (c32 -> f32); other kinds unchanged.
ScalarKind getComponentKind(ScalarKind kind);
/// The spelling (`f32`, `index`).
llvm::StringRef stringify(ScalarKind kind);
std::optional<ScalarKind> parseScalarKind(llvm::StringRef spelling);

/// The spec's partial order: \p a ⪯ \p b if every value of \p a is exactly
/// representable in \p b. `index` behaves like i64.
bool isPromotable(ScalarKind a, ScalarKind b);
/// b if a ⪯ b, a if b ⪯ a, nothing otherwise.
std::optional<ScalarKind> promote(ScalarKind a, ScalarKind b);

//===----------------------------------------------------------------------===//
// Type
//===----------------------------------------------------------------------===//

/// Base of all types; pointer-sized handles owned by the Context.
class Type {
public:
  enum class TypeKind : uint8_t {
    Void,
    Bool,
    Scalar,
    MemRef,
    Group,
    CoopMatrix,
    Vector
  };

  Type(const Type &) = delete;
  Type &operator=(const Type &) = delete;

  TypeKind getTypeKind() const { return kind; }
  Context &getContext() const { return *context; }

  /// Prints the type in the spec's syntax.
  void print(llvm::raw_ostream &os) const;
  /// The printed form, for messages and tests.
  std::string str() const;

  /// A scalar of a number kind.
  bool isNumber() const { return kind == TypeKind::Scalar; }
  bool isBool() const { return kind == TypeKind::Bool; }
  bool isVoid() const { return kind == TypeKind::Void; }

protected:
  Type(TypeKind kind, Context &context) : kind(kind), context(&context) {}
  ~Type() = default;

private:
  TypeKind kind;
  Context *context;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Type &type) {
  type.print(os);
  return os;
}
/// Prints `<<null>>` for a null type, so diagnostics never crash.
llvm::raw_ostream &operator<<(llvm::raw_ostream &os, const Type *type);

/// `void`: the type of nothing (instructions without results use no type).
class VoidType : public Type {
public:
  static const VoidType *get(Context &ctx);
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::Void;
  }

private:
  friend class Context;
  explicit VoidType(Context &ctx) : Type(TypeKind::Void, ctx) {}
};

/// `bool`.
class BoolType : public Type {
public:
  static const BoolType *get(Context &ctx);
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::Bool;
  }

private:
  friend class Context;
  explicit BoolType(Context &ctx) : Type(TypeKind::Bool, ctx) {}
};

/// A number type: `i8`..`i64`, `index`, `bf16`..`f64`, `c32`, `c64`.
class ScalarType : public Type {
public:
  static const ScalarType *get(Context &ctx, ScalarKind kind);
  ScalarKind getScalarKind() const { return scalarKind; }
  bool isInteger() const { return ir::isInteger(scalarKind); }
  bool isFloating() const { return ir::isFloating(scalarKind); }
  bool isComplex() const { return ir::isComplex(scalarKind); }
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::Scalar;
  }

private:
  friend class Context;
  ScalarType(Context &ctx, ScalarKind kind)
      : Type(TypeKind::Scalar, ctx), scalarKind(kind) {}
  ScalarKind scalarKind;
};

/// `memref<elem x s1 x ... x sn [, strided<S1,...,Sn>] [, local]>`.
///
/// The stride is stored canonically: an empty stride in get() means the
/// packed layout, computed with `?` propagation (a stride after a dynamic
/// shape or stride is `?`). Hence `memref<f32x5x6>` and
/// `memref<f32x5x6,strided<1,5>>` are the same pointer.
class MemRefType : public Type, public llvm::FoldingSetNode {
public:
  /// Asserts that the layout is valid; use getChecked() on user input.
  static const MemRefType *get(Context &ctx, ScalarKind elem,
                               llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> stride = {},
                               AddressSpace space = AddressSpace::Global);
  /// Returns null and reports through \p emitError when the stride count
  /// differs from the order, a size is negative, the column-major layout
  /// rule (1 <= S1, S_{i-1} s_{i-1} <= S_i where known) fails, or a size in
  /// elements or bytes does not fit in 64 bits (isRepresentable()).
  static const MemRefType *
  getChecked(Context &ctx, ScalarKind elem, llvm::ArrayRef<int64_t> shape,
             llvm::ArrayRef<int64_t> stride, AddressSpace space,
             llvm::function_ref<InFlightDiagnostic()> emitError);
  /// Checks the rules of getChecked() without creating a type; \p message
  /// receives the reason on failure.
  static bool isValidLayout(llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> stride,
                            std::string *message = nullptr);
  /// Checks that every static size product, stride times size and the byte
  /// span of the layout (times the element size) fits in 64 bits, so that
  /// element counts, strides and byte offsets of the type never overflow.
  static bool isRepresentable(ScalarKind elem, llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> stride,
                              std::string *message = nullptr);
  /// The packed (default) stride of \p shape with `?` propagation.
  static llvm::SmallVector<int64_t, 4>
  getPackedStride(llvm::ArrayRef<int64_t> shape);

  ScalarKind getElementKind() const { return elementKind; }
  const ScalarType *getElementType() const;
  AddressSpace getAddressSpace() const { return addressSpace; }
  unsigned getOrder() const { return shape.size(); }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getStride() const { return stride; }
  int64_t getShape(unsigned mode) const { return shape[mode]; }
  int64_t getStride(unsigned mode) const { return stride[mode]; }
  bool isDynamicShape(unsigned mode) const { return isDynamic(shape[mode]); }
  bool isDynamicStride(unsigned mode) const { return isDynamic(stride[mode]); }
  unsigned getNumDynamicShape() const;
  unsigned getNumDynamicStride() const;
  /// True if the stride equals the packed stride of the shape.
  bool isPackedLayout() const;
  /// Number of elements, or kDynamic.
  int64_t getNumElements() const;
  /// Number of bytes, or kDynamic.
  int64_t getSizeInBytes() const;

  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::MemRef;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;
  static void profile(llvm::FoldingSetNodeID &id, ScalarKind elem,
                      llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> stride, AddressSpace space);

private:
  friend class Context;
  MemRefType(Context &ctx, ScalarKind elem, llvm::ArrayRef<int64_t> shape,
             llvm::ArrayRef<int64_t> stride, AddressSpace space)
      : Type(TypeKind::MemRef, ctx), elementKind(elem), addressSpace(space),
        shape(shape), stride(stride) {}
  ScalarKind elementKind;
  AddressSpace addressSpace;
  llvm::ArrayRef<int64_t> shape;  // allocated in the Context
  llvm::ArrayRef<int64_t> stride; // canonical, allocated in the Context
};

/// `group<memref-type x size [, offset: off]>`; size and offset may be `?`.
class GroupType : public Type, public llvm::FoldingSetNode {
public:
  static const GroupType *get(Context &ctx, const MemRefType *memref,
                              int64_t size, int64_t offset = 0);
  const MemRefType *getMemRefType() const { return memref; }
  int64_t getSize() const { return size; }
  int64_t getOffset() const { return offset; }
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::Group;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  GroupType(Context &ctx, const MemRefType *memref, int64_t size,
            int64_t offset)
      : Type(TypeKind::Group, ctx), memref(memref), size(size), offset(offset) {
  }
  const MemRefType *memref;
  int64_t size;
  int64_t offset;
};

/// `coopmatrix<component x rows x cols, use>`.
class CoopMatrixType : public Type, public llvm::FoldingSetNode {
public:
  static const CoopMatrixType *get(Context &ctx, ScalarKind component,
                                   int64_t rows, int64_t cols, MatrixUse use);
  ScalarKind getComponentKind() const { return componentKind; }
  const ScalarType *getComponentType() const;
  int64_t getRows() const { return rows; }
  int64_t getCols() const { return cols; }
  MatrixUse getUse() const { return use; }
  /// Same shape and use, different component kind.
  const CoopMatrixType *withComponent(ScalarKind kind) const;
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::CoopMatrix;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  friend class Context;
  CoopMatrixType(Context &ctx, ScalarKind component, int64_t rows, int64_t cols,
                 MatrixUse use)
      : Type(TypeKind::CoopMatrix, ctx), componentKind(component), rows(rows),
        cols(cols), use(use) {}
  ScalarKind componentKind;
  int64_t rows;
  int64_t cols;
  MatrixUse use;
};

/// `vector<kind x width>`: the value one work-item holds of a part of a
/// cooperative matrix once lower-coopmatrix has split it (an OpenCL vector
/// of 2-16 real or integer elements). Not part of the user language.
class VectorType : public Type, public llvm::FoldingSetNode {
public:
  static const VectorType *get(Context &ctx, ScalarKind element,
                               unsigned width);
  ScalarKind getElementKind() const { return elementKind; }
  const ScalarType *getElementType() const;
  unsigned getWidth() const { return width; }
  static bool classof(const Type *type) {
    return type->getTypeKind() == TypeKind::Vector;
  }
  void Profile(llvm::FoldingSetNodeID &id) const;

private:
  VectorType(Context &ctx, ScalarKind element, unsigned width)
      : Type(TypeKind::Vector, ctx), elementKind(element), width(width) {}
  ScalarKind elementKind;
  unsigned width;
};

/// The scalar kind of a number type, the component kind of a coopmatrix or
/// the element kind of a vector.
std::optional<ScalarKind> getScalarOrComponentKind(const Type *type);

/// True if a scalar cast from \p from to \p to is allowed (the spec's cast
/// table: everything except complex -> integer/floating).
bool isCastAllowed(ScalarKind from, ScalarKind to);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_TYPES_H
