//===- Types.h - Scalar types of Tensor Comprehensions ----------*- C++ -*-===//
//
// TC's element types and its promotion rule (`match_types` in the original
// Sema). The IR has signless integers only; toIrScalarKind documents how the
// unsigned TC types are carried (same width, signedness kept by the frontend
// for division, comparisons and conversions).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_TYPES_H
#define COMPREHEND_TC_TYPES_H

#include "comprehend/ir/Types.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace comprehend::tc {

/// The scalar (element) types of TC. `byte` is `UInt8`, `half`/`float16` are
/// `Half`, `float32` is `Float`, `float64` is `Double`.
enum class ScalarType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Half,
  Float,
  Double
};

/// The canonical spelling (`int32`, `float`, `half`, `bool`).
llvm::StringRef getSpelling(ScalarType type);
/// True for the signed and unsigned integer types and bool.
bool isIntegral(ScalarType type);
/// True for half, float and double.
bool isFloatingPoint(ScalarType type);
/// True for bool and the uint types (bool is an unsigned 1-bit integer in TC).
bool isUnsigned(ScalarType type);
/// Width in bits (bool is 1).
unsigned getBitWidth(ScalarType type);

/// TC's promotion of two operand types: equal types stay, a float wins over
/// an integer, the wider float or the wider unsigned type wins, and a mix of
/// signed and unsigned integers gives the signed integer of the larger width
/// (`uint8 + int8` is `int8`, `uint64 + int32` is `int64`).
ScalarType promote(ScalarType a, ScalarType b);

/// The IR scalar kind a TC type is stored as: intN and uintN -> iN (the IR is
/// signless), half -> f16, float -> f32, double -> f64. Bool has no scalar
/// kind (it is the IR's `bool` type), so the result is empty for it.
std::optional<ir::ScalarKind> toIrScalarKind(ScalarType type);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_TYPES_H
