//===- TuningSearchTest.cpp - Genetic search on synthetic costs -----------===//
#include "comprehend/runtime/TuningSearch.h"

#include "comprehend/runtime/Error.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <thread>

using namespace comprehend::runtime;

namespace {

constexpr int numParams = 6;
constexpr int64_t targets[numParams] = {3, 11, 7, 0, 14, 9};

// (Built without operator+ on a literal: GCC 12 warns -Wrestrict there.)
std::string paramName(int i) {
  return std::string(1, 'p') += std::to_string(i);
}

/// Six parameters in 0..15 (16.7M points), default 8 everywhere, and the
/// rule that their sum is at most 60 (which the optimum satisfies).
SearchSpace makeSpace() {
  SearchSpace space;
  std::vector<std::string> names;
  for (int i = 0; i < numParams; ++i) {
    llvm::SmallVector<int64_t, 16> domain;
    for (int64_t v = 0; v < 16; ++v)
      domain.push_back(v);
    EXPECT_FALSE(bool(space.addParameter(paramName(i), domain, 8)));
  }
  space.addConstraint([](const Configuration &c) -> std::optional<std::string> {
    int64_t sum = 0;
    for (const auto &entry : c)
      sum += entry.second;
    if (sum > 60)
      return std::string("sum exceeds 60");
    return std::nullopt;
  });
  return space;
}

/// A synthetic kernel time: 1 ms at the optimum, growing quadratically.
double cost(const Configuration &c) {
  double ms = 1;
  for (int i = 0; i < numParams; ++i) {
    double d = double(c.at(paramName(i)) - targets[i]);
    ms += 0.05 * d * d;
  }
  return ms;
}

SearchOptions makeOptions(uint64_t seed, unsigned evals) {
  SearchOptions options;
  options.seed = seed;
  options.maxEvaluations = evals;
  return options;
}

TEST(TuningSearchTest, GeneticSearchBeatsRandomSamplingOnTheSameBudget) {
  SearchSpace space = makeSpace();
  unsigned illegalEvaluations = 0;
  EvaluateFn evaluate = [&](const Configuration &c) -> llvm::Expected<double> {
    if (!space.isLegal(c))
      ++illegalEvaluations;
    return cost(c);
  };
  double geneticExcess = 0, randomExcess = 0;
  int geneticOptimal = 0;
  constexpr int numSeeds = 10;
  for (uint64_t seed = 1; seed <= numSeeds; ++seed) {
    llvm::Expected<SearchResult> genetic =
        runGeneticSearch(space, evaluate, nullptr, makeOptions(seed, 300));
    ASSERT_TRUE(bool(genetic)) << llvm::toString(genetic.takeError());
    llvm::Expected<SearchResult> random =
        runRandomSearch(space, evaluate, nullptr, makeOptions(seed, 300));
    ASSERT_TRUE(bool(random)) << llvm::toString(random.takeError());
    EXPECT_EQ(genetic->numEvaluations, 300u);
    EXPECT_EQ(random->numEvaluations, 300u);
    EXPECT_DOUBLE_EQ(genetic->defaultMs, cost(space.getDefault()));
    EXPECT_DOUBLE_EQ(genetic->bestMs, cost(genetic->best));
    EXPECT_LE(genetic->bestMs, genetic->defaultMs);
    geneticExcess += genetic->bestMs - 1;
    randomExcess += random->bestMs - 1;
    geneticOptimal += genetic->bestMs == 1;
  }
  EXPECT_EQ(illegalEvaluations, 0u);
  // Distance to the optimum, averaged over the seeds: the genetic search
  // must be at least 3x closer than random sampling.
  EXPECT_LT(geneticExcess * 3, randomExcess)
      << "genetic " << geneticExcess / numSeeds << " random "
      << randomExcess / numSeeds;
  RecordProperty("genetic_mean_excess_ms_x1000",
                 int(1000 * geneticExcess / numSeeds));
  RecordProperty("random_mean_excess_ms_x1000",
                 int(1000 * randomExcess / numSeeds));
  RecordProperty("genetic_optimal_runs", geneticOptimal);
}

TEST(TuningSearchTest, IsDeterministicForASeed) {
  SearchSpace space = makeSpace();
  auto run = [&](uint64_t seed) {
    std::vector<Configuration> order;
    EvaluateFn evaluate =
        [&](const Configuration &c) -> llvm::Expected<double> {
      order.push_back(c);
      return cost(c);
    };
    llvm::Expected<SearchResult> result =
        runGeneticSearch(space, evaluate, nullptr, makeOptions(seed, 80));
    EXPECT_TRUE(bool(result));
    if (!result)
      llvm::consumeError(result.takeError());
    return order;
  };
  std::vector<Configuration> first = run(42);
  EXPECT_EQ(first.size(), 80u);
  EXPECT_EQ(first, run(42));
  EXPECT_NE(first, run(43));
  // The default is always evaluated first, and no point twice.
  EXPECT_EQ(first.front(), space.getDefault());
  std::set<Configuration> unique(first.begin(), first.end());
  EXPECT_EQ(unique.size(), first.size());
}

TEST(TuningSearchTest, FailingCandidatesAreDropped) {
  SearchSpace space = makeSpace();
  // Odd p0 fails to "compile"; the true optimum (p0 = 3) is unreachable.
  EvaluateFn evaluate = [](const Configuration &c) -> llvm::Expected<double> {
    if (c.at("p0") % 2)
      return makeDeviceError("build failed");
    return cost(c);
  };
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(5, 200));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_GT(result->numFailed, 0u);
  EXPECT_EQ(result->best.at("p0") % 2, 0);
  EXPECT_LT(result->bestMs, result->defaultMs);
}

