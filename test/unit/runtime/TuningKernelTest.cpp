//===- TuningKernelTest.cpp - Work-group search spaces of kernels ---------===//
#include "comprehend/runtime/TuningKernel.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Function.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::runtime;

namespace {

backend::KernelInfo makeDefaults(unsigned wg0, unsigned wg1, unsigned sg) {
  backend::KernelInfo info;
  info.workGroupSize = {wg0, wg1};
  info.subgroupSize = sg;
  return info;
}

TEST(TuningKernelTest, SpaceFollowsTheCore) {
  std::optional<backend::CoreInfo> core =
      backend::CoreInfo::getPreset("generic-sg16");
  ASSERT_TRUE(core);
  auto space = makeWorkGroupSpace(*core, makeDefaults(16, 1, 16));
  ASSERT_TRUE(bool(space)) << llvm::toString(space.takeError());
  EXPECT_TRUE(space->isLegal(space->getDefault()));
  std::optional<std::vector<Configuration>> legal = space->enumerateLegal();
  ASSERT_TRUE(legal);
  ASSERT_FALSE(legal->empty());
  for (const Configuration &config : *legal) {
    int64_t sg = config.at(std::string(kSubgroupSize));
    EXPECT_TRUE(core->supportsSubgroupSize(sg));
    EXPECT_EQ(config.at(std::string(kWorkGroupSize0)) % sg, 0);
    EXPECT_LE(config.at(std::string(kWorkGroupSize0)) *
                  config.at(std::string(kWorkGroupSize1)),
              int64_t(core->maxWorkGroupSize));
  }
  // A work-group larger than the core allows is filtered out.
  Configuration tooBig = space->getDefault();
  tooBig[std::string(kWorkGroupSize0)] = core->maxWorkGroupSize;
  tooBig[std::string(kWorkGroupSize1)] = 2;
  EXPECT_FALSE(space->isLegal(tooBig));
}

TEST(TuningKernelTest, ApplyConfigurationSetsAttributesAndKeepsOthers) {
  ir::Context ctx;
  ir::Function function(ctx, "k");
  ir::NamedAttribute other{"note", ir::IntegerAttr::get(ctx, 7)};
  function.setAttributes(ir::DictionaryAttr::get(ctx, other));
  applyConfiguration(function, {{std::string(kWorkGroupSize0), 32},
                                {std::string(kWorkGroupSize1), 2},
                                {std::string(kSubgroupSize), 8}});
  EXPECT_EQ(function.getWorkGroupSize(), (std::array<int64_t, 2>{32, 2}));
  EXPECT_EQ(function.getSubgroupSize(), std::optional<int64_t>(8));
  ASSERT_NE(function.getAttributes()->get("note"), nullptr);

  // Applying again replaces, never duplicates.
  applyConfiguration(function, {{std::string(kWorkGroupSize0), 64},
                                {std::string(kWorkGroupSize1), 1}});
  EXPECT_EQ(function.getWorkGroupSize(), (std::array<int64_t, 2>{64, 1}));
  EXPECT_EQ(function.getSubgroupSize(), std::optional<int64_t>(8));
  EXPECT_EQ(function.getAttributes()->getEntries().size(), 3u);
}

} // namespace
