//===- GemmTilingTest.cpp - The gemm register tile and its domain ---------===//
#include "comprehend/backend/Compiler.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace comprehend;
using namespace comprehend::backend;

namespace {

CoreInfo getCore(llvm::StringRef preset) {
  std::optional<CoreInfo> core = CoreInfo::getPreset(preset);
  EXPECT_TRUE(core) << preset.str();
  return core.value_or(CoreInfo());
}

constexpr int64_t kNoBlocks = GemmTiling::kMaxKBlock;

TEST(GemmTilingTest, DefaultOnSubgroupsIsSixteenRowsByEightColumns) {
  EXPECT_EQ(getDefaultGemmTiling(getCore("generic-sg8")),
            (GemmTiling{16, 8, 8, kNoBlocks}));
  EXPECT_EQ(getDefaultGemmTiling(getCore("generic-sg16")),
            (GemmTiling{16, 8, 8, kNoBlocks}));
  // Rows are rounded up to one row per lane.
  EXPECT_EQ(getDefaultGemmTiling(getCore("generic-sg32")),
            (GemmTiling{32, 8, 8, kNoBlocks}));
  EXPECT_EQ(getDefaultGemmTiling(getCore("generic-sg16"), 32).rows, 32);
}

TEST(GemmTilingTest, DefaultOnNvidiaIsFourRowsPerLane) {
  // 128 x 8 in K steps of 16 (104 values of the 128-register budget);
  // a static K below 64 steps by 8; a core with too few registers per
  // block falls back to the subgroup default.
  CoreInfo sm80 = getCore("nvidia-sm80");
  EXPECT_EQ(getDefaultGemmTiling(sm80), (GemmTiling{128, 8, 16, kNoBlocks}));
  EXPECT_EQ(getDefaultGemmTiling(sm80, 0, 4, 4096),
            (GemmTiling{128, 8, 16, kNoBlocks}));
  EXPECT_EQ(getDefaultGemmTiling(sm80, 0, 4, 16),
            (GemmTiling{128, 8, 8, kNoBlocks}));
  EXPECT_EQ(checkGemmTiling(getDefaultGemmTiling(sm80), sm80), std::nullopt);
  CoreInfo few = makeNvidiaCoreInfo(75, 48 * 1024, 1024, 32 * 1024, 40);
  EXPECT_EQ(getDefaultGemmTiling(few), (GemmTiling{32, 8, 8, kNoBlocks}));
}

TEST(GemmTilingTest, DefaultOnACpuFollowsItsVectorsAndCache) {
  // AVX-512 (the pocl-cpu preset): 32 rows, 8 columns (16 of 32 vector
  // registers), K blocks of 32 KB / (32 * 4 B) = 256.
  CoreInfo avx512 = getCore("pocl-cpu");
  EXPECT_EQ(getDefaultGemmTiling(avx512), (GemmTiling{32, 8, 1, 256}));
  // Doubles: the same tile, half as long a block.
  EXPECT_EQ(getDefaultGemmTiling(avx512, 0, 8), (GemmTiling{32, 8, 1, 128}));
  // AVX2: 8 floats, 16 registers of them; a 48 KB cache.
  CoreInfo avx2 = avx512;
  avx2.nativeVectorWidth = 8;
  avx2.registerBudget = CoreInfo::getCpuRegisterBudget(8);
  avx2.dataCacheBytes = 48 * 1024;
  EXPECT_EQ(avx2.registerBudget, 128u);
  EXPECT_EQ(getDefaultGemmTiling(avx2), (GemmTiling{16, 4, 1, 768}));
  EXPECT_EQ(checkGemmTiling(getDefaultGemmTiling(avx2), avx2), std::nullopt);
  // An unknown cache: no blocks.
  avx2.dataCacheBytes = 0;
  EXPECT_EQ(getDefaultGemmTiling(avx2).kBlock, kNoBlocks);
}

TEST(GemmTilingTest, DefaultsAndEmptyOverridesAreLegalOnEveryPreset) {
  for (llvm::StringRef preset : CoreInfo::getPresetNames()) {
    SCOPED_TRACE(preset.str());
    CoreInfo core = getCore(preset);
    EXPECT_EQ(checkGemmTiling(getDefaultGemmTiling(core), core), std::nullopt);
    EXPECT_EQ(checkGemmTiling(GemmTiling(), core), std::nullopt);
  }
}

TEST(GemmTilingTest, LegalOverrides) {
  CoreInfo pocl = getCore("pocl-cpu");
  // 32x8 accumulator + 32x4 A + 4x8 B = 416 values <= 512.
  EXPECT_EQ(checkGemmTiling({32, 8, 4}, pocl), std::nullopt);
  EXPECT_EQ(checkGemmTiling({9, 8, 9}, pocl), std::nullopt);
  EXPECT_EQ(checkGemmTiling({1, 1, 1}, pocl), std::nullopt);
  CoreInfo sg16 = getCore("generic-sg16");
  // Two rows per lane: 2*8 + 2*8 + 1*8 = 40 values.
  EXPECT_EQ(checkGemmTiling({32, 0, 0}, sg16), std::nullopt);
}

TEST(GemmTilingTest, RowsMustBeAMultipleOfTheSubgroupSize) {
  CoreInfo sg16 = getCore("generic-sg16");
  EXPECT_EQ(
      checkGemmTiling({24, 8, 8}, sg16),
      "'gemm.rows' must be a multiple of the subgroup size 16, but is 24");
  // The subgroup size the function uses counts, not the core's default.
  EXPECT_EQ(
      checkGemmTiling({16, 8, 8}, sg16, 32),
      "'gemm.rows' must be a multiple of the subgroup size 32, but is 16");
}

TEST(GemmTilingTest, SizesOutsideTheirRangeAreIllegal) {
  CoreInfo pocl = getCore("pocl-cpu");
  EXPECT_EQ(checkGemmTiling({-16, 8, 8}, pocl),
            "'gemm.rows' must be between 1 and 128, but is -16");
  EXPECT_EQ(checkGemmTiling({256, 1, 1}, pocl),
            "'gemm.rows' must be between 1 and 128, but is 256");
  EXPECT_EQ(checkGemmTiling({16, 33, 1}, pocl),
            "'gemm.cols' must be between 1 and 32, but is 33");
  EXPECT_EQ(checkGemmTiling({16, 8, -1}, pocl),
            "'gemm.k_step' must be between 1 and 32, but is -1");
  EXPECT_EQ(checkGemmTiling({16, 8, 8, kNoBlocks + 1}, pocl),
            "'gemm.k_block' must be between 1 and 1048576, but is 1048577");
}

TEST(GemmTilingTest, RegisterBudgetBoundsTheTile) {
  CoreInfo pocl = getCore("pocl-cpu");
  // 64*16 + 64*16 + 16*16 = 2304 values.
  EXPECT_EQ(checkGemmTiling({64, 16, 16}, pocl),
            "tile 64x16 with k step 16 needs 2304 values per work-item, more "
            "than the register budget 512 of 'pocl-cpu'");
  // Exactly at the budget: 16*16 + 16*8 + 8*16 = 512.
  EXPECT_EQ(checkGemmTiling({16, 16, 8}, pocl), std::nullopt);
  EXPECT_NE(checkGemmTiling({16, 16, 9}, pocl), std::nullopt);
  // Lanes share the rows: 128 rows on 16 lanes is 8 per work-item,
  // 8*16 + 8*8 + 1*16 = 208 > 128.
  EXPECT_NE(checkGemmTiling({128, 16, 8}, getCore("generic-sg16")),
            std::nullopt);
}

const char *kGemm = R"(
func @gemm(%A: memref<f32x64x48>, %B: memref<f32x48x40>, %C: memref<f32x64x40>) {
  %alpha = constant 1.0 : f32
  %beta = constant 0.0 : f32
  gemm %alpha, %A, %B, %beta, %C
}
)";

