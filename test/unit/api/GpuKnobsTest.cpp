//===- GpuKnobsTest.cpp - The tuning space and defaults of an NVIDIA core -===//
//
// On nvidia-sm80 the launch space is in warps, gemm rows are whole warps,
// loop statements get a point per work-item of the default work-group and
// local memory stays within the core's; on pocl-cpu nothing of it applies.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcTuning.h"
#include "comprehend/backend/Knobs.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/tc/Lowering.h"

#include "gtest/gtest.h"

using namespace comprehend;

namespace {

backend::CoreInfo getCore(llvm::StringRef name) {
  std::optional<backend::CoreInfo> core = backend::CoreInfo::getPreset(name);
  EXPECT_TRUE(core) << name.str();
  return core ? *core : backend::CoreInfo();
}

backend::KernelInfo makeDefaults(unsigned x, unsigned y, unsigned subgroup) {
  backend::KernelInfo defaults;
  defaults.workGroupSize = {x, y};
  defaults.subgroupSize = subgroup;
  return defaults;
}

using Values = llvm::SmallVector<int64_t, 16>;

TEST(GpuKnobsTest, LaunchModesAreWarpsOnNvidia) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  auto domains = backend::getLaunchKnobDomains(core, makeDefaults(256, 1, 32));
  ASSERT_EQ(domains.size(), 3u);
  EXPECT_EQ(domains[0].values, (Values{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(domains[0].defaultValue, 256);
  // x is at least a warp, so y is at most 1024 / 32.
  EXPECT_EQ(domains[1].values, (Values{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(domains[1].defaultValue, 1);
  EXPECT_EQ(domains[2].values, (Values{32}));

  // A whole row of 768 is a default outside the doublings: it is tried too.
  domains = backend::getLaunchKnobDomains(core, makeDefaults(768, 1, 32));
  EXPECT_EQ(domains[0].values, (Values{32, 64, 128, 256, 512, 768, 1024}));
  EXPECT_EQ(domains[0].defaultValue, 768);
}

TEST(GpuKnobsTest, LaunchModesOnPoclAreUnchanged) {
  backend::CoreInfo core = getCore("pocl-cpu");
  auto domains = backend::getLaunchKnobDomains(core, makeDefaults(16, 1, 1));
  Values doublings;
  for (int64_t size = 1; size <= int64_t(core.maxWorkGroupSize); size *= 2)
    doublings.push_back(size);
  EXPECT_EQ(domains[0].values, doublings);
  EXPECT_EQ(domains[1].values, doublings);
  EXPECT_EQ(domains[0].defaultValue, 16);
}

TEST(GpuKnobsTest, TheWarpSpaceHoldsOnlyLegalLaunches) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  auto space = runtime::makeWorkGroupSpace(core, makeDefaults(256, 1, 32));
  ASSERT_TRUE(bool(space)) << llvm::toString(space.takeError());
  EXPECT_FALSE(space->checkLegal(space->getDefault()));
  auto legal = space->enumerateLegal();
  ASSERT_TRUE(legal.has_value());
  // x in {32 .. 1024}, y in {1 .. 32}, x * y <= 1024: 6 + 5 + 4 + 3 + 2 + 1.
  EXPECT_EQ(legal->size(), 21u);
  for (const runtime::Configuration &config : *legal) {
    int64_t x = config.at("work_group_size.0");
    int64_t y = config.at("work_group_size.1");
    EXPECT_EQ(x % 32, 0) << x;
    EXPECT_LE(x * y, 1024) << x << "x" << y;
  }
}

TEST(GpuKnobsTest, GemmRowsAreWholeWarpsOnNvidia) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  auto domains = backend::getGemmKnobDomains(core);
  ASSERT_EQ(domains.size(), 4u);
  EXPECT_EQ(domains[0].values, (Values{0, 32, 64, 96, 128}));
  // Every row count tried is legal with the default columns and K step.
  for (int64_t rows : domains[0].values)
    EXPECT_FALSE(backend::checkGemmKnobs({{"gemm.rows", rows}}, core)) << rows;
  // Four rows per lane with 16 columns and a K step of 16 exceed the
  // register budget of 128: the space's constraint drops it.
  EXPECT_TRUE(backend::checkGemmKnobs(
      {{"gemm.rows", 128}, {"gemm.cols", 16}, {"gemm.k_step", 16}}, core));

  // pocl-cpu keeps its rows: vectors of 16 floats and the fixed list.
  auto cpu = backend::getGemmKnobDomains(getCore("pocl-cpu"));
  EXPECT_EQ(cpu[0].values, (Values{0, 1, 2, 3, 4, 8, 16, 32, 48, 64}));
}

TEST(GpuKnobsTest, GpuDefaultsFollowTheCore) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  EXPECT_TRUE(backend::hasGpuLaunchDefaults(core));
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core), 256u);
  // Loops: eight warps, fewer where fewer cover the points.
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 7), 32u);
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 100), 128u);
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 1 << 20), 256u);
  // Rows: whole warps, from one warp to the maximum.
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 1024), 1024u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 768), 768u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 33), 64u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 5), 32u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 8192), 1024u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 0), 256u);
  // Gemms: a warp per tile, at most eight.
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(core, 1), 32u);
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(core, 3), 96u);
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(core, 256), 256u);
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(core, 0), 256u);
  EXPECT_EQ(backend::getDefaultGroupWork(core), 256);

  // A device whose blocks hold 128 threads clamps every rule to it.
  backend::CoreInfo small =
      backend::makeNvidiaCoreInfo(75, 48 * 1024, 128, 65536, 40);
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(small), 128u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(small, 1024), 128u);
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(small, 64), 128u);

  backend::CoreInfo cpu = getCore("pocl-cpu");
  EXPECT_FALSE(backend::hasGpuLaunchDefaults(cpu));
  EXPECT_EQ(backend::getDefaultGroupWork(cpu), 0);
  EXPECT_FALSE(backend::hasGpuLaunchDefaults(getCore("generic-sg32")));
}