// Seeds (e.g. a cached best) are evaluated right after the default; illegal
// ones never reach the evaluator.
TEST(TuningSearchTest, SeedsAreEvaluatedFirst) {
  SearchSpace space = makeSpace();
  Configuration optimum, illegal;
  for (int i = 0; i < numParams; ++i) {
    optimum[paramName(i)] = targets[i];
    illegal[paramName(i)] = 15;
  }
  std::vector<Configuration> order;
  EvaluateFn evaluate = [&](const Configuration &c) -> llvm::Expected<double> {
    order.push_back(c);
    return cost(c);
  };
  SearchOptions options = makeOptions(4, 3);
  options.seeds = {illegal, optimum};
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, options);
  ASSERT_TRUE(bool(result));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], space.getDefault());
  EXPECT_EQ(order[1], optimum);
  EXPECT_EQ(result->best, optimum);
  EXPECT_DOUBLE_EQ(result->bestMs, 1.0);
}

// When almost every candidate fails, the population is refilled with random
// candidates (TC's restart) and the budget is still spent on new points.
TEST(TuningSearchTest, KeepsSearchingWhenMostCandidatesFail) {
  SearchSpace space = makeSpace();
  EvaluateFn evaluate = [](const Configuration &c) -> llvm::Expected<double> {
    if (c.at("p2") != 8 && c.at("p2") % 5 != 0)
      return makeDeviceError("launch failed");
    return cost(c);
  };
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(9, 150));
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->numEvaluations, 150u);
  EXPECT_GT(result->numFailed, 50u);
  EXPECT_LT(result->bestMs, result->defaultMs);
  int64_t p2 = result->best.at("p2");
  EXPECT_TRUE(p2 == 8 || p2 % 5 == 0) << p2;
}

/// A fake kernel whose output is the sum of its configuration's parameters
/// mod 1 (always 0) except for configurations with p1 > 12, which compute a
/// wrong value, and which are also the fastest.
struct FakeKernel {
  std::vector<float> run(const Configuration &c) const {
    std::vector<float> out(16, 1.0f);
    if (c.at("p1") > 12)
      out[5] = 1.5f;
    return out;
  }
  double time(const Configuration &c) const {
    return cost(c) - (c.at("p1") > 12 ? 0.9 : 0.0);
  }
};

TEST(TuningSearchTest, CandidatesWithWrongOutputsAreDropped) {
  SearchSpace space = makeSpace();
  FakeKernel kernel;
  std::vector<float> reference = kernel.run(space.getDefault());
  unsigned checks = 0;
  EvaluateFn evaluate = [&](const Configuration &c) -> llvm::Expected<double> {
    return kernel.time(c);
  };
  CheckFn check = [&](const Configuration &c) -> llvm::Error {
    ++checks;
    EXPECT_NE(c, space.getDefault());
    if (kernel.run(c) != reference)
      return makeInputError("outputs differ from the default's");
    return llvm::Error::success();
  };

  // Without the check, the search picks a wrong-but-fast variant...
  llvm::Expected<SearchResult> unchecked =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(3, 200));
  ASSERT_TRUE(bool(unchecked));
  EXPECT_GT(unchecked->best.at("p1"), 12);

  // ...with it, never.
  llvm::Expected<SearchResult> checked =
      runGeneticSearch(space, evaluate, check, makeOptions(3, 200));
  ASSERT_TRUE(bool(checked));
  EXPECT_LE(checked->best.at("p1"), 12);
  EXPECT_EQ(kernel.run(checked->best), reference);
  EXPECT_GT(checked->numWrong, 0u);
  EXPECT_EQ(checks, checked->numEvaluations - 1 - checked->numFailed);
  EXPECT_LT(checked->bestMs, checked->defaultMs);

  // The measured list holds exactly the candidates that ran and passed,
  // fastest first: the best leads, no wrong one is in it.
  ASSERT_EQ(checked->measured.size(),
            checked->numEvaluations - checked->numFailed - checked->numWrong);
  EXPECT_EQ(checked->measured.front().first, checked->best);
  EXPECT_EQ(checked->measured.front().second, checked->bestMs);
  for (size_t i = 0; i < checked->measured.size(); ++i) {
    EXPECT_EQ(kernel.run(checked->measured[i].first), reference);
    if (i > 0)
      EXPECT_LE(checked->measured[i - 1].second, checked->measured[i].second);
  }
}