std::string lowerGemm(llvm::StringRef preset, GemmTiling tiling);

/// Lowers kGemm with \p tiling; returns the lowered IR, or the diagnostics
/// prefixed by "error: " when lowering fails.
std::string lowerGemm(const CoreInfo &core, GemmTiling tiling) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  std::string messages;
  diags.setHandler(
      [&](const Diagnostic &diag) { messages += diag.message + "\n"; });
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, kGemm, "gemm.ir");
  if (!program || failed(ir::verify(*program, diags)))
    return "error: " + messages;
  CompileOptions options;
  options.gemmTiling = tiling;
  options.verifyEachPass = true;
  if (!compileProgram(*program, core, options, diags))
    return "error: " + messages;
  // The tiles show as coopmatrix types until lower-coopmatrix splits them
  // into parts: print the program after lower-collective.
  std::unique_ptr<ir::Program> tiled =
      ir::parseSource(ctx, diags, kGemm, "gemm.ir");
  options.passes = {"work-group-size", "lower-collective"};
  if (!tiled || failed(lowerProgram(*tiled, core, options, diags)))
    return "error: " + messages;
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(*tiled, os);
  return text;
}

std::string lowerGemm(llvm::StringRef preset, GemmTiling tiling) {
  return lowerGemm(getCore(preset), tiling);
}

TEST(GemmTilingTest, TheLoweringUsesTheOverride) {
  std::string lowered = lowerGemm("pocl-cpu", {32, 4, 4});
  EXPECT_NE(lowered.find("coopmatrix<f32x32x4,matrix_acc>"), std::string::npos)
      << lowered;
  EXPECT_NE(lowered.find("coopmatrix<f32x32x4,matrix_a>"), std::string::npos);
  EXPECT_NE(lowered.find("coopmatrix<f32x4x4,matrix_b>"), std::string::npos);
  EXPECT_EQ(lowered.find("x8,matrix"), std::string::npos);
  // 64 / 32 and 40 / 4 divide: no remainder tiles.
  EXPECT_EQ(lowered.find("checked"), std::string::npos);
}

