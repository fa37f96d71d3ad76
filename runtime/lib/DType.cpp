//===- DType.cpp - Element types of tensors crossing the runtime ----------===//
#include "comprehend/runtime/DType.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstring>
#include <iterator>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace {
/// What the host needs to know of a DType beyond its IR scalar kind.
struct DTypeInfo {
  DType type;
  std::optional<ir::ScalarKind> kind;
  const char *npyCode;
  const char *numpyName;
};
} // namespace

/// One row per DType, in enum order (checked below).
static constexpr DTypeInfo kDTypes[] = {
    {DType::Bool, std::nullopt, "b1", "bool"},
    {DType::I8, ir::ScalarKind::I8, "i1", "int8"},
    {DType::I16, ir::ScalarKind::I16, "i2", "int16"},
    {DType::I32, ir::ScalarKind::I32, "i4", "int32"},
    {DType::I64, ir::ScalarKind::I64, "i8", "int64"},
    {DType::Index, ir::ScalarKind::Index, "i8", "int64"},
    {DType::BF16, ir::ScalarKind::BF16, "V2", "uint16"},
    {DType::F16, ir::ScalarKind::F16, "f2", "float16"},
    {DType::F32, ir::ScalarKind::F32, "f4", "float32"},
    {DType::F64, ir::ScalarKind::F64, "f8", "float64"},
    {DType::C32, ir::ScalarKind::C32, "c8", "complex64"},
    {DType::C64, ir::ScalarKind::C64, "c16", "complex128"},
};

static constexpr bool isInEnumOrder() {
  for (size_t i = 0; i < std::size(kDTypes); ++i)
    if (static_cast<size_t>(kDTypes[i].type) != i)
      return false;
  return true;
}
static_assert(isInEnumOrder(), "kDTypes must list the DTypes in enum order");
static_assert(std::size(kDTypes) == ir::kNumScalarKinds + 1,
              "every scalar kind and Bool need a row");

static const DTypeInfo &getInfo(DType type) {
  return kDTypes[static_cast<size_t>(type)];
}

DType comprehend::runtime::toDType(ir::ScalarKind kind) {
  for (const DTypeInfo &info : kDTypes)
    if (info.kind == kind)
      return info.type;
  llvm_unreachable("every scalar kind has a DType row");
}

std::optional<ir::ScalarKind> comprehend::runtime::toScalarKind(DType type) {
  return getInfo(type).kind;
}

unsigned comprehend::runtime::getDTypeSize(DType type) {
  std::optional<ir::ScalarKind> kind = toScalarKind(type);
  return kind ? ir::getSizeInBytes(*kind) : 1; // bool is one byte on the host
}

StringRef comprehend::runtime::getDTypeName(DType type) {
  std::optional<ir::ScalarKind> kind = toScalarKind(type);
  return kind ? ir::stringify(*kind) : "bool";
}

std::optional<DType> comprehend::runtime::parseDType(StringRef name) {
  if (name == "bool")
    return DType::Bool;
  if (std::optional<ir::ScalarKind> kind = ir::parseScalarKind(name))
    return toDType(*kind);
  return std::nullopt;
}

bool comprehend::runtime::isIntegerDType(DType type) {
  std::optional<ir::ScalarKind> kind = toScalarKind(type);
  return kind && ir::isInteger(*kind);
}

bool comprehend::runtime::isFloatingDType(DType type) {
  std::optional<ir::ScalarKind> kind = toScalarKind(type);
  return kind && ir::isFloating(*kind);
}

bool comprehend::runtime::isComplexDType(DType type) {
  std::optional<ir::ScalarKind> kind = toScalarKind(type);
  return kind && ir::isComplex(*kind);
}

StringRef comprehend::runtime::getNpyTypeCode(DType type) {
  return getInfo(type).npyCode;
}

StringRef comprehend::runtime::getNumpyTypeName(DType type) {
  return getInfo(type).numpyName;
}

/// IEEE binary16 bits of `value` (round to nearest even).
uint16_t comprehend::runtime::floatToHalfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) // inf / nan
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31)
    return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the right rounding
  return half;
}

uint16_t comprehend::runtime::floatToBF16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return (bits >> 16) | 0x40; // quiet nan
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float comprehend::runtime::halfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;
  } else {
    // Subnormal: normalise.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    result = sign | ((113 - shift) << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  std::memcpy(&value, &result, 4);
  return value;
}

float comprehend::runtime::bf16BitsToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}
