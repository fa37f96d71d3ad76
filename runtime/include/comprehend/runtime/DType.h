//===- DType.h - Element types of tensors crossing the runtime --*- C++ -*-===//
//
// The scalar types of the tensor language as the host sees them: a size, a
// name, and the NumPy type string used by .npy files. f16 and bf16 are raw
// 2-byte data on the host; c32/c64 are pairs of f32/f64 (real first).
//
// A DType is an ir::ScalarKind or Bool (the IR's `bool` type, which is not a
// scalar kind). toDType/toScalarKind are the only conversions between the
// two; sizes, names and classes come from ir::ScalarKind through them, so
// only the host-side facts (NumPy codes and names) are tabled here.
// tc::ScalarType reaches a DType through tc::toIrScalarKind and toDType.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_DTYPE_H
#define COMPREHEND_RUNTIME_DTYPE_H

#include "comprehend/ir/Types.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace comprehend::runtime {

enum class DType : uint8_t {
  Bool,
  I8,
  I16,
  I32,
  I64,
  Index, ///< i64 on the host and on the 64-bit devices the runtime accepts
  BF16,
  F16,
  F32,
  F64,
  C32, ///< complex<f32>
  C64, ///< complex<f64>
};

/// The DType that holds values of \p kind on the host.
DType toDType(ir::ScalarKind kind);
/// The IR scalar kind of \p type; empty for Bool.
std::optional<ir::ScalarKind> toScalarKind(DType type);

/// Bytes of one element.
unsigned getDTypeSize(DType type);
/// The tensor language's spelling: "i32", "f16", "c64", "bool", "index".
llvm::StringRef getDTypeName(DType type);
/// Parses a tensor-language spelling.
std::optional<DType> parseDType(llvm::StringRef name);

bool isIntegerDType(DType type);
bool isFloatingDType(DType type);
bool isComplexDType(DType type);

/// The NumPy type string without byte order ("f4", "c8", "b1"). bf16 has no
/// NumPy type; it is written as "V2" (raw 2 bytes) and read from "V2" or
/// "u2"/"i2".
llvm::StringRef getNpyTypeCode(DType type);
/// The NumPy dtype name a host array of \p type has ("float32", "int64");
/// bf16 travels as "uint16" (its raw bits).
llvm::StringRef getNumpyTypeName(DType type);

/// IEEE binary16 / bfloat16 bits <-> float (round to nearest even), for
/// host-side data and references.
uint16_t floatToHalfBits(float value);
float halfBitsToFloat(uint16_t bits);
uint16_t floatToBF16Bits(float value);
float bf16BitsToFloat(uint16_t bits);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_DTYPE_H
