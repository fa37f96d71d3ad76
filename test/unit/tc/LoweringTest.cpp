//===- LoweringTest.cpp - The C++ API of the TC lowering ------------------===//
//
// What lit cannot see: the parameter table and launch grid of LoweredDef,
// that every example lowers to verified IR on both the BLAS and the loop
// path, and the errors reported through the DiagnosticEngine.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

std::string readExample(llvm::StringRef name) {
  std::string path = std::string(COMPREHEND_EXAMPLES_DIR) + "/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

/// One TC source lowered into its own IR program.
struct Lowered {
  explicit Lowered(llvm::StringRef text) : source(text), program(ctx) {}

  std::optional<LoweredDef> lower(llvm::StringRef entry,
                                  const llvm::StringMap<int64_t> &sizes,
                                  LoweringOptions options = {}) {
    Program *tc = source.load();
    if (!tc)
      return std::nullopt;
    const Def *def = findEntry(*tc, entry);
    if (!def)
      return std::nullopt;
    return lowerDef(*tc, *def, sizes, program, source.diags, options);
  }

  TcSource source;
  ir::Context ctx;
  ir::Program program;
};

/// Counts the instructions of kind \p kind in \p region, at any depth.
unsigned countKind(const ir::Region &region, ir::InstKind kind) {
  unsigned count = 0;
  for (const ir::Instruction &inst : region) {
    count += inst.getKind() == kind;
    for (ir::Region *nested : inst.getRegions())
      count += countKind(*nested, kind);
  }
  return count;
}

TEST(LoweringTest, MatmulParametersAreReversedMemrefs) {
  Lowered lowered(readExample("matmul.tc"));
  auto result = lowered.lower("matmul", {{"M", 3}, {"K", 4}, {"N", 5}});
  ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
  ASSERT_EQ(result->tensors.size(), 3u);
  EXPECT_EQ(result->tensors[0].name, "A");
  EXPECT_EQ(result->tensors[0].role, TensorInfo::Role::Input);
  EXPECT_EQ(result->tensors[0].shape, (llvm::SmallVector<int64_t, 4>{3, 4}));
  EXPECT_EQ(result->tensors[2].name, "C");
  EXPECT_EQ(result->tensors[2].role, TensorInfo::Role::Output);
  EXPECT_EQ(result->tensors[2].shape, (llvm::SmallVector<int64_t, 4>{3, 5}));
  EXPECT_EQ(result->grid, (std::array<int64_t, 3>{1, 1, 1}));

  ir::Function &func = *result->function;
  EXPECT_EQ(func.getName(), "matmul");
  const auto *c = llvm::cast<ir::MemRefType>(func.getParameter(2)->getType());
  EXPECT_EQ(c->getShape(), (llvm::ArrayRef<int64_t>{5, 3}));
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));

  // C' = B' * A': gemm's first operand is B.
  ASSERT_EQ(countKind(func.getBody(), ir::InstKind::Gemm), 1u);
  for (ir::Instruction &inst : func.getBody())
    if (auto gemm = llvm::dyn_cast<ir::GemmInst>(&inst)) {
      EXPECT_EQ(gemm.getA(), func.getParameter(1));
      EXPECT_EQ(gemm.getB(), func.getParameter(0));
      EXPECT_EQ(gemm.getC(), func.getParameter(2));
    }
}

TEST(LoweringTest, LoopPathHasNoBlas) {
  Lowered lowered(readExample("matmul.tc"));
  auto result = lowered.lower("matmul", {{"M", 3}, {"K", 4}, {"N", 5}},
                              {/*matchBlas=*/false});
  ASSERT_TRUE(result);
  EXPECT_EQ(countKind(result->function->getBody(), ir::InstKind::Gemm), 0u);
  EXPECT_EQ(countKind(result->function->getBody(), ir::InstKind::Foreach), 1u);
  EXPECT_EQ(countKind(result->function->getBody(), ir::InstKind::For), 1u);
  EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)));
}