TEST(TuningSearchTest, DefaultFailureIsAnError) {
  SearchSpace space = makeSpace();
  EvaluateFn evaluate = [](const Configuration &) -> llvm::Expected<double> {
    return makeDeviceError("no device");
  };
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(1, 10));
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "the default configuration (p0=8,p1=8,p2=8,p3=8,p4=8,p5=8) "
            "failed: no device");
}

TEST(TuningSearchTest, IllegalDefaultIsAnError) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("wg", {16, 32}, 64)));
  space.addConstraint(productAtMost({"wg"}, 32));
  unsigned calls = 0;
  EvaluateFn evaluate = [&](const Configuration &) -> llvm::Expected<double> {
    ++calls;
    return 1.0;
  };
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(1, 10));
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "the default configuration is illegal: product wg = 64 exceeds 32");
  EXPECT_EQ(calls, 0u);
}

TEST(TuningSearchTest, SmallSpaceIsExhaustedAndTheSearchStops) {
  SearchSpace space;
  ASSERT_FALSE(bool(space.addParameter("a", {1, 2, 3}, 1)));
  ASSERT_FALSE(bool(space.addParameter("b", {1, 2}, 1)));
  space.addConstraint(productAtMost({"a", "b"}, 4));
  EvaluateFn evaluate = [](const Configuration &c) -> llvm::Expected<double> {
    return 10.0 / double(c.at("a") * c.at("b"));
  };
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, makeOptions(1, 100));
  ASSERT_TRUE(bool(result));
  // 5 legal points (a=3,b=2 is illegal), each evaluated once.
  EXPECT_EQ(result->numEvaluations, 5u);
  EXPECT_EQ(result->best, (Configuration{{"a", 2}, {"b", 2}}));
  EXPECT_DOUBLE_EQ(result->getSpeedup(), 4.0);
}

TEST(TuningSearchTest, StopsAtTheTimeBudget) {
  SearchSpace space = makeSpace();
  EvaluateFn evaluate = [](const Configuration &c) -> llvm::Expected<double> {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return cost(c);
  };
  SearchOptions options = makeOptions(1, /*evals=*/0);
  options.timeBudgetSeconds = 0.2;
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, options);
  std::chrono::duration<double> elapsed =
      std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(bool(result));
  EXPECT_GE(result->numEvaluations, 2u);
  EXPECT_LE(result->numEvaluations, 21u);
  EXPECT_LT(elapsed.count(), 1.0);
}

// Into a string (not a terminal) the progress is a short log: the first
// candidate, each improvement, every 50th candidate and the last one.
TEST(TuningSearchTest, LogsProgressWhenNotOnATerminal) {
  SearchSpace space = makeSpace();
  unsigned improvements = 0;
  double best = std::numeric_limits<double>::infinity();
  EvaluateFn evaluate = [&](const Configuration &c) -> llvm::Expected<double> {
    if (cost(c) < best) {
      best = cost(c);
      ++improvements;
    }
    return cost(c);
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  SearchOptions options = makeOptions(1, 20);
  options.progress = &os;
  llvm::Expected<SearchResult> result =
      runGeneticSearch(space, evaluate, nullptr, options);
  ASSERT_TRUE(bool(result));
  os.flush();
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.find("[tune] 1/20 candidates, best "), 0u) << text;
  EXPECT_NE(text.find("\n[tune] 20/20 candidates, best "), std::string::npos)
      << text;
  EXPECT_NE(text.find(" speed-up "), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
  // One line per improvement (the first candidate is one) plus the last.
  size_t lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_LE(lines, improvements + 1) << text;
  EXPECT_LT(lines, 20u) << text;
}

} // namespace
