//===- TunerTest.cpp - The tuner's budgets and confirmation ---------------===//
#include "comprehend/runtime/Tuner.h"

#include "comprehend/runtime/Error.h"

#include "gtest/gtest.h"

#include <chrono>
#include <functional>
#include <thread>

using namespace comprehend::runtime;

namespace {

/// One parameter `x` in 0..7, default 0.
SearchSpace makeSpace() {
  SearchSpace space;
  EXPECT_FALSE(bool(space.addParameter("x", {0, 1, 2, 3, 4, 5, 6, 7}, 0)));
  return space;
}

/// Launch times come from `cost(x, launch number)`; a launch sleeps for
/// `sleepMs` of real time.
class FakeTarget : public TuningTarget {
public:
  std::function<double(int64_t, unsigned)> cost;
  double sleepMs = 0;
  /// Real time that compiling a variant takes.
  double prepareSleepMs = 0;
  unsigned prepared = 0;

  class Variant : public TuningVariant {
  public:
    Variant(FakeTarget &target, int64_t x) : target(target), x(x) {}
    llvm::Expected<std::vector<double>> time(unsigned count) override {
      std::vector<double> times;
      for (unsigned i = 0; i < count; ++i) {
        if (target.sleepMs > 0)
          std::this_thread::sleep_for(
              std::chrono::duration<double, std::milli>(target.sleepMs));
        times.push_back(target.cost(x, target.launches++));
      }
      return times;
    }

  private:
    FakeTarget &target;
    int64_t x;
  };

