//===- DTypeTest.cpp - DType <-> ir::ScalarKind conversions ---------------===//
#include "comprehend/runtime/DType.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::runtime;

namespace {

constexpr unsigned kNumDTypes = static_cast<unsigned>(DType::C64) + 1;

TEST(DTypeTest, EveryScalarKindRoundTrips) {
  for (unsigned i = 0; i < ir::kNumScalarKinds; ++i) {
    auto kind = static_cast<ir::ScalarKind>(i);
    DType type = toDType(kind);
    EXPECT_EQ(toScalarKind(type), kind) << ir::stringify(kind).str();
    EXPECT_EQ(getDTypeSize(type), ir::getSizeInBytes(kind));
    EXPECT_EQ(getDTypeName(type), ir::stringify(kind));
    EXPECT_EQ(isIntegerDType(type), ir::isInteger(kind));
    EXPECT_EQ(isFloatingDType(type), ir::isFloating(kind));
    EXPECT_EQ(isComplexDType(type), ir::isComplex(kind));
  }
}

TEST(DTypeTest, EveryDTypeRoundTrips) {
  EXPECT_EQ(kNumDTypes, ir::kNumScalarKinds + 1);
  for (unsigned i = 0; i < kNumDTypes; ++i) {
    auto type = static_cast<DType>(i);
    std::optional<ir::ScalarKind> kind = toScalarKind(type);
    if (type == DType::Bool) {
      EXPECT_FALSE(kind.has_value());
    } else {
      ASSERT_TRUE(kind.has_value()) << getDTypeName(type).str();
      EXPECT_EQ(toDType(*kind), type);
    }
    EXPECT_EQ(parseDType(getDTypeName(type)), type);
  }
  EXPECT_FALSE(parseDType("float").has_value());
}

TEST(DTypeTest, HostFacts) {
  EXPECT_EQ(getDTypeSize(DType::Bool), 1u);
  EXPECT_EQ(getDTypeName(DType::Bool), "bool");
  EXPECT_FALSE(isIntegerDType(DType::Bool));
  EXPECT_EQ(getDTypeSize(DType::Index), 8u);
  EXPECT_EQ(getNpyTypeCode(DType::Bool), "b1");
  EXPECT_EQ(getNpyTypeCode(DType::Index), "i8");
  EXPECT_EQ(getNpyTypeCode(DType::BF16), "V2");
  EXPECT_EQ(getNpyTypeCode(DType::C64), "c16");
  EXPECT_EQ(getNumpyTypeName(DType::BF16), "uint16");
  EXPECT_EQ(getNumpyTypeName(DType::Index), "int64");
  EXPECT_EQ(getNumpyTypeName(DType::C32), "complex64");
  // The NumPy code's size agrees with the element size ("b1", "c16", "V2").
  for (unsigned i = 0; i < kNumDTypes; ++i) {
    auto type = static_cast<DType>(i);
    unsigned codeSize = 0;
    EXPECT_FALSE(getNpyTypeCode(type).drop_front().getAsInteger(10, codeSize));
    EXPECT_EQ(codeSize, getDTypeSize(type)) << getDTypeName(type).str();
  }
}

} // namespace