TEST(LoweringTest, BatchesSetTheGrid) {
  Lowered batch(readExample("batch_matmul.tc"));
  auto result =
      batch.lower("batch_matmul", {{"B", 6}, {"N", 3}, {"M", 4}, {"K", 5}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->grid, (std::array<int64_t, 3>{6, 1, 1}));

  Lowered pool(readExample("max_pool.tc"));
  result = pool.lower("max_pool", {{"N", 2}, {"C", 3}, {"H", 4}, {"W", 6}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->grid, (std::array<int64_t, 3>{2, 3, 1}));
  EXPECT_EQ(result->tensors[1].shape,
            (llvm::SmallVector<int64_t, 4>{2, 3, 2, 3}));
}

TEST(LoweringTest, TemporariesFollowOutputs) {
  Lowered lowered(readExample("softmax.tc"));
  auto result = lowered.lower("softmax", {{"N", 3}, {"D", 4}});
  ASSERT_TRUE(result);
  llvm::SmallVector<std::string, 5> names;
  for (const LoweredTensor &tensor : result->tensors)
    names.push_back(tensor.name);
  EXPECT_EQ(names,
            (llvm::SmallVector<std::string, 5>{"X", "Y", "mx", "e", "s"}));
  EXPECT_EQ(result->tensors[2].role, TensorInfo::Role::Temporary);
  // Several statements share one work-group; three barriers order them.
  EXPECT_EQ(result->grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(countKind(result->function->getBody(), ir::InstKind::Barrier), 3u);
}

TEST(LoweringTest, ShiftedOutputRecordsItsLowerBound) {
  Lowered lowered(R"TC(
def shifted(float(N) A) -> (O) {
  O(i) = A(i - 2) where i in 2:N
}
)TC");
  auto result = lowered.lower("shifted", {{"N", 9}});
  ASSERT_TRUE(result);
  EXPECT_EQ(result->tensors[1].shape, (llvm::SmallVector<int64_t, 4>{7}));
  EXPECT_EQ(result->tensors[1].lowerBounds, (llvm::SmallVector<int64_t, 4>{2}));
}

TEST(LoweringTest, EveryExampleLowersToVerifiedIr) {
  struct Case {
    const char *file, *entry;
    llvm::StringMap<int64_t> sizes;
  };
  Case cases[] = {
      {"batch_matmul.tc",
       "batch_matmul",
       {{"B", 2}, {"N", 3}, {"M", 4}, {"K", 5}}},
      {"conv1d.tc", "conv1d", {{"N", 9}, {"K", 3}}},
      {"conv2d.tc",
       "conv2d",
       {{"N", 1},
        {"C", 2},
        {"H", 5},
        {"W", 6},
        {"M", 3},
        {"KH", 3},
        {"KW", 2}}},
      {"gather.tc", "gather", {{"N", 4}, {"D", 3}, {"L", 5}}},
      {"grouped_conv.tc",
       "grouped_conv",
       {{"N", 1},
        {"G", 2},
        {"C", 2},
        {"F", 2},
        {"H", 4},
        {"W", 4},
        {"KH", 2},
        {"KW", 2}}},
      {"kronecker.tc", "kronecker", {{"M", 2}, {"N", 3}, {"P", 4}, {"Q", 5}}},
      {"layer_norm.tc", "layer_norm", {{"N", 3}, {"D", 4}}},
      {"matmul.tc", "matmul", {{"M", 3}, {"K", 4}, {"N", 5}}},
      {"max_pool.tc", "max_pool", {{"N", 1}, {"C", 2}, {"H", 4}, {"W", 4}}},
      {"moments.tc", "moments", {{"N", 3}, {"K", 4}}},
      {"softmax.tc", "softmax", {{"N", 3}, {"D", 4}}},
      {"strided_conv.tc",
       "strided_conv",
       {{"N", 1},
        {"C", 2},
        {"H", 7},
        {"W", 7},
        {"M", 3},
        {"KH", 3},
        {"KW", 3}}},
      {"transpose.tc", "transpose", {{"M", 3}, {"N", 4}}},
  };
  for (const Case &c : cases)
    for (bool matchBlas : {true, false}) {
      SCOPED_TRACE(std::string(c.file) + (matchBlas ? "" : " (loops)"));
      Lowered lowered(readExample(c.file));
      auto result = lowered.lower(c.entry, c.sizes, {matchBlas});
      ASSERT_TRUE(result) << testing::PrintToString(lowered.source.messages);
      EXPECT_TRUE(succeeded(ir::verify(lowered.program, lowered.source.diags)))
          << testing::PrintToString(lowered.source.messages);
    }
}

TEST(LoweringTest, MissingSizesAreReported) {
  Lowered lowered(readExample("matmul.tc"));
  EXPECT_FALSE(lowered.lower("matmul", {{"M", 3}}));
  EXPECT_EQ(lowered.source.messages,
            (std::vector<std::string>{
                "2:5: size variable 'K' of 'matmul' needs a value to lower "
                "the def; pass --sizes K=...",
                "2:5: size variable 'N' of 'matmul' needs a value to lower "
                "the def; pass --sizes N=..."}));
  EXPECT_TRUE(lowered.program.empty());
}

TEST(LoweringTest, CallsAreReported) {
  Lowered lowered(readExample("mlp.tc"));
  EXPECT_FALSE(lowered.lower("mlp", {{"B", 2}, {"M", 3}, {"N", 4}, {"P", 5}}));
  ASSERT_EQ(lowered.source.messages.size(), 1u);
  EXPECT_EQ(lowered.source.messages[0],
            "10:3: call of 'fcrelu' cannot be lowered yet; inline the callee "
            "by hand");
}

} // namespace
