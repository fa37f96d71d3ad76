//===- Types.cpp - Scalar types of Tensor Comprehensions ------------------===//
#include "comprehend/tc/Types.h"

#include <algorithm>
#include <iterator>

using namespace comprehend;
using namespace comprehend::tc;

namespace {
/// Everything TC says about one of its scalar types.
struct ScalarTypeInfo {
  ScalarType type;
  const char *spelling;
  unsigned bitWidth;
  bool isUnsigned; ///< bool counts as an unsigned 1-bit integer
  bool isFloatingPoint;
  /// The IR is signless: intN and uintN are both stored as iN.
  std::optional<ir::ScalarKind> irKind;
};
} // namespace

/// One row per ScalarType, in enum order (checked below).
static constexpr ScalarTypeInfo kScalarTypes[] = {
    {ScalarType::Bool, "bool", 1, true, false, std::nullopt},
    {ScalarType::Int8, "int8", 8, false, false, ir::ScalarKind::I8},
    {ScalarType::Int16, "int16", 16, false, false, ir::ScalarKind::I16},
    {ScalarType::Int32, "int32", 32, false, false, ir::ScalarKind::I32},
    {ScalarType::Int64, "int64", 64, false, false, ir::ScalarKind::I64},
    {ScalarType::UInt8, "uint8", 8, true, false, ir::ScalarKind::I8},
    {ScalarType::UInt16, "uint16", 16, true, false, ir::ScalarKind::I16},
    {ScalarType::UInt32, "uint32", 32, true, false, ir::ScalarKind::I32},
    {ScalarType::UInt64, "uint64", 64, true, false, ir::ScalarKind::I64},
    {ScalarType::Half, "half", 16, false, true, ir::ScalarKind::F16},
    {ScalarType::Float, "float", 32, false, true, ir::ScalarKind::F32},
    {ScalarType::Double, "double", 64, false, true, ir::ScalarKind::F64},
};

static constexpr bool isInEnumOrder() {
  for (size_t i = 0; i < std::size(kScalarTypes); ++i)
    if (static_cast<size_t>(kScalarTypes[i].type) != i)
      return false;
  return true;
}
static_assert(isInEnumOrder(), "kScalarTypes must list the types in order");

static const ScalarTypeInfo &getInfo(ScalarType type) {
  return kScalarTypes[static_cast<size_t>(type)];
}

llvm::StringRef tc::getSpelling(ScalarType type) {
  return getInfo(type).spelling;
}

bool tc::isFloatingPoint(ScalarType type) {
  return getInfo(type).isFloatingPoint;
}

bool tc::isIntegral(ScalarType type) { return !isFloatingPoint(type); }

bool tc::isUnsigned(ScalarType type) { return getInfo(type).isUnsigned; }

unsigned tc::getBitWidth(ScalarType type) { return getInfo(type).bitWidth; }

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
  return getInfo(type).irKind;
}
