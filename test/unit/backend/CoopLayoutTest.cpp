//===- CoopLayoutTest.cpp - Coopmatrices as per-work-item parts -----------===//
#include "CoopLayout.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace comprehend;
using namespace comprehend::backend;
using ir::ScalarKind;

namespace {

std::string print(const CoopLayout &layout) {
  std::string text;
  llvm::raw_string_ostream os(text);
  layout.print(os);
  return text;
}

/// The printed layout of a \p rows x \p cols coopmatrix of \p kind on one
/// lane, with or without \p compactTail.
std::string oneLane(int64_t rows, int64_t cols, ScalarKind kind,
                    bool compactTail) {
  return print(CoopLayout::get(rows, cols, kind, 1, compactTail));
}

TEST(CoopLayoutTest, OneLaneHoldsColumnsAsVectorsLargestFirst) {
  EXPECT_EQ(oneLane(16, 8, ScalarKind::F32, false), "8 x [16]");
  EXPECT_EQ(oneLane(9, 8, ScalarKind::F32, false), "8 x [8, 1]");
  EXPECT_EQ(oneLane(56, 2, ScalarKind::F32, false), "2 x [16, 16, 16, 8]");
  EXPECT_EQ(oneLane(7, 1, ScalarKind::I32, false), "1 x [4, 2, 1]");
  // 64-bit kinds stop at 8 lanes.
  EXPECT_EQ(oneLane(12, 1, ScalarKind::F64, false), "1 x [8, 4]");
  EXPECT_EQ(oneLane(16, 1, ScalarKind::I64, false), "1 x [8, 8]");
}

TEST(CoopLayoutTest, AnOverlappingTailSavesParts) {
  // 30 rows: two whole vectors, the second from row 14, instead of
  // 16 + 8 + 4 + 2.
  CoopLayout layout = CoopLayout::get(30, 8, ScalarKind::F32, 1, true);
  EXPECT_EQ(print(layout), "8 x [16, 16@14]");
  EXPECT_EQ(layout.blocks, 30u);
  EXPECT_EQ(layout.getNumParts(), 16u);
  // A row in both parts is found in the last one.
  EXPECT_EQ(layout.locate(13), std::make_pair(0u, 13u));
  EXPECT_EQ(layout.locate(14), std::make_pair(1u, 0u));
  EXPECT_EQ(layout.locate(29), std::make_pair(1u, 15u));
  EXPECT_EQ(layout.locate(30), std::make_pair(2u, 0u));
  EXPECT_EQ(oneLane(7, 1, ScalarKind::I32, true), "1 x [4, 4@3]");
  EXPECT_EQ(oneLane(30, 1, ScalarKind::F64, true), "1 x [8, 8, 8, 8@22]");
  // Only where it takes fewer parts: not for 9 integer rows (8 + 1) or 56
  // rows (16 * 3 + 8), nor on lanes of a subgroup, nor for scalar kinds.
  EXPECT_EQ(oneLane(9, 1, ScalarKind::I32, true), "1 x [8, 1]");
  EXPECT_EQ(oneLane(56, 1, ScalarKind::F32, true), "1 x [16, 16, 16, 8]");
  EXPECT_TRUE(CoopLayout::get(30, 8, ScalarKind::F32, 16, true).isScalar());
  EXPECT_EQ(oneLane(3, 1, ScalarKind::F16, true), "1 x [1, 1, 1]");
  EXPECT_FALSE(CoopLayout::get(30, 8, ScalarKind::F32, 1, true) ==
               CoopLayout::get(30, 8, ScalarKind::F32, 1));
}

TEST(CoopLayoutTest, AShortColumnOfRealsIsOnePaddedVector) {
  // 9 rows: one vector of 16 with 9 lanes used, instead of 8 + 1.
  CoopLayout layout = CoopLayout::get(9, 8, ScalarKind::F32, 1, true);
  EXPECT_EQ(print(layout), "8 x [16(9)]");
  EXPECT_EQ(layout.getNumParts(), 8u);
  EXPECT_EQ(layout.getNumComponents(), 72u);
  EXPECT_EQ(layout.getUsedLanes(3), 9u);
  EXPECT_EQ(layout.locate(8), std::make_pair(0u, 8u));
  EXPECT_EQ(layout.locate(9), std::make_pair(1u, 0u));
  EXPECT_EQ(oneLane(7, 1, ScalarKind::F32, true), "1 x [8(7)]");
  EXPECT_EQ(oneLane(3, 2, ScalarKind::F32, true), "2 x [4(3)]");
  EXPECT_EQ(oneLane(5, 1, ScalarKind::F64, true), "1 x [8(5)]");
  // Not where the greedy split is one part already, nor past the widest
  // vector (an overlapping tail or the greedy split instead), nor for
  // integers (division by the zero lanes), nor without compactTail.
  EXPECT_EQ(oneLane(8, 1, ScalarKind::F32, true), "1 x [8]");
  EXPECT_EQ(oneLane(17, 1, ScalarKind::F32, true), "1 x [16, 1]");
  EXPECT_EQ(oneLane(9, 1, ScalarKind::F64, true), "1 x [8, 1]");
  EXPECT_EQ(oneLane(5, 1, ScalarKind::I32, true), "1 x [4, 1]");
  EXPECT_EQ(oneLane(9, 1, ScalarKind::F32, false), "1 x [8, 1]");
  EXPECT_EQ(CoopLayout::get(9, 1, ScalarKind::F32, 1).getUsedLanes(1), 1u);
}

TEST(CoopLayoutTest, ConvertedComplexAndSmallKindsStayScalar) {
  for (ScalarKind kind : {ScalarKind::F16, ScalarKind::BF16, ScalarKind::C32,
                          ScalarKind::C64, ScalarKind::I8, ScalarKind::I16}) {
    CoopLayout layout = CoopLayout::get(4, 2, kind, 1);
    EXPECT_TRUE(layout.isScalar());
    EXPECT_EQ(print(layout), "2 x [1, 1, 1, 1]");
  }
}

TEST(CoopLayoutTest, LanesHoldScalarsOnePerRowBlock) {
  // 40 rows on 16 lanes: 3 row blocks (the last one half padding).
  CoopLayout layout = CoopLayout::get(40, 8, ScalarKind::F32, 16);
  EXPECT_EQ(layout.blocks, 3u);
  EXPECT_TRUE(layout.isScalar());
  EXPECT_EQ(layout.getNumParts(), 24u);
  EXPECT_EQ(layout.getNumComponents(), 24u);
}

TEST(CoopLayoutTest, LocateFindsPartAndLane) {
  // 9x2: column j is parts 2j (8 wide) and 2j + 1 (scalar).
  CoopLayout layout = CoopLayout::get(9, 2, ScalarKind::F32, 1);
  EXPECT_EQ(layout.getNumParts(), 4u);
  EXPECT_EQ(layout.locate(0), std::make_pair(0u, 0u));
  EXPECT_EQ(layout.locate(7), std::make_pair(0u, 7u));
  EXPECT_EQ(layout.locate(8), std::make_pair(1u, 0u));
  EXPECT_EQ(layout.locate(9), std::make_pair(2u, 0u));
  EXPECT_EQ(layout.locate(17), std::make_pair(3u, 0u));
  EXPECT_EQ(layout.getWidth(2), 8u);
  EXPECT_EQ(layout.getWidth(3), 1u);
}

TEST(CoopLayoutTest, EqualTypesPackAlikeAcrossKindsOfTheSameWidths) {
  // f32 and i32 split alike (casts between them stay vector-wise); f32 and
  // f64 differ once a column is longer than 8.
  EXPECT_EQ(CoopLayout::get(16, 4, ScalarKind::F32, 1),
            CoopLayout::get(16, 4, ScalarKind::I32, 1));
  EXPECT_EQ(CoopLayout::get(8, 4, ScalarKind::F32, 1),
            CoopLayout::get(8, 4, ScalarKind::F64, 1));
  EXPECT_FALSE(CoopLayout::get(16, 4, ScalarKind::F32, 1) ==
               CoopLayout::get(16, 4, ScalarKind::F64, 1));
}

} // namespace
