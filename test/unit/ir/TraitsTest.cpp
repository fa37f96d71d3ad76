//===- TraitsTest.cpp - Traits, effects, family views, scalar folds -------===//
//
// What the instruction table tells the passes: the generated traits and
// memory effects, the family views over instructions sharing their operands,
// and the scalar semantics of InstFolds.h.inc.
//
//===----------------------------------------------------------------------===//
#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/InstSemantics.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

std::vector<InstKind> kindsWith(InstTrait trait) {
  std::vector<InstKind> kinds;
  for (unsigned i = 0; i < kNumInstKinds; ++i)
    if (hasTrait(static_cast<InstKind>(i), trait))
      kinds.push_back(static_cast<InstKind>(i));
  return kinds;
}

TEST(TraitsTest, BlasAndForeachAreTheCollectiveWork) {
  EXPECT_EQ(
      kindsWith(InstTrait::Blas),
      (std::vector<InstKind>{InstKind::Axpby, InstKind::Cumsum, InstKind::Gemm,
                             InstKind::Gemv, InstKind::Ger, InstKind::Hadamard,
                             InstKind::Sum}));
  EXPECT_EQ(kindsWith(InstTrait::ForeachLoop),
            (std::vector<InstKind>{InstKind::Foreach, InstKind::ForeachTile}));
  for (InstKind kind : kindsWith(InstTrait::Blas))
    EXPECT_EQ(getDescriptor(kind).category, InstCategory::Collective);
}

TEST(TraitsTest, CoopMatrixTraitIsExactlyTheCooperativeMatrixInstructions) {
  for (unsigned i = 0; i < kNumInstKinds; ++i) {
    const InstDescriptor &desc = getDescriptor(static_cast<InstKind>(i));
    EXPECT_EQ(desc.hasTrait(InstTrait::CoopMatrix),
              desc.mnemonic.startswith("cooperative_matrix_"))
        << desc.mnemonic.str();
  }
}

TEST(TraitsTest, EveryInstructionHasOneEmissionFamilyOrIsStructural) {
  // The SPIR-V emitter dispatches on these; every instruction must land in
  // exactly one, or be one of the structural/arithmetic ones handled by kind.
  const InstTrait families[] = {
      InstTrait::Blas,         InstTrait::ForeachLoop, InstTrait::CoopMatrix,
      InstTrait::MemoryAccess, InstTrait::Builtin,     InstTrait::SubgroupOp,
      InstTrait::Elementwise,  InstTrait::Comparison,  InstTrait::MathFunction};
  for (unsigned i = 0; i < kNumInstKinds; ++i) {
    auto kind = static_cast<InstKind>(i);
    unsigned count = 0;
    for (InstTrait trait : families)
      count += hasTrait(kind, trait);
    bool structural = llvm::is_contained(
        {InstKind::Parallel, InstKind::LifetimeStop, InstKind::For,
         InstKind::If, InstKind::Yield, InstKind::Cast, InstKind::Constant,
         // lower-coopmatrix's instructions on parts, emitted by kind.
         InstKind::Fma, InstKind::Select, InstKind::VectorSplat,
         InstKind::VectorExtract, InstKind::VectorInsert, InstKind::VectorLoad,
         InstKind::VectorStore},
        kind);
    EXPECT_EQ(count, structural ? 0u : 1u) << getMnemonic(kind).str();
  }
}

TEST(TraitsTest, MemoryEffectsFollowTheSpec) {
  const InstDescriptor &gemm = getDescriptor(InstKind::Gemm);
  // alpha, A, B, beta, C: A and B read, C read and written.
  ASSERT_EQ(gemm.operands.size(), 5u);
  EXPECT_EQ(gemm.operands[0].effect, MemoryEffect::None);
  EXPECT_EQ(gemm.operands[1].effect, MemoryEffect::Read);
  EXPECT_EQ(gemm.operands[2].effect, MemoryEffect::Read);
  EXPECT_EQ(gemm.operands[3].effect, MemoryEffect::None);
  EXPECT_EQ(gemm.operands[4].effect, MemoryEffect::ReadWrite);
  EXPECT_TRUE(reads(MemoryEffect::ReadWrite));
  EXPECT_TRUE(writes(MemoryEffect::ReadWrite));
  EXPECT_FALSE(writes(MemoryEffect::Read));

  const InstDescriptor &store = getDescriptor(InstKind::Store);
  EXPECT_EQ(store.operands[*store.findOperand("tensor")].effect,
            MemoryEffect::ReadWrite);
  EXPECT_EQ(store.operands[*store.findOperand("value")].effect,
            MemoryEffect::None);
  EXPECT_TRUE(store.hasMemoryEffects());

  const InstDescriptor &prefetch =
      getDescriptor(InstKind::CooperativeMatrixPrefetch);
  EXPECT_EQ(prefetch.operands[*prefetch.findOperand("operand")].effect,
            MemoryEffect::Read);
  EXPECT_FALSE(getDescriptor(InstKind::Add).hasMemoryEffects());
  EXPECT_FALSE(getDescriptor(InstKind::Subview).hasMemoryEffects());

  // Views and group loads name the operand their memref result refers to.
  for (InstKind kind :
       {InstKind::Subview, InstKind::Expand, InstKind::Fuse, InstKind::Load}) {
    const InstDescriptor &desc = getDescriptor(kind);
    unsigned sources = 0;
    for (const OperandDescriptor &operand : desc.operands)
      sources += operand.viewSource;
    EXPECT_EQ(sources, 1u) << desc.mnemonic.str();
    EXPECT_TRUE(desc.operands.front().viewSource) << desc.mnemonic.str();
  }
  EXPECT_FALSE(getDescriptor(InstKind::Store).operands[1].viewSource);
}

