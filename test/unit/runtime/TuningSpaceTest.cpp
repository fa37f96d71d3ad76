//===- TuningSpaceTest.cpp - Search spaces and legality filters -----------===//
#include "comprehend/runtime/TuningSpace.h"

#include "gtest/gtest.h"

#include <set>

using namespace comprehend::runtime;

namespace {

/// A work-group search space of a device allowing 256 work-items and a
/// subgroup size of 8.
SearchSpace makeWorkGroupSpace() {
  SearchSpace space;
  EXPECT_FALSE(bool(space.addParameter("wg0", {1, 2, 4, 8, 16, 32, 64}, 8)));
  EXPECT_FALSE(bool(space.addParameter("wg1", {1, 2, 4, 8, 16}, 1)));
  space.addConstraint(productAtMost({"wg0", "wg1"}, 64));
  space.addConstraint(multipleOf("wg0", 8));
  return space;
}

TEST(TuningSpaceTest, DomainIsSortedAndHoldsTheDefault) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("x", {8, 2, 8, 4}, 3)));
  const TuningParameter *x = space.lookup("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(std::vector<int64_t>(x->domain.begin(), x->domain.end()),
            (std::vector<int64_t>{2, 3, 4, 8}));
  EXPECT_EQ(space.getDefault(), (Configuration{{"x", 3}}));
  EXPECT_EQ(space.getNumPoints(), 4u);
}

TEST(TuningSpaceTest, RejectsDuplicateAndEmptyParameters) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("x", {1}, 1)));
  llvm::Error dup = space.addParameter("x", {2}, 2);
  ASSERT_TRUE(bool(dup));
  EXPECT_EQ(llvm::toString(std::move(dup)), "duplicate tuning parameter 'x'");
  llvm::Error empty = space.addParameter("y", {}, 0);
  ASSERT_TRUE(bool(empty));
  EXPECT_EQ(llvm::toString(std::move(empty)),
            "tuning parameter 'y' has an empty domain");
}

TEST(TuningSpaceTest, FiltersIllegalConfigurations) {
  SearchSpace space = makeWorkGroupSpace();
  EXPECT_TRUE(space.isLegal({{"wg0", 8}, {"wg1", 8}}));
  EXPECT_EQ(space.checkLegal({{"wg0", 16}, {"wg1", 8}}),
            std::optional<std::string>("product wg0 * wg1 = 128 exceeds 64"));
  EXPECT_EQ(space.checkLegal({{"wg0", 4}, {"wg1", 1}}),
            std::optional<std::string>("'wg0' = 4 is not a multiple of 8"));
  EXPECT_EQ(space.checkLegal({{"wg0", 8}}),
            std::optional<std::string>("missing parameter 'wg1'"));
  EXPECT_EQ(
      space.checkLegal({{"wg0", 8}, {"wg1", 3}}),
      std::optional<std::string>("value 3 of 'wg1' is not in its domain"));
  EXPECT_EQ(space.checkLegal({{"wg0", 8}, {"wg1", 1}, {"zz", 1}}),
            std::optional<std::string>("unknown parameter 'zz'"));
}

TEST(TuningSpaceTest, EnumeratesExactlyTheLegalPoints) {
  SearchSpace space = makeWorkGroupSpace();
  std::optional<std::vector<Configuration>> legal = space.enumerateLegal();
  ASSERT_TRUE(legal);
  // wg0 in {8,16,32,64}; wg1 in {1,2,4,8,16} such that the product is
  // <= 64: 8 -> 4 values, 16 -> 3, 32 -> 2, 64 -> 1.
  EXPECT_EQ(legal->size(), 4u + 3u + 2u + 1u);
  for (const Configuration &config : *legal) {
    EXPECT_LE(config.at("wg0") * config.at("wg1"), 64);
    EXPECT_EQ(config.at("wg0") % 8, 0);
  }
  EXPECT_FALSE(space.enumerateLegal(/*limit=*/10));
}

TEST(TuningSpaceTest, SamplesOnlyLegalPoints) {
  SearchSpace space = makeWorkGroupSpace();
  std::mt19937_64 rng(7);
  std::set<Configuration> seen;
  for (int i = 0; i < 500; ++i) {
    std::optional<Configuration> config = space.sampleLegal(rng);
    ASSERT_TRUE(config);
    EXPECT_TRUE(space.isLegal(*config)) << formatConfiguration(*config);
    seen.insert(*config);
  }
  // Uniform rejection sampling reaches all 10 legal points.
  EXPECT_EQ(seen.size(), 10u);
}

TEST(TuningSpaceTest, SamplingAnUnsatisfiableSpaceFails) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("x", {1, 3, 5}, 1)));
  space.addConstraint(multipleOf("x", 2));
  std::mt19937_64 rng(1);
  EXPECT_FALSE(space.sampleLegal(rng, 50));
  EXPECT_TRUE(space.enumerateLegal()->empty());
}

TEST(TuningSpaceTest, MultipleOfParameter) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("wg", {8, 12, 16, 32}, 16)));
  ASSERT_FALSE(bool(space.addParameter("sg", {8, 16}, 8)));
  space.addConstraint(multipleOfParameter("wg", "sg"));
  EXPECT_TRUE(space.isLegal({{"wg", 32}, {"sg", 16}}));
  EXPECT_EQ(
      space.checkLegal({{"wg", 8}, {"sg", 16}}),
      std::optional<std::string>("'wg' = 8 is not a multiple of 'sg' = 16"));
  EXPECT_EQ(space.enumerateLegal()->size(), 3u + 2u);
}

TEST(TuningSpaceTest, ProductDoesNotOverflow) {
  SearchSpace space;
  int64_t big = int64_t(1) << 40;
  ASSERT_FALSE(bool(space.addParameter("a", {big}, big)));
  ASSERT_FALSE(bool(space.addParameter("b", {big}, big)));
  space.addConstraint(productAtMost({"a", "b"}, 1024));
  EXPECT_EQ(
      space.checkLegal(space.getDefault()),
      std::optional<std::string>("product a * b = (overflow) exceeds 1024"));
}

TEST(TuningSpaceTest, ConfigurationJsonRoundTrip) {
  Configuration config{{"tile_m", 32}, {"wg", -4}, {"unroll", 8}};
  llvm::json::Value json = toJSON(config);
  llvm::Expected<Configuration> back = configurationFromJSON(json);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(*back, config);
  EXPECT_EQ(formatConfiguration(config), "tile_m=32,unroll=8,wg=-4");

  llvm::Expected<Configuration> notObject =
      configurationFromJSON(llvm::json::Value(3));
  ASSERT_FALSE(bool(notObject));
  EXPECT_EQ(llvm::toString(notObject.takeError()),
            "a configuration must be a JSON object");
  llvm::Expected<Configuration> notInt =
      configurationFromJSON(llvm::json::Object{{"x", 1.5}});
  ASSERT_FALSE(bool(notInt));
  EXPECT_EQ(llvm::toString(notInt.takeError()),
            "configuration parameter 'x' must be an integer");
}

} // namespace
