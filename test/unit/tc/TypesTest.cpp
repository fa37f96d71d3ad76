//===- TypesTest.cpp - TC scalar types and promotion ----------------------===//
#include "comprehend/tc/Types.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;

namespace {

TEST(TcTypesTest, PromotionFollowsTc) {
  // The examples of the notes' promotion table.
  EXPECT_EQ(promote(ScalarType::Bool, ScalarType::Int32), ScalarType::Int32);
  EXPECT_EQ(promote(ScalarType::Bool, ScalarType::UInt8), ScalarType::UInt8);
  EXPECT_EQ(promote(ScalarType::UInt8, ScalarType::Int8), ScalarType::Int8);
  EXPECT_EQ(promote(ScalarType::UInt32, ScalarType::Int8), ScalarType::Int32);
  EXPECT_EQ(promote(ScalarType::UInt64, ScalarType::Int32), ScalarType::Int64);
  EXPECT_EQ(promote(ScalarType::Int64, ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(promote(ScalarType::Double, ScalarType::Float), ScalarType::Double);
  EXPECT_EQ(promote(ScalarType::Half, ScalarType::Float), ScalarType::Float);
  EXPECT_EQ(promote(ScalarType::UInt16, ScalarType::UInt8), ScalarType::UInt16);
  EXPECT_EQ(promote(ScalarType::Int8, ScalarType::Int32), ScalarType::Int32);
}

TEST(TcTypesTest, PromotionIsSymmetric) {
  for (int a = 0; a <= static_cast<int>(ScalarType::Double); ++a)
    for (int b = 0; b <= static_cast<int>(ScalarType::Double); ++b)
      EXPECT_EQ(promote(ScalarType(a), ScalarType(b)),
                promote(ScalarType(b), ScalarType(a)))
          << getSpelling(ScalarType(a)).str() << " "
          << getSpelling(ScalarType(b)).str();
}

TEST(TcTypesTest, IrScalarKinds) {
  EXPECT_EQ(toIrScalarKind(ScalarType::UInt8), ir::ScalarKind::I8);
  EXPECT_EQ(toIrScalarKind(ScalarType::Int16), ir::ScalarKind::I16);
  EXPECT_EQ(toIrScalarKind(ScalarType::UInt32), ir::ScalarKind::I32);
  EXPECT_EQ(toIrScalarKind(ScalarType::UInt64), ir::ScalarKind::I64);
  EXPECT_EQ(toIrScalarKind(ScalarType::Half), ir::ScalarKind::F16);
  EXPECT_EQ(toIrScalarKind(ScalarType::Float), ir::ScalarKind::F32);
  EXPECT_EQ(toIrScalarKind(ScalarType::Double), ir::ScalarKind::F64);
  EXPECT_FALSE(toIrScalarKind(ScalarType::Bool).has_value());
}

TEST(TcTypesTest, Properties) {
  EXPECT_TRUE(isUnsigned(ScalarType::Bool));
  EXPECT_TRUE(isIntegral(ScalarType::Bool));
  EXPECT_FALSE(isUnsigned(ScalarType::Int8));
  EXPECT_TRUE(isFloatingPoint(ScalarType::Half));
  EXPECT_EQ(getBitWidth(ScalarType::Bool), 1u);
  EXPECT_EQ(getBitWidth(ScalarType::Double), 64u);
  EXPECT_EQ(getSpelling(ScalarType::UInt16), "uint16");
}

TEST(TcTypesTest, EveryTypeAgreesWithItsIrScalarKind) {
  constexpr unsigned kNumTypes = static_cast<unsigned>(ScalarType::Double) + 1;
  for (unsigned i = 0; i < kNumTypes; ++i) {
    auto type = static_cast<ScalarType>(i);
    std::optional<ir::ScalarKind> kind = toIrScalarKind(type);
    if (type == ScalarType::Bool) {
      EXPECT_FALSE(kind.has_value());
      continue;
    }
    ASSERT_TRUE(kind.has_value()) << getSpelling(type).str();
    EXPECT_EQ(getBitWidth(type), 8 * ir::getSizeInBytes(*kind));
    EXPECT_EQ(isFloatingPoint(type), ir::isFloating(*kind));
    EXPECT_EQ(isIntegral(type), ir::isInteger(*kind));
    EXPECT_NE(*kind, ir::ScalarKind::Index);
  }
}

} // namespace
