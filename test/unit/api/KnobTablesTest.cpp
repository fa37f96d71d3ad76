//===- KnobTablesTest.cpp - The backend's and the lowering's knob tables --===//
#include "comprehend/api/TcTuning.h"
#include "comprehend/backend/Knobs.h"
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
  for (const backend::BackendKnob &knob : backend::getBackendKnobs())
    EXPECT_TRUE(names.insert(knob.name).second) << knob.name.str();
  for (const tc::LoweringKnob &knob : tc::getLoweringKnobs()) {
    EXPECT_TRUE(names.insert(knob.name).second) << knob.name.str();
    EXPECT_TRUE(knob.name.startswith("tc.")) << knob.name.str();
  }
  for (llvm::StringRef name :
       {"work_group_size.0", "work_group_size.1", "subgroup_size", "gemm.rows",
        "gemm.cols", "gemm.k_step", "gemm.k_block"})
    EXPECT_TRUE(backend::lookupBackendKnob(name)) << name.str();
  for (llvm::StringRef name :
       {"tc.block_rows", "tc.block_cols", "tc.group_work",
        "tc.local_temporaries", "tc.fusion", "tc.inner_mapping", "tc.conv_gemm",
        "tc.tile0", "tc.tile1", "tc.tile2"})
    EXPECT_TRUE(tc::lookupLoweringKnob(name)) << name.str();
  EXPECT_FALSE(backend::lookupBackendKnob("tc.schedule"));
  EXPECT_FALSE(tc::lookupLoweringKnob("gemm.rows"));
}

TEST(KnobTablesTest, RangesNameTheKnobAndTheValue) {
  const backend::BackendKnob *launch =
      backend::lookupBackendKnob("work_group_size.0");
  EXPECT_EQ(backend::checkKnobRange(*launch, 0),
            "'work_group_size.0' must be positive, not 0");
  EXPECT_FALSE(backend::checkKnobRange(*launch, 1));
  const backend::BackendKnob *rows = backend::lookupBackendKnob("gemm.rows");
  EXPECT_EQ(rows->kind, backend::BackendKnob::Kind::Gemm);
  EXPECT_EQ(backend::checkKnobRange(*rows, -1),
            "'gemm.rows' must not be negative, not -1");
  EXPECT_FALSE(backend::checkKnobRange(*rows, 0));

  EXPECT_EQ(tc::checkKnobRange(*tc::lookupLoweringKnob("tc.inner_mapping"), 2),
            "'tc.inner_mapping' must be 0 or 1, not 2");
  EXPECT_EQ(tc::checkKnobRange(*tc::lookupLoweringKnob("tc.fusion"), 3),
            "'tc.fusion' must be 0 (max), 1 (outer) or 2 (none), not 3");
  EXPECT_FALSE(tc::checkKnobRange(*tc::lookupLoweringKnob("tc.fusion"), 2));
  EXPECT_EQ(tc::checkKnobRange(*tc::lookupLoweringKnob("tc.tile2"), -5),
            "'tc.tile2' must not be negative, not -5");
}

TEST(KnobTablesTest, GemmDomainsFollowTheCore) {
  backend::CoreInfo core = getCore("generic-sg16");
  auto domains = backend::getGemmKnobDomains(core);
  ASSERT_EQ(domains.size(), 4u);
  EXPECT_EQ(domains[0].name, "gemm.rows");
  for (int64_t rows : {0, 16, 32, 48, 64})
    EXPECT_TRUE(llvm::is_contained(domains[0].values, rows)) << rows;
  EXPECT_EQ(domains[3].values.back(), backend::GemmTiling::kMaxKBlock);
  for (const backend::KnobDomain &domain : domains)
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
  EXPECT_EQ(tc::lookupLoweringKnob("tc.schedule"), nullptr);

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
  tc::LoweringOptions lowering;
  backend::CompileOptions compile;
  auto message = [&](const runtime::Configuration &config) {
    return llvm::toString(
        api::applyCompileConfiguration(config, core, lowering, compile));
  };
  EXPECT_EQ(message({{"bogus", 1}}), "unknown tuning parameter 'bogus'");
  // The first offending name in name order is reported.
  EXPECT_EQ(message({{"tc.fusion", 3}, {"gemm.cols", -1}}),
            "'gemm.cols' must not be negative, not -1");
  EXPECT_EQ(message({{"subgroup_size", 0}}),
            "'subgroup_size' must be positive, not 0");
  EXPECT_EQ(message({{"gemm.rows", 16}, {"tc.block_cols", 32}}), "");
  EXPECT_EQ(compile.gemmTiling.rows, 16);
  EXPECT_EQ(lowering.blockCols, 32);
  // The core's rules for CPU work-items (16-float vectors here), and a knob
  // over them.
  EXPECT_EQ(lowering.vectorRows, 4);
  EXPECT_EQ(lowering.vectorRun, 64);
  EXPECT_EQ(message({{"tc.vector_run", 16}}), "");
  EXPECT_EQ(lowering.vectorRun, 16);
  EXPECT_EQ(message({{"tc.vector_run", -2}}),
            "'tc.vector_run' must not be negative, not -2");
  backend::CoreInfo gpu = getCore("generic-sg16");
  tc::LoweringOptions gpuLowering;
  EXPECT_FALSE(api::applyCompileConfiguration({}, gpu, gpuLowering, compile));
  EXPECT_EQ(gpuLowering.vectorRun, 0);
}

} // namespace