  llvm::Expected<std::unique_ptr<TuningVariant>>
  prepare(const Configuration &config) override {
    ++prepared;
    if (prepareSleepMs > 0)
      std::this_thread::sleep_for(
          std::chrono::duration<double, std::milli>(prepareSleepMs));
    return std::make_unique<Variant>(*this, config.at("x"));
  }
  llvm::Error check(const Configuration &) override {
    return llvm::Error::success();
  }
  unsigned launches = 0;
};

/// A tuning of makeSpace() and the wall time it took.
struct TimedTuning {
  llvm::Expected<TunerResult> result;
  double seconds;
};

TimedTuning tuneTimed(FakeTarget &target, const TunerOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto result = tune(makeSpace(), target, options);
  return {std::move(result), std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count()};
}

TEST(TunerTest, AClearGainIsConfirmed) {
  FakeTarget target;
  target.cost = [](int64_t x, unsigned) { return x == 5 ? 0.5 : 1.0; };
  TunerOptions options;
  options.search.maxEvaluations = 0;
  options.exhaustive = true;
  options.repeat = 3;
  auto result = tune(makeSpace(), target, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_TRUE(result->improved);
  EXPECT_EQ(result->search.best.at("x"), 5);
  EXPECT_NEAR(result->search.bestMs, 0.5, 1e-9);
  EXPECT_EQ(result->table.size(), 8u);
  // The default and the one candidate that measured faster.
  EXPECT_EQ(result->finalists.size(), 2u);
}

TEST(TunerTest, SlowerCandidatesAreNotConfirmed) {
  // x = 7 is 50 times slower; the others are as fast as the default. None
  // is a finalist, so no confirmation round pays for x = 7's launches.
  FakeTarget target;
  target.cost = [](int64_t x, unsigned) { return x == 7 ? 50.0 : 1.0; };
  TunerOptions options;
  options.search.maxEvaluations = 0;
  options.exhaustive = true;
  options.repeat = 3;
  auto result = tune(makeSpace(), target, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->improved);
  EXPECT_TRUE(result->finalists.empty());
  EXPECT_EQ(result->confirmRounds, 0u);
  EXPECT_EQ(result->verdict, "the default kept: no candidate measured faster");
  EXPECT_EQ(result->search.best, result->search.defaultConfig);
}

TEST(TunerTest, AGainThatDoesNotReproduceKeepsTheDefault) {
  // Candidate 3 was lucky once (its first timed launches), then it is as
  // slow as the default: the confirmation rounds keep the default.
  FakeTarget target;
  unsigned luckyLaunches = 0;
  target.cost = [&](int64_t x, unsigned) {
    if (x == 3 && luckyLaunches++ < 4)
      return 0.2;
    return 1.0;
  };
  TunerOptions options;
  options.search.maxEvaluations = 0;
  options.exhaustive = true;
  options.repeat = 3;
  auto result = tune(makeSpace(), target, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->improved);
  EXPECT_EQ(result->search.best, result->search.defaultConfig);
  EXPECT_NE(result->verdict.find("default kept"), std::string::npos);
}

TEST(TunerTest, TheTimeBudgetHoldsWhenLaunchesAreSlow) {
  FakeTarget target;
  target.sleepMs = 20;
  target.cost = [](int64_t x, unsigned) { return 20.0 + x; };
  TunerOptions options;
  options.search.maxEvaluations = 0;
  options.search.timeBudgetSeconds = 0.5;
  options.repeat = 10;
  TimedTuning timed = tuneTimed(target, options);
  auto &result = timed.result;
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  // The default fits 5 % of the budget: 25 ms, one 20 ms launch.
  EXPECT_EQ(result->repeat, 1u);
  // Within the budget plus a few launches under way when it ran out.
  EXPECT_LT(timed.seconds, 0.5 + 0.2);

  // A budget the default alone uses up leaves the search none (not an
  // unlimited one).
  options.search.timeBudgetSeconds = 0.02;
  auto spent = tune(makeSpace(), target, options);
  ASSERT_TRUE(bool(spent)) << llvm::toString(spent.takeError());
  EXPECT_LE(spent->search.numEvaluations, 1u);
  EXPECT_FALSE(spent->improved);
}

TEST(TunerTest, TheTimeBudgetHoldsWhenCompilingIsSlow) {
  // Compiling a candidate (120 ms) costs far more than its launches, as for
  // kernels over large tensors on PoCL: the search starts no candidate
  // that would end after its share of the budget, and the confirmation
  // keeps only the finalists it has time to compile again.
  FakeTarget target;
  target.prepareSleepMs = 120;
  target.cost = [](int64_t x, unsigned) { return 1.0 - 0.1 * x; };
  TunerOptions options;
  options.search.maxEvaluations = 0;
  options.search.timeBudgetSeconds = 1.0;
  options.repeat = 3;
  TimedTuning timed = tuneTimed(target, options);
  auto &result = timed.result;
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  // Within 10 % of the budget (the default's launches are instant).
  EXPECT_LT(timed.seconds, 1.1);
  EXPECT_GE(result->search.numEvaluations, 3u);
  // Every finalist kept was compiled again within the budget.
  EXPECT_GE(result->finalists.size(), 2u);
  EXPECT_TRUE(result->improved);

  // When compiling takes almost half the budget, the default stays and the
  // budget still holds.
  target.prepareSleepMs = 300;
  options.search.timeBudgetSeconds = 0.7;
  TimedTuning rushedTimed = tuneTimed(target, options);
  auto &rushed = rushedTimed.result;
  ASSERT_TRUE(bool(rushed)) << llvm::toString(rushed.takeError());
  EXPECT_LT(rushedTimed.seconds, 0.7 * 1.1);
  EXPECT_FALSE(rushed->improved);
  EXPECT_EQ(rushed->search.best, rushed->search.defaultConfig);
}

TEST(TunerTest, SearchQualityReplaysTheSearchOnMeasuredTimes) {
  SearchSpace space = makeSpace();
  std::map<Configuration, double> table;
  for (int64_t x = 0; x < 8; ++x)
    table[{{"x", x}}] = x == 4 ? 1.0 : 2.0;
  SearchQuality quality = measureSearchQuality(space, table, 5);
  EXPECT_EQ(quality.numPoints, 8u);
  EXPECT_EQ(quality.bestMs, 1.0);
  EXPECT_EQ(quality.evaluations, 1u);
  ASSERT_EQ(quality.qualities.size(), 5u);
  // One evaluation (10 %) is the default: half the best speed.
  EXPECT_DOUBLE_EQ(quality.medianQuality, 0.5);
  for (unsigned evaluations : quality.evaluationsTo95) {
    EXPECT_GE(evaluations, 2u);
    EXPECT_LE(evaluations, 8u);
  }
}

} // namespace
