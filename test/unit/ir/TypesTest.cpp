//===- TypesTest.cpp - Type uniquing, layout rules, promotion -------------===//
#include "comprehend/ir/Types.h"
#include "comprehend/ir/Context.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::ir;

namespace {

constexpr ScalarKind kAllKinds[] = {
    ScalarKind::I8,    ScalarKind::I16,  ScalarKind::I32, ScalarKind::I64,
    ScalarKind::Index, ScalarKind::BF16, ScalarKind::F16, ScalarKind::F32,
    ScalarKind::F64,   ScalarKind::C32,  ScalarKind::C64};

TEST(TypesTest, ScalarTypesAreUniquedAndPrint) {
  Context ctx;
  for (ScalarKind kind : kAllKinds) {
    const ScalarType *type = ScalarType::get(ctx, kind);
    EXPECT_EQ(type, ScalarType::get(ctx, kind));
    EXPECT_EQ(type->str(), stringify(kind));
    EXPECT_EQ(parseScalarKind(stringify(kind)), kind);
  }
  EXPECT_EQ(BoolType::get(ctx)->str(), "bool");
  EXPECT_EQ(VoidType::get(ctx)->str(), "void");
  EXPECT_NE(static_cast<const Type *>(BoolType::get(ctx)),
            static_cast<const Type *>(VoidType::get(ctx)));
  EXPECT_FALSE(parseScalarKind("f128"));
}

TEST(TypesTest, ScalarKindProperties) {
  EXPECT_TRUE(isInteger(ScalarKind::Index));
  EXPECT_FALSE(isInteger(ScalarKind::BF16));
  EXPECT_TRUE(isFloating(ScalarKind::BF16));
  EXPECT_FALSE(isFloating(ScalarKind::C32));
  EXPECT_TRUE(isComplex(ScalarKind::C64));
  EXPECT_EQ(getComponentKind(ScalarKind::C32), ScalarKind::F32);
  EXPECT_EQ(getComponentKind(ScalarKind::C64), ScalarKind::F64);
  EXPECT_EQ(getComponentKind(ScalarKind::I16), ScalarKind::I16);
  const unsigned sizes[] = {1, 2, 4, 8, 8, 2, 2, 4, 8, 8, 16};
  for (unsigned i = 0; i < kNumScalarKinds; ++i)
    EXPECT_EQ(getSizeInBytes(kAllKinds[i]), sizes[i])
        << stringify(kAllKinds[i]).str();
}

TEST(TypesTest, PackedLayoutIsTheSameType) {
  Context ctx;
  const MemRefType *packed = MemRefType::get(ctx, ScalarKind::F32, {5, 6, 7});
  const MemRefType *explicitStride =
      MemRefType::get(ctx, ScalarKind::F32, {5, 6, 7}, {1, 5, 30});
  EXPECT_EQ(packed, explicitStride);
  EXPECT_TRUE(packed->isPackedLayout());
  EXPECT_EQ(packed->str(), "memref<f32x5x6x7>");
  EXPECT_EQ(packed->getOrder(), 3u);
  EXPECT_EQ(packed->getNumElements(), 210);
  EXPECT_EQ(packed->getSizeInBytes(), 840);

  const MemRefType *strided =
      MemRefType::get(ctx, ScalarKind::F32, {5, 6}, {1, 10});
  EXPECT_NE(strided, MemRefType::get(ctx, ScalarKind::F32, {5, 6}));
  EXPECT_FALSE(strided->isPackedLayout());
  EXPECT_EQ(strided->str(), "memref<f32x5x6,strided<1,10>>");
}

TEST(TypesTest, DynamicStridePropagation) {
  Context ctx;
  const MemRefType *type =
      MemRefType::get(ctx, ScalarKind::F64, {4, kDynamic, 5, 2});
  EXPECT_EQ(type->getStride(),
            (llvm::ArrayRef<int64_t>{1, 4, kDynamic, kDynamic}));
  EXPECT_EQ(type->getNumDynamicShape(), 1u);
  EXPECT_EQ(type->getNumDynamicStride(), 2u);
  EXPECT_TRUE(type->isDynamicShape(1));
  EXPECT_EQ(type->getNumElements(), kDynamic);
  EXPECT_EQ(type->str(), "memref<f64x4x?x5x2>");
  EXPECT_EQ(type, MemRefType::get(ctx, ScalarKind::F64, {4, kDynamic, 5, 2},
                                  {1, 4, kDynamic, kDynamic}));
  const MemRefType *dynStride =
      MemRefType::get(ctx, ScalarKind::F32, {8, 8}, {kDynamic, kDynamic});
  EXPECT_EQ(dynStride->str(), "memref<f32x8x8,strided<?,?>>");
}

TEST(TypesTest, AddressSpaceAndOrderZero) {
  Context ctx;
  const MemRefType *local =
      MemRefType::get(ctx, ScalarKind::I32, {16}, {}, AddressSpace::Local);
  EXPECT_EQ(local->str(), "memref<i32x16,local>");
  EXPECT_NE(local, MemRefType::get(ctx, ScalarKind::I32, {16}));
  const MemRefType *scalar = MemRefType::get(ctx, ScalarKind::F32, {});
  EXPECT_EQ(scalar->getOrder(), 0u);
  EXPECT_EQ(scalar->str(), "memref<f32>");
}

TEST(TypesTest, LayoutRules) {
  std::string message;
  EXPECT_TRUE(MemRefType::isValidLayout({4, 8}, {1, 4}, &message));
  EXPECT_TRUE(MemRefType::isValidLayout({4, 8}, {2, 16}, &message));
  EXPECT_TRUE(MemRefType::isValidLayout({kDynamic, 8}, {1, 3}, &message));
  EXPECT_TRUE(MemRefType::isValidLayout({4, 8}, {kDynamic, 3}, &message));
  EXPECT_FALSE(MemRefType::isValidLayout({4, 8}, {0, 4}, &message));
  EXPECT_EQ(message, "first stride must be at least 1, but is 0");
  EXPECT_FALSE(MemRefType::isValidLayout({4, 8}, {1, 3}, &message));
  EXPECT_EQ(message, "stride 2 must be at least 4 (stride times size of mode "
                     "1), but is 3");
  EXPECT_FALSE(MemRefType::isValidLayout({4, 8}, {1}, &message));
  EXPECT_EQ(message,
            "strided layout must have 2 entries (one per mode), but has 1");
  EXPECT_FALSE(MemRefType::isValidLayout({-1}, {}, &message));
  int64_t big = int64_t(1) << 62;
  EXPECT_FALSE(MemRefType::isValidLayout({big, 4}, {4, 8}, &message));
  EXPECT_EQ(message, "stride 1 times size of mode 1 does not fit in 64 bits");
}

TEST(TypesTest, SizesMustFitIn64Bits) {
  int64_t big = int64_t(1) << 31;
  std::string message;
  // 2^62 elements fit; as f32 their bytes do not; a `?` is not counted.
  EXPECT_TRUE(MemRefType::isRepresentable(ScalarKind::I8, {big, big}, {}));
  EXPECT_FALSE(
      MemRefType::isRepresentable(ScalarKind::F32, {big, big}, {}, &message));
  EXPECT_EQ(message, "size in bytes of the memref (its static sizes and "
                     "strides times the element size of 4 bytes) does not "
                     "fit in 64 bits");
  EXPECT_TRUE(
      MemRefType::isRepresentable(ScalarKind::F32, {big, kDynamic}, {}));
  // Each term fits, their sum does not.
  EXPECT_FALSE(MemRefType::isRepresentable(ScalarKind::F16, {2, 1},
                                           {1, (int64_t(1) << 62) - 1}));
  // Packed strides past 64 bits become `?` instead of wrapping.
  EXPECT_EQ(MemRefType::getPackedStride({big, big, big, 2})[3], kDynamic);
}

TEST(TypesTest, GetCheckedReports) {
  Context ctx;
  llvm::SourceMgr sourceMgr;
  std::string output;
  llvm::raw_string_ostream os(output);
  DiagnosticEngine diags(sourceMgr, os);
  std::vector<std::string> messages;
  diags.setHandler([&](const Diagnostic &d) { messages.push_back(d.message); });
  const MemRefType *bad = MemRefType::getChecked(
      ctx, ScalarKind::F32, {4, 4}, {2, 4}, AddressSpace::Global,
      [&] { return diags.emitError({}); });
  EXPECT_EQ(bad, nullptr);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0],
            "stride 2 must be at least 8 (stride times size of mode 1), but "
            "is 4");
  const MemRefType *good = MemRefType::getChecked(
      ctx, ScalarKind::F32, {4, 4}, {2, 8}, AddressSpace::Global,
      [&] { return diags.emitError({}); });
  ASSERT_NE(good, nullptr);
  EXPECT_EQ(messages.size(), 1u);
}