TEST(TraitsTest, CombineNamesTheBinaryInstruction) {
  EXPECT_EQ(getDescriptor(InstKind::SubgroupReduceMax).combine, InstKind::Max);
  EXPECT_EQ(getDescriptor(InstKind::SubgroupExclusiveScanAdd).combine,
            InstKind::Add);
  EXPECT_EQ(getDescriptor(InstKind::CooperativeMatrixReduceMin).combine,
            InstKind::Min);
  EXPECT_EQ(getDescriptor(InstKind::AtomicAdd).combine, InstKind::Add);
  EXPECT_EQ(getDescriptor(InstKind::CooperativeMatrixAtomicMax).combine,
            InstKind::Max);
  EXPECT_FALSE(getDescriptor(InstKind::AtomicStore).combine);
  EXPECT_FALSE(getDescriptor(InstKind::Add).combine);
  EXPECT_TRUE(
      hasTrait(InstKind::SubgroupExclusiveScanMin, InstTrait::ExclusiveScan));
  EXPECT_FALSE(hasTrait(InstKind::SubgroupReduceMin, InstTrait::ExclusiveScan));
  EXPECT_FALSE(hasTrait(InstKind::SubgroupReduceMin, InstTrait::InclusiveScan));
}

TEST(TraitsTest, FamilyViewsReadOperandsByName) {
  Context ctx;
  Function function(ctx, "f");
  Builder builder(ctx);
  builder.setInsertionPointToEnd(function.getBody());
  const Type *f32 = ScalarType::get(ctx, ScalarKind::F32);
  Value *a = builder.createConstant({}, 1.0, f32);
  Value *b = builder.createConstant({}, 2.0, f32);
  auto sub = builder.create<SubInst>(Location(), a, b);
  auto less = builder.create<LessThanInst>(Location(), a, b);

  auto binary = llvm::dyn_cast<ArithBinaryView>(sub.getInstruction());
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary.getA(), a);
  EXPECT_EQ(binary.getB(), b);
  EXPECT_EQ(binary.getResult(), sub.getResult());
  EXPECT_FALSE(llvm::isa<ArithBinaryView>(less.getInstruction()));
  auto comparison = llvm::dyn_cast<ComparisonView>(less.getInstruction());
  ASSERT_TRUE(comparison);
  EXPECT_EQ(comparison.getB(), b);
}

TEST(TraitsTest, IntegerFoldsWrapAndRefuseUndefinedResults) {
  EXPECT_EQ(foldIntegerBinary(InstKind::Add, 127, 1, 8), -128);
  EXPECT_EQ(foldIntegerBinary(InstKind::Mul, 1 << 20, 1 << 20, 32), 0);
  EXPECT_EQ(foldIntegerBinary(InstKind::Sub, 5, 7, 64), -2);
  EXPECT_EQ(foldIntegerBinary(InstKind::Div, -7, 2, 32), -3);
  EXPECT_EQ(foldIntegerBinary(InstKind::Rem, -7, 2, 32), -1);
  EXPECT_FALSE(foldIntegerBinary(InstKind::Div, 1, 0, 32));
  EXPECT_FALSE(foldIntegerBinary(InstKind::Div, -128, -1, 8));
  EXPECT_FALSE(foldIntegerBinary(InstKind::Rem,
                                 std::numeric_limits<int64_t>::min(), -1, 64));
  EXPECT_EQ(foldIntegerBinary(InstKind::Shl, 1, 7, 8), -128);
  EXPECT_FALSE(foldIntegerBinary(InstKind::Shl, 1, 8, 8));
  EXPECT_FALSE(foldIntegerBinary(InstKind::Shr, 1, -1, 32));
  EXPECT_EQ(foldIntegerBinary(InstKind::Shr, -8, 1, 32), -4);
  EXPECT_EQ(foldIntegerBinary(InstKind::Max, -3, 2, 32), 2);
  EXPECT_EQ(foldIntegerBinary(InstKind::Xor, 6, 3, 32), 5);
  EXPECT_FALSE(foldIntegerBinary(InstKind::Equal, 1, 1, 32));
  EXPECT_EQ(foldIntegerUnary(InstKind::Neg, -128, 8), -128);
  EXPECT_EQ(foldIntegerUnary(InstKind::Abs, -5, 16), 5);
  EXPECT_EQ(foldIntegerUnary(InstKind::Not, 0, 8), -1);
  EXPECT_FALSE(foldIntegerUnary(InstKind::Conj, 1, 32));
}

TEST(TraitsTest, RealBoolAndComparisonFolds) {
  EXPECT_EQ(foldRealBinary(InstKind::Div, 1.0, 4.0), 0.25);
  EXPECT_EQ(foldRealBinary(InstKind::Min, 1.0, NAN), 1.0);
  EXPECT_FALSE(foldRealBinary(InstKind::Rem, 1.0, 4.0));
  EXPECT_EQ(foldRealUnary(InstKind::Abs, -2.5), 2.5);
  EXPECT_FALSE(foldRealUnary(InstKind::Cos, 0.0));
  EXPECT_EQ(foldBoolBinary(InstKind::Xor, true, true), false);
  EXPECT_EQ(foldBoolBinary(InstKind::Or, false, true), true);
  EXPECT_EQ(foldBoolUnary(InstKind::Not, false), true);
  EXPECT_EQ(foldCompare(InstKind::GreaterThanEqual, 2, 2), true);
  EXPECT_EQ(foldCompare(InstKind::NotEqual, 1.5, 1.5), false);
  EXPECT_FALSE(foldCompare(InstKind::Add, 1, 2));
}

} // namespace
