//===- KnobTablesTest.cpp - The backend's and the lowering's knob tables --===//
#include "comprehend/api/Pipeline.h"
#include "comprehend/backend/Knobs.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/ADT/StringSet.h"

#include "gtest/gtest.h"

using namespace comprehend;

namespace {

backend::CoreInfo getCore(llvm::StringRef name) {
  std::optional<backend::CoreInfo> core = backend::CoreInfo::getPreset(name);
  EXPECT_TRUE(core) << name.str();
  return core ? *core : backend::CoreInfo();
}

TEST(KnobTablesTest, EveryKnobHasOneOwner) {
  llvm::StringSet<> names;
  for (const KnobSpec &knob : backend::getBackendKnobs())
    EXPECT_TRUE(names.insert(knob.name).second) << knob.name.str();
  for (const KnobSpec &knob : tc::getLoweringKnobs()) {
    EXPECT_TRUE(names.insert(knob.name).second) << knob.name.str();
    EXPECT_TRUE(knob.name.startswith("tc.")) << knob.name.str();
  }
  for (llvm::StringRef name :
       {"work_group_size.0", "work_group_size.1", "subgroup_size", "gemm.rows",
        "gemm.cols", "gemm.k_step", "gemm.k_block"})
    EXPECT_TRUE(lookupKnob(backend::getBackendKnobs(), name)) << name.str();
  for (llvm::StringRef name :
       {"tc.block_rows", "tc.block_cols", "tc.group_work",
        "tc.local_temporaries", "tc.fusion", "tc.inner_mapping", "tc.conv_gemm",
        "tc.tile0", "tc.tile1", "tc.tile2"})
    EXPECT_TRUE(lookupKnob(tc::getLoweringKnobs(), name)) << name.str();
  EXPECT_FALSE(lookupKnob(backend::getBackendKnobs(), "tc.schedule"));
  EXPECT_FALSE(lookupKnob(tc::getLoweringKnobs(), "gemm.rows"));
}

TEST(KnobTablesTest, RangesNameTheKnobAndTheValue) {
  const KnobSpec *launch =
      lookupKnob(backend::getBackendKnobs(), "work_group_size.0");
  EXPECT_EQ(checkKnobRange(*launch, 0),
            "'work_group_size.0' must be positive, not 0");
  EXPECT_FALSE(checkKnobRange(*launch, 1));
  const KnobSpec *rows = lookupKnob(backend::getBackendKnobs(), "gemm.rows");
  EXPECT_EQ(checkKnobRange(*rows, -1),
            "'gemm.rows' must not be negative, not -1");
  EXPECT_FALSE(checkKnobRange(*rows, 0));

  EXPECT_EQ(checkKnobRange(
                *lookupKnob(tc::getLoweringKnobs(), "tc.inner_mapping"), 2),
            "'tc.inner_mapping' must be 0 or 1, not 2");
  EXPECT_EQ(checkKnobRange(*lookupKnob(tc::getLoweringKnobs(), "tc.fusion"), 3),
            "'tc.fusion' must be 0 (max), 1 (outer) or 2 (none), not 3");
  EXPECT_FALSE(
      checkKnobRange(*lookupKnob(tc::getLoweringKnobs(), "tc.fusion"), 2));
  EXPECT_EQ(checkKnobRange(*lookupKnob(tc::getLoweringKnobs(), "tc.tile2"), -5),
            "'tc.tile2' must not be negative, not -5");
  EXPECT_EQ(
      checkKnobRange(
          *lookupKnob(tc::getLoweringKnobs(), "tc.gemm_transpose_copy"), 3),
      "'tc.gemm_transpose_copy' must be 0 (none), 1 (A) or 2 (A and B), not 3");
}

TEST(KnobTablesTest, BoundedRangesInWords) {
  // Without words of their own, a few values are listed and more named by
  // their ends: never "not negative" for a range with a maximum.
  KnobSpec three{"k3", 0, 2, "", ""}, many{"k9", 1, 9, "", ""};
  EXPECT_EQ(checkKnobRange(three, 3), "'k3' must be 0, 1 or 2, not 3");
  EXPECT_EQ(checkKnobRange(many, 10), "'k9' must be from 1 to 9, not 10");
  EXPECT_EQ(describeLegalValues(many), "from 1 to 9");
  EXPECT_FALSE(checkKnobRange(many, 9));
}

TEST(KnobTablesTest, GemmDomainsFollowTheCore) {
  backend::CoreInfo core = getCore("generic-sg16");
  auto domains = backend::getGemmKnobDomains(core);
  ASSERT_EQ(domains.size(), 4u);
  EXPECT_EQ(domains[0].name, "gemm.rows");
  for (int64_t rows : {0, 16, 32, 48, 64})
    EXPECT_TRUE(llvm::is_contained(domains[0].values, rows)) << rows;
  EXPECT_EQ(domains[3].values.back(), backend::GemmTiling::kMaxKBlock);
  for (const KnobDomain &domain : domains)
    EXPECT_EQ(domain.defaultValue, 0) << domain.name.str();

  // Rows not a multiple of the subgroup size are illegal on that core.
  std::optional<std::string> reason =
      backend::checkGemmKnobs({{"gemm.rows", 8}}, core);
  ASSERT_TRUE(reason);
  EXPECT_EQ(reason->rfind("invalid gemm tiling for subgroup size 16: ", 0), 0u)
      << *reason;
  EXPECT_FALSE(backend::checkGemmKnobs({{"gemm.rows", 32}}, core));

  backend::CompileOptions options;
  backend::applyGemmKnobs({{"gemm.rows", 32}, {"gemm.k_block", 64}}, options);
  EXPECT_EQ(options.gemmTiling, (backend::GemmTiling{32, 0, 0, 64}));
}

TEST(KnobTablesTest, LaunchDomainsStartAtTheCompilersChoice) {
  backend::CoreInfo core = getCore("generic-sg16");
  backend::KernelInfo defaults;
  defaults.workGroupSize = {32, 2};
  defaults.subgroupSize = 16;
  auto domains = backend::getLaunchKnobDomains(core, defaults);
  ASSERT_EQ(domains.size(), 3u);
  EXPECT_EQ(domains[0].name, "work_group_size.0");
  EXPECT_EQ(domains[0].defaultValue, 32);
  EXPECT_EQ(domains[1].defaultValue, 2);
  EXPECT_EQ(domains[2].name, "subgroup_size");
  EXPECT_EQ(domains[2].values.size(), core.subgroupSizes.size());
  EXPECT_EQ(domains[0].values.back(), int64_t(core.maxWorkGroupSize));
}

TEST(KnobTablesTest, LoweringDomainsHoldOnlyTheKnobsADefUses) {
  tc::LoweringKnobUse use;
  EXPECT_TRUE(tc::getLoweringKnobDomains(use, false).empty());
  use.convGemm = true;
  use.convGemmDefault = true;
  use.groupWork = true;
  auto domains = tc::getLoweringKnobDomains(use, false);
  ASSERT_EQ(domains.size(), 2u);
  EXPECT_EQ(domains[0].name, "tc.conv_gemm");
  EXPECT_EQ(domains[0].defaultValue, 1);
  EXPECT_EQ(domains[1].name, "tc.group_work");

  use = {};
  use.schedule = true;
  domains = tc::getLoweringKnobDomains(use, false);
  ASSERT_EQ(domains.size(), 4u);
  EXPECT_EQ(domains[0].name, "tc.fusion");
  EXPECT_EQ(domains[0].defaultValue, 0);
  EXPECT_EQ(domains[1].name, "tc.inner_mapping");
  EXPECT_EQ(domains[1].defaultValue, 1);
  EXPECT_EQ(domains[2].name, "tc.tile0");
  EXPECT_EQ(domains[3].name, "tc.tile1");
  EXPECT_EQ(lookupKnob(tc::getLoweringKnobs(), "tc.schedule"), nullptr);

  // Vector runs: the core's run length is the default and among the
  // values tried.
  use = {};
  use.vectorRun = true;
  use.vectorRunDefault = 32;
  domains = tc::getLoweringKnobDomains(use, false);
  ASSERT_EQ(domains.size(), 1u);
  EXPECT_EQ(domains[0].name, "tc.vector_run");
  EXPECT_EQ(domains[0].defaultValue, 32);
  EXPECT_TRUE(llvm::is_contained(domains[0].values, 0));
  EXPECT_TRUE(llvm::is_contained(domains[0].values, 32));
}

TEST(KnobTablesTest, LoweringKnobsSetTheOptions) {
  tc::LoweringOptions options;
  tc::applyLoweringKnobs({{"tc.block_rows", 64},
                          {"tc.fusion", 2},
                          {"tc.tile1", 16},
                          {"tc.local_temporaries", 1}},
                         /*dedicatedLocalMemory=*/false,
                         /*localMemoryBytes=*/4096, options);
  EXPECT_EQ(options.blockRows, 64);
  EXPECT_EQ(options.fusion, poly::FusionStrategy::None);
  ASSERT_EQ(options.tileSizes.size(), 2u);
  EXPECT_EQ(options.tileSizes[1], 16);
  EXPECT_EQ(options.localMemoryBytes, 4096);

  // Without the knob, temporaries follow the core.
  tc::LoweringOptions global;
  tc::applyLoweringKnobs({}, /*dedicatedLocalMemory=*/false, 65536, global);
  EXPECT_EQ(global.localMemoryBytes, 0);
}

TEST(KnobTablesTest, AConfigurationIsCheckedAgainstBothTables) {
  backend::CoreInfo core = getCore("pocl-cpu");
  api::CompilationOptions options;
  auto message = [&](const runtime::Configuration &config) -> std::string {
    auto configured = api::configureCompilation(core, config);
    if (!configured)
      return llvm::toString(configured.takeError());
    options = std::move(*configured);
    return "";
  };
  EXPECT_EQ(message({{"bogus", 1}}), "unknown tuning parameter 'bogus'");
  // The first offending name in name order is reported.
  EXPECT_EQ(message({{"tc.fusion", 3}, {"gemm.cols", -1}}),
            "'gemm.cols' must not be negative, not -1");
  EXPECT_EQ(message({{"subgroup_size", 0}}),
            "'subgroup_size' must be positive, not 0");
  EXPECT_EQ(message({{"gemm.rows", 16}, {"tc.block_cols", 32}}), "");
  EXPECT_EQ(options.compile.gemmTiling.rows, 16);
  EXPECT_EQ(options.lowering.blockCols, 32);
  // The core's rules for CPU work-items (16-float vectors here), and a knob
  // over them.
  EXPECT_EQ(options.lowering.vectorRows, 4);
  EXPECT_EQ(options.lowering.vectorRun, 64);
  EXPECT_EQ(message({{"tc.vector_run", 16}}), "");
  EXPECT_EQ(options.lowering.vectorRun, 16);
  EXPECT_EQ(message({{"tc.vector_run", -2}}),
            "'tc.vector_run' must not be negative, not -2");
  auto gpu = api::configureCompilation(getCore("generic-sg16"), {});
  ASSERT_TRUE(bool(gpu)) << llvm::toString(gpu.takeError());
  EXPECT_EQ(gpu->lowering.vectorRun, 0);
}

// The cost rules of a core, in the lowering: the same numbers whichever
// options they start from.
TEST(KnobTablesTest, LoweringOptionsForCoreFollowTheCore) {
  tc::CoreShape cpu;
  cpu.nativeVectorWidth = 8;
  cpu.maxWorkGroupSize = 4096;
  tc::LoweringOptions base;
  base.blockRows = 7;
  tc::LoweringOptions options = tc::LoweringOptions::forCore(cpu, base);
  EXPECT_EQ(options.vectorRows, 4);
  EXPECT_EQ(options.vectorRun, 32);
  EXPECT_EQ(options.maxSubgroups, 4096);
  EXPECT_EQ(options.blockRows, 7);
  tc::CoreShape gpu;
  gpu.defaultSubgroupSize = 32;
  gpu.nativeVectorWidth = 4;
  gpu.smallestSubgroupSize = 16;
  gpu.maxWorkGroupSize = 1024;
  options = tc::LoweringOptions::forCore(gpu);
  EXPECT_EQ(options.vectorRows, 0);
  EXPECT_EQ(options.vectorRun, 0);
  EXPECT_EQ(options.maxSubgroups, 64);
}

// NVIDIA cores: the launch space in warps, gemm rows in whole warps, the
// default rules and the group work (docs/nvidia.md, "Defaults and the
// tuning space"); pocl-cpu keeps its space.

backend::KernelInfo makeDefaults(unsigned x, unsigned y, unsigned subgroup) {
  backend::KernelInfo defaults;
  defaults.workGroupSize = {x, y};
  defaults.subgroupSize = subgroup;
  return defaults;
}

using Values = llvm::SmallVector<int64_t, 16>;

TEST(KnobTablesTest, LaunchModesAreWarpsOnNvidia) {
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

TEST(KnobTablesTest, LaunchModesOnPoclStayDoublings) {
  backend::CoreInfo core = getCore("pocl-cpu");
  auto domains = backend::getLaunchKnobDomains(core, makeDefaults(16, 1, 1));
  Values doublings;
  for (int64_t size = 1; size <= int64_t(core.maxWorkGroupSize); size *= 2)
    doublings.push_back(size);
  EXPECT_EQ(domains[0].values, doublings);
  EXPECT_EQ(domains[1].values, doublings);
  EXPECT_EQ(domains[0].defaultValue, 16);
}

TEST(KnobTablesTest, TheWarpSpaceHoldsOnlyLegalLaunches) {
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

TEST(KnobTablesTest, GemmRowsAreWholeWarpsOnNvidia) {
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

TEST(KnobTablesTest, EveryKnobSaysWhatItDecidesAndItsDefault) {
  // docs/knobs.md is written from these fields (tools/knob-docs).
  for (const KnobSpec &knob : backend::getBackendKnobs()) {
    EXPECT_FALSE(knob.decides.empty()) << knob.name.str();
    EXPECT_FALSE(knob.defaultRule.empty()) << knob.name.str();
    EXPECT_FALSE(describeLegalValues(knob).empty());
  }
  for (const KnobSpec &knob : tc::getLoweringKnobs()) {
    EXPECT_FALSE(knob.decides.empty()) << knob.name.str();
    EXPECT_FALSE(knob.defaultRule.empty()) << knob.name.str();
    EXPECT_FALSE(describeLegalValues(knob).empty());
  }
}

TEST(KnobTablesTest, GpuDefaultsFollowTheCore) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  EXPECT_TRUE(backend::hasGpuLaunchDefaults(core));
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core), 256u);
  // Loops: eight warps, fewer where fewer cover the points.
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 7), 32u);
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 100), 128u);
  EXPECT_EQ(backend::getGpuLoopWorkGroupSize(core, 1 << 20), 256u);
  // Rows: a work-item per 16 elements in whole warps, at least two warps,
  // no more than the row's elements, at most the maximum.
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 512), 64u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 2048), 128u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 8192), 512u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 3000), 192u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 1 << 20), 1024u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 33), 64u);
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(core, 5), 32u);
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
  EXPECT_EQ(backend::getGpuRowWorkGroupSize(small, 8192), 128u);
  EXPECT_EQ(backend::getGpuGemmWorkGroupSize(small, 64), 128u);

  backend::CoreInfo cpu = getCore("pocl-cpu");
  EXPECT_FALSE(backend::hasGpuLaunchDefaults(cpu));
  EXPECT_EQ(backend::getDefaultGroupWork(cpu), 0);
  EXPECT_FALSE(backend::hasGpuLaunchDefaults(getCore("generic-sg32")));
}