TEST(TypesTest, GroupAndCoopMatrix) {
  Context ctx;
  const MemRefType *memref = MemRefType::get(ctx, ScalarKind::F32, {42});
  const GroupType *group = GroupType::get(ctx, memref, kDynamic);
  EXPECT_EQ(group, GroupType::get(ctx, memref, kDynamic, 0));
  EXPECT_EQ(group->str(), "group<memref<f32x42>x?>");
  const GroupType *withOffset = GroupType::get(ctx, memref, 8, kDynamic);
  EXPECT_NE(group, withOffset);
  EXPECT_EQ(withOffset->str(), "group<memref<f32x42>x8, offset: ?>");
  EXPECT_EQ(withOffset->getMemRefType(), memref);

  const CoopMatrixType *a =
      CoopMatrixType::get(ctx, ScalarKind::F16, 16, 8, MatrixUse::A);
  EXPECT_EQ(a, CoopMatrixType::get(ctx, ScalarKind::F16, 16, 8, MatrixUse::A));
  EXPECT_NE(a, CoopMatrixType::get(ctx, ScalarKind::F16, 16, 8, MatrixUse::B));
  EXPECT_EQ(a->str(), "coopmatrix<f16x16x8,matrix_a>");
  EXPECT_EQ(a->withComponent(ScalarKind::F32)->str(),
            "coopmatrix<f32x16x8,matrix_a>");
  EXPECT_EQ(
      CoopMatrixType::get(ctx, ScalarKind::C64, 8, 8, MatrixUse::Acc)->str(),
      "coopmatrix<c64x8x8,matrix_acc>");
  EXPECT_EQ(getScalarOrComponentKind(a), ScalarKind::F16);
  EXPECT_EQ(getScalarOrComponentKind(memref), std::nullopt);
}

