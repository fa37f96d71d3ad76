//===- DType.cpp - Element types of tensors crossing the runtime ----------===//
#include "comprehend/runtime/DType.h"

#include "llvm/ADT/StringSwitch.h"

#include <cstring>

using namespace comprehend::runtime;
using llvm::StringRef;

unsigned comprehend::runtime::getDTypeSize(DType type) {
  switch (type) {
  case DType::Bool:
  case DType::I8:
    return 1;
  case DType::I16:
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::I32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::Index:
  case DType::F64:
  case DType::C32:
    return 8;
  case DType::C64:
    return 16;
  }
  return 1;
}

StringRef comprehend::runtime::getDTypeName(DType type) {
  switch (type) {
  case DType::Bool:
    return "bool";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Index:
    return "index";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::C32:
    return "c32";
  case DType::C64:
    return "c64";
  }
  return "?";
}

std::optional<DType> comprehend::runtime::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("bool", DType::Bool)
      .Case("i8", DType::I8)
      .Case("i16", DType::I16)
      .Case("i32", DType::I32)
      .Case("i64", DType::I64)
      .Case("index", DType::Index)
      .Case("bf16", DType::BF16)
      .Case("f16", DType::F16)
      .Case("f32", DType::F32)
      .Case("f64", DType::F64)
      .Case("c32", DType::C32)
      .Case("c64", DType::C64)
      .Default(std::nullopt);
}

bool comprehend::runtime::isIntegerDType(DType type) {
  return type == DType::I8 || type == DType::I16 || type == DType::I32 ||
         type == DType::I64 || type == DType::Index;
}

bool comprehend::runtime::isFloatingDType(DType type) {
  return type == DType::BF16 || type == DType::F16 || type == DType::F32 ||
         type == DType::F64;
}

bool comprehend::runtime::isComplexDType(DType type) {
  return type == DType::C32 || type == DType::C64;
}

StringRef comprehend::runtime::getNpyTypeCode(DType type) {
  switch (type) {
  case DType::Bool:
    return "b1";
  case DType::I8:
    return "i1";
  case DType::I16:
    return "i2";
  case DType::I32:
    return "i4";
  case DType::I64:
  case DType::Index:
    return "i8";
  case DType::BF16:
    return "V2";
  case DType::F16:
    return "f2";
  case DType::F32:
    return "f4";
  case DType::F64:
    return "f8";
  case DType::C32:
    return "c8";
  case DType::C64:
    return "c16";
  }
  return "V1";
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
