//===- Types.cpp - Scalar types of Tensor Comprehensions ------------------===//
#include "comprehend/tc/Types.h"

#include <algorithm>

using namespace comprehend;
using namespace comprehend::tc;

llvm::StringRef tc::getSpelling(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return "bool";
  case ScalarType::Int8:
    return "int8";
  case ScalarType::Int16:
    return "int16";
  case ScalarType::Int32:
    return "int32";
  case ScalarType::Int64:
    return "int64";
  case ScalarType::UInt8:
    return "uint8";
  case ScalarType::UInt16:
    return "uint16";
  case ScalarType::UInt32:
    return "uint32";
  case ScalarType::UInt64:
    return "uint64";
  case ScalarType::Half:
    return "half";
  case ScalarType::Float:
    return "float";
  case ScalarType::Double:
    return "double";
  }
  return "<invalid>";
}

bool tc::isFloatingPoint(ScalarType type) {
  return type == ScalarType::Half || type == ScalarType::Float ||
         type == ScalarType::Double;
}

bool tc::isIntegral(ScalarType type) { return !isFloatingPoint(type); }

bool tc::isUnsigned(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
  case ScalarType::UInt8:
  case ScalarType::UInt16:
  case ScalarType::UInt32:
  case ScalarType::UInt64:
    return true;
  default:
    return false;
  }
}

unsigned tc::getBitWidth(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return 1;
  case ScalarType::Int8:
  case ScalarType::UInt8:
    return 8;
  case ScalarType::Int16:
  case ScalarType::UInt16:
  case ScalarType::Half:
    return 16;
  case ScalarType::Int32:
  case ScalarType::UInt32:
  case ScalarType::Float:
    return 32;
  case ScalarType::Int64:
  case ScalarType::UInt64:
  case ScalarType::Double:
    return 64;
  }
  return 0;
}

static ScalarType signedIntOfWidth(unsigned width) {
  if (width <= 8)
    return ScalarType::Int8;
  if (width <= 16)
    return ScalarType::Int16;
  if (width <= 32)
    return ScalarType::Int32;
  return ScalarType::Int64;
}

ScalarType tc::promote(ScalarType a, ScalarType b) {
  if (a == b)
    return a;
  bool aFloat = isFloatingPoint(a), bFloat = isFloatingPoint(b);
  if (aFloat != bFloat)
    return aFloat ? a : b;
  if (aFloat || (isUnsigned(a) && isUnsigned(b)))
    return getBitWidth(a) >= getBitWidth(b) ? a : b;
  return signedIntOfWidth(std::max(getBitWidth(a), getBitWidth(b)));
}

std::optional<ir::ScalarKind> tc::toIrScalarKind(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
    return std::nullopt;
  case ScalarType::Int8:
  case ScalarType::UInt8:
    return ir::ScalarKind::I8;
  case ScalarType::Int16:
  case ScalarType::UInt16:
    return ir::ScalarKind::I16;
  case ScalarType::Int32:
  case ScalarType::UInt32:
    return ir::ScalarKind::I32;
  case ScalarType::Int64:
  case ScalarType::UInt64:
    return ir::ScalarKind::I64;
  case ScalarType::Half:
    return ir::ScalarKind::F16;
  case ScalarType::Float:
    return ir::ScalarKind::F32;
  case ScalarType::Double:
    return ir::ScalarKind::F64;
  }
  return std::nullopt;
}