TEST(GpuKnobsTest, CompileConfigurationSetsTheGroupWorkOnNvidia) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  backend::CompileOptions compile;
  tc::LoweringOptions lowering;
  ASSERT_FALSE(api::applyCompileConfiguration({}, core, lowering, compile));
  EXPECT_EQ(lowering.groupWork, 256);
  EXPECT_EQ(lowering.maxSubgroups, 1024 / 32);
  EXPECT_EQ(lowering.vectorRows, 0);
  // Local memory: within the lowering's budget and the core's 48 KiB.
  EXPECT_GT(lowering.localMemoryBytes, 0);
  EXPECT_LE(lowering.localMemoryBytes, int64_t(core.localMemoryBytes));

  // The knob's default 0 is the core's rule (the untuned kernel); other
  // values replace it.
  tc::LoweringOptions zero;
  ASSERT_FALSE(api::applyCompileConfiguration({{"tc.group_work", 0}}, core,
                                              zero, compile));
  EXPECT_EQ(zero.groupWork, 256);
  tc::LoweringOptions tuned;
  ASSERT_FALSE(api::applyCompileConfiguration({{"tc.group_work", 4096}}, core,
                                              tuned, compile));
  EXPECT_EQ(tuned.groupWork, 4096);
  // Options that the tuner configures again: 0 goes back to the core's rule.
  ASSERT_FALSE(api::applyCompileConfiguration({{"tc.group_work", 0}}, core,
                                              tuned, compile));
  EXPECT_EQ(tuned.groupWork, 256);

  // pocl-cpu keeps the lowering's own choice.
  tc::LoweringOptions cpu;
  ASSERT_FALSE(
      api::applyCompileConfiguration({}, getCore("pocl-cpu"), cpu, compile));
  EXPECT_EQ(cpu.groupWork, 0);
}

TEST(GpuKnobsTest, LocalTemporariesNeverExceedTheCoresMemory) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  tc::LoweringOptions asked;
  asked.localMemoryBytes = 1 << 20;
  tc::applyLoweringKnobs({{"tc.local_temporaries", 1}},
                         core.dedicatedLocalMemory, core.localMemoryBytes,
                         asked);
  EXPECT_EQ(asked.localMemoryBytes, int64_t(core.localMemoryBytes));
}

} // namespace