TEST(TypesTest, Isa) {
  Context ctx;
  const Type *type = MemRefType::get(ctx, ScalarKind::F32, {2});
  EXPECT_TRUE(llvm::isa<MemRefType>(type));
  EXPECT_FALSE(llvm::isa<ScalarType>(type));
  EXPECT_EQ(llvm::dyn_cast<GroupType>(type), nullptr);
}

/// The spec's matrix, written out once more, row by row (i8 i16 i32 i64
/// bf16 f16 f32 f64 c32 c64); compared against isPromotable for all pairs.
TEST(TypesTest, PromotionMatrix) {
  const ScalarKind kinds[] = {
      ScalarKind::I8,   ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
      ScalarKind::BF16, ScalarKind::F16, ScalarKind::F32, ScalarKind::F64,
      ScalarKind::C32,  ScalarKind::C64};
  const char *rows[] = {"1111111111", "0111001111", "0011000101", "0001000000",
                        "0000101111", "0000011111", "0000001111", "0000000101",
                        "0000000011", "0000000001"};
  for (unsigned i = 0; i < 10; ++i)
    for (unsigned j = 0; j < 10; ++j)
      EXPECT_EQ(isPromotable(kinds[i], kinds[j]), rows[i][j] == '1')
          << stringify(kinds[i]).str() << " <= " << stringify(kinds[j]).str();
}

TEST(TypesTest, PromotionIsAPartialOrder) {
  for (ScalarKind a : kAllKinds) {
    EXPECT_TRUE(isPromotable(a, a));
    for (ScalarKind b : kAllKinds) {
      // Antisymmetric, except that index and i64 are the same kind here.
      if (a != b && isPromotable(a, b)) {
        EXPECT_FALSE(isPromotable(b, a) && a != ScalarKind::Index &&
                     b != ScalarKind::Index)
            << stringify(a).str() << " " << stringify(b).str();
      }
      for (ScalarKind c : kAllKinds) {
        if (isPromotable(a, b) && isPromotable(b, c)) {
          EXPECT_TRUE(isPromotable(a, c))
              << stringify(a).str() << " " << stringify(b).str() << " "
              << stringify(c).str();
        }
      }
    }
  }
}

TEST(TypesTest, Promote) {
  EXPECT_EQ(promote(ScalarKind::I8, ScalarKind::F32), ScalarKind::F32);
  EXPECT_EQ(promote(ScalarKind::F32, ScalarKind::I8), ScalarKind::F32);
  EXPECT_EQ(promote(ScalarKind::F16, ScalarKind::C32), ScalarKind::C32);
  EXPECT_EQ(promote(ScalarKind::F64, ScalarKind::C32), std::nullopt);
  EXPECT_EQ(promote(ScalarKind::BF16, ScalarKind::F16), std::nullopt);
  EXPECT_EQ(promote(ScalarKind::I64, ScalarKind::F64), std::nullopt);
  EXPECT_EQ(promote(ScalarKind::I32, ScalarKind::Index), ScalarKind::Index);
  EXPECT_EQ(promote(ScalarKind::F32, ScalarKind::F32), ScalarKind::F32);
}

TEST(TypesTest, CastTable) {
  for (ScalarKind from : kAllKinds)
    for (ScalarKind to : kAllKinds)
      EXPECT_EQ(isCastAllowed(from, to), !isComplex(from) || isComplex(to))
          << stringify(from).str() << " -> " << stringify(to).str();
}

} // namespace