TEST(GemmTilingTest, PartialOverridesKeepTheOtherDefaults) {
  std::string lowered = lowerGemm("pocl-cpu", {0, 5, 0});
  EXPECT_NE(lowered.find("coopmatrix<f32x32x5,matrix_acc>"), std::string::npos)
      << lowered;
  EXPECT_NE(lowered.find("coopmatrix<f32x1x5,matrix_b>"), std::string::npos);
  // 40 / 5 divides, 64 / 32 too: still no remainder tiles.
  EXPECT_EQ(lowered.find("checked"), std::string::npos);
}

TEST(GemmTilingTest, TilesAreClippedToTheProblem) {
  // 128 rows on a 64-row C becomes 64; the budget is checked before
  // clipping (128*1 + 128*2 + 2*1 = 386 <= 512).
  std::string lowered = lowerGemm("pocl-cpu", {128, 1, 2});
  EXPECT_NE(lowered.find("coopmatrix<f32x64x1,matrix_acc>"), std::string::npos)
      << lowered;
}

TEST(GemmTilingTest, IllegalOverridesAreDiagnosedAtTheGemm) {
  EXPECT_EQ(lowerGemm("generic-sg16", {24, 8, 8}),
            "error: invalid gemm tiling for subgroup size 16: 'gemm.rows' "
            "must be a multiple of the subgroup size 16, but is 24\n");
  std::string budget = lowerGemm("pocl-cpu", {64, 16, 16});
  EXPECT_EQ(budget.rfind("error: invalid gemm tiling for subgroup size 1: "
                         "tile 64x16 with k step 16 needs 2304 values",
                         0),
            0u)
      << budget;
}

TEST(GemmTilingTest, OnlyOverridesAreCheckedAgainstTheBudget) {
  // A core with a tiny budget still compiles with the default tile; an
  // explicit request for the same tile is checked and refused.
  CoreInfo tiny = getCore("pocl-cpu");
  tiny.registerBudget = 16;
  std::string lowered = lowerGemm(tiny, GemmTiling());
  EXPECT_NE(lowered.find("coopmatrix<f32x32x2,matrix_acc>"), std::string::npos)
      << lowered;
  EXPECT_NE(
      lowerGemm(tiny, {32, 2, 1}).find("more than the register budget 16"),
      std::string::npos);
}

/// Compiles \p source for \p preset with the default tiling (which must
/// succeed), then returns it as lower-collective makes it: the tiles and
/// checks before lower-coopmatrix splits them into parts. Empty on failure.
std::string lowerWithDefaults(const char *source, llvm::StringRef preset) {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, source, "gemm.ir");
  if (!program || failed(ir::verify(*program, diags)) ||
      !compileProgram(*program, getCore(preset), {}, diags))
    return "";
  program = ir::parseSource(ctx, diags, source, "gemm.ir");
  CompileOptions options;
  options.passes = {"work-group-size", "lower-collective"};
  if (failed(lowerProgram(*program, getCore(preset), options, diags)))
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(*program, os);
  return text;
}

TEST(GemmTilingTest, ShortKIsTakenInOneStep) {
  // K = 12 is not a multiple of the default step 8 on subgroups and at most
  // 16: one step of 12, so neither A nor B loads need checks.
  std::string text = lowerWithDefaults(R"(
func @gemm(%A: memref<f32x32x12>, %B: memref<f32x12x16>, %C: memref<f32x32x16>) {
  %alpha = constant 1.0 : f32
  %beta = constant 0.0 : f32
  gemm %alpha, %A, %B, %beta, %C
}
)",
                                       "generic-sg16");
  EXPECT_NE(text.find("coopmatrix<f32x16x12,matrix_a>"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("checked"), std::string::npos);
}

TEST(GemmTilingTest, NarrowMatricesTakeADividingColumnCount) {
  // N = 40 is more than four default tiles (8) wide and 8 divides it; with
  // N = 12 the default 8 would leave a remainder tile, 6 divides it.
  std::string text = lowerWithDefaults(R"(
func @gemm(%A: memref<f32x64x48>, %B: memref<f32x48x12>, %C: memref<f32x64x12>) {
  %alpha = constant 1.0 : f32
  %beta = constant 0.0 : f32
  gemm %alpha, %A, %B, %beta, %C
}
)",
                                       "pocl-cpu");
  EXPECT_NE(text.find("coopmatrix<f32x32x6,matrix_acc>"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("checked"), std::string::npos);
  EXPECT_NE(lowerGemm("pocl-cpu", {}).find("coopmatrix<f32x32x8,matrix_acc>"),
            std::string::npos);
}

} // namespace