TEST(KnobTablesTest, CompileConfigurationSetsTheGroupWorkOnNvidia) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  auto configure = [&](const runtime::Configuration &config,
                       const api::CompilationOptions &base = {}) {
    auto configured = api::configureCompilation(core, config, base);
    EXPECT_TRUE(bool(configured));
    if (!configured) {
      llvm::consumeError(configured.takeError());
      return tc::LoweringOptions();
    }
    return configured->lowering;
  };
  tc::LoweringOptions lowering = configure({});
  EXPECT_EQ(lowering.groupWork, 256);
  EXPECT_EQ(lowering.maxSubgroups, 1024 / 32);
  EXPECT_EQ(lowering.vectorRows, 0);
  // Local memory: within the lowering's budget and the core's 48 KiB.
  EXPECT_GT(lowering.localMemoryBytes, 0);
  EXPECT_LE(lowering.localMemoryBytes, int64_t(core.localMemoryBytes));

  // The knob's default 0 is the core's rule (the untuned kernel); other
  // values replace it.
  EXPECT_EQ(configure({{"tc.group_work", 0}}).groupWork, 256);
  api::CompilationOptions tuned;
  tuned.lowering = configure({{"tc.group_work", 4096}});
  EXPECT_EQ(tuned.lowering.groupWork, 4096);
  // Options that the tuner configures again: 0 goes back to the core's rule.
  EXPECT_EQ(configure({{"tc.group_work", 0}}, tuned).groupWork, 256);

  // pocl-cpu keeps the lowering's own choice.
  auto cpu = api::configureCompilation(getCore("pocl-cpu"), {});
  ASSERT_TRUE(bool(cpu)) << llvm::toString(cpu.takeError());
  EXPECT_EQ(cpu->lowering.groupWork, 0);
}

TEST(KnobTablesTest, LocalTemporariesNeverExceedTheCoresMemory) {
  backend::CoreInfo core = getCore("nvidia-sm80");
  tc::LoweringOptions asked;
  asked.localMemoryBytes = 1 << 20;
  tc::applyLoweringKnobs({{"tc.local_temporaries", 1}},
                         core.dedicatedLocalMemory, core.localMemoryBytes,
                         asked);
  EXPECT_EQ(asked.localMemoryBytes, int64_t(core.localMemoryBytes));
}

} // namespace
