//===- TuningSearch.cpp - Genetic search over a search space --------------===//
#include "comprehend/runtime/TuningSearch.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

using namespace comprehend::runtime;

namespace {
/// A measured candidate.
struct Scored {
  Configuration config;
  double ms;
};

/// Evaluates configurations at most once each, enforces the budgets, applies
/// the correctness check and draws the progress bar.
class Tracker {
public:
  Tracker(const EvaluateFn &evaluate, const CheckFn &check,
          const SearchOptions &options)
      : evaluate(evaluate), check(check), options(options),
        start(std::chrono::steady_clock::now()) {}

  /// Whether a budget forbids starting another evaluation.
  bool isExhausted() const {
    if (options.maxEvaluations &&
        result.numEvaluations >= options.maxEvaluations)
      return true;
    if (options.timeBudgetSeconds > 0) {
      std::chrono::duration<double> elapsed =
          std::chrono::steady_clock::now() - start;
      double next = options.expectedEvaluationSeconds
                        ? options.expectedEvaluationSeconds()
                        : 0;
      if (elapsed.count() + next >= options.timeBudgetSeconds)
        return true;
    }
    return false;
  }

  bool isKnown(const Configuration &config) const {
    return known.count(config) != 0;
  }

  /// Evaluates the default; its failure ends the search.
  llvm::Error measureDefault(const Configuration &config) {
    ++result.numEvaluations;
    llvm::Expected<double> ms = evaluate(config);
    if (!ms) {
      known[config] = std::nullopt;
      return makeDeviceError("the default configuration (" +
                             formatConfiguration(config) +
                             ") failed: " + llvm::toString(ms.takeError()));
    }
    known[config] = *ms;
    result.defaultConfig = result.best = config;
    result.defaultMs = result.bestMs = *ms;
    drawProgress();
    return llvm::Error::success();
  }

  /// Evaluates and checks a new candidate; std::nullopt if it failed or
  /// computed something else than the default.
  std::optional<double> measure(const Configuration &config) {
    auto it = known.find(config);
    if (it != known.end())
      return it->second;
    ++result.numEvaluations;
    std::optional<double> time;
    llvm::Expected<double> ms = evaluate(config);
    if (!ms) {
      llvm::consumeError(ms.takeError());
      ++result.numFailed;
    } else if (llvm::Error wrong =
                   check ? check(config) : llvm::Error::success()) {
      result.wrongCandidates.push_back(llvm::toString(std::move(wrong)));
      ++result.numWrong;
    } else {
      time = *ms;
      if (*ms < result.bestMs) {
        result.bestMs = *ms;
        result.best = config;
      }
    }
    known[config] = time;
    drawProgress();
    return time;
  }

  SearchResult finish() {
    drawProgress(/*last=*/true);
    if (options.progress && options.progress->is_displayed())
      *options.progress << '\n';
    for (const auto &[config, ms] : known)
      if (ms)
        result.measured.push_back({config, *ms});
    llvm::stable_sort(result.measured, [](const auto &a, const auto &b) {
      return a.second < b.second;
    });
    return result;
  }

private:
  /// On a terminal one line is redrawn after every candidate; into a file
  /// or pipe a line is written for the first candidate, whenever the best
  /// time improves, every 50 candidates and at the end, so logs stay short.
  void drawProgress(bool last = false) {
    if (!options.progress)
      return;
    llvm::raw_ostream &os = *options.progress;
    bool terminal = os.is_displayed();
    if (!terminal) {
      bool improved = result.bestMs < lastPrintedBestMs;
      if (!last && !improved && result.numEvaluations != 1 &&
          result.numEvaluations % 50 != 0)
        return;
      if (last && lastPrintedEvaluations == result.numEvaluations)
        return;
    }
    if (last && terminal)
      return;
    lastPrintedBestMs = result.bestMs;
    lastPrintedEvaluations = result.numEvaluations;
    os << (terminal ? "\r[tune] " : "[tune] ") << result.numEvaluations;
    if (options.maxEvaluations)
      os << '/' << options.maxEvaluations;
    os << " candidates, best " << llvm::format("%.4f", result.bestMs)
       << " ms, speed-up "
       << llvm::format("%.2f", result.defaultMs / result.bestMs) << "x";
    if (result.numFailed || result.numWrong)
      os << " (" << result.numFailed << " failed, " << result.numWrong
         << " wrong)";
    if (!terminal)
      os << '\n';
    os.flush();
  }
  double lastPrintedBestMs = std::numeric_limits<double>::infinity();
  unsigned lastPrintedEvaluations = 0;

  const EvaluateFn &evaluate;
  const CheckFn &check;
  const SearchOptions &options;
  std::chrono::steady_clock::time_point start;
  std::map<Configuration, std::optional<double>> known;
  SearchResult result;
};
} // namespace

/// What every search does around its own exploration: checks the default
/// and measures it, lets \p explore measure candidates (drawn from a
/// generator seeded with the options' seed) until it returns, and reports.
static llvm::Expected<SearchResult>
runSearch(const SearchSpace &space, const EvaluateFn &evaluate,
          const CheckFn &check, const SearchOptions &options,
          llvm::function_ref<void(Tracker &, std::mt19937_64 &)> explore) {
  Tracker tracker(evaluate, check, options);
  Configuration defaults = space.getDefault();
  if (std::optional<std::string> reason = space.checkLegal(defaults))
    return makeInputError("the default configuration is illegal: " + *reason);
  if (llvm::Error error = tracker.measureDefault(defaults))
    return error;
  std::mt19937_64 rng(options.seed);
  explore(tracker, rng);
  return tracker.finish();
}

/// A legal configuration not evaluated yet, drawn uniformly.
static std::optional<Configuration> sampleUnknown(const SearchSpace &space,
                                                  const Tracker &tracker,
                                                  std::mt19937_64 &rng) {
  for (unsigned attempt = 0; attempt < 64; ++attempt) {
    std::optional<Configuration> config = space.sampleLegal(rng);
    if (!config)
      return std::nullopt;
    if (!tracker.isKnown(*config))
      return config;
  }
  return std::nullopt;
}

llvm::Expected<SearchResult> comprehend::runtime::runRandomSearch(
    const SearchSpace &space, const EvaluateFn &evaluate, const CheckFn &check,
    const SearchOptions &options) {
  return runSearch(space, evaluate, check, options,
                   [&](Tracker &tracker, std::mt19937_64 &rng) {
                     while (!tracker.isExhausted()) {
                       std::optional<Configuration> config =
                           sampleUnknown(space, tracker, rng);
                       if (!config)
                         return;
                       tracker.measure(*config);
                     }
                   });
}

llvm::Expected<SearchResult> comprehend::runtime::runExhaustiveSearch(
    const SearchSpace &space, const EvaluateFn &evaluate, const CheckFn &check,
    const SearchOptions &options, uint64_t limit) {
  std::optional<std::vector<Configuration>> points =
      space.enumerateLegal(limit);
  if (!points)
    return makeInputError("the search space has " +
                          std::to_string(space.getNumPoints()) +
                          " points, more than the " + std::to_string(limit) +
                          " an exhaustive search takes");
  return runSearch(space, evaluate, check, options,
                   [&](Tracker &tracker, std::mt19937_64 &) {
                     for (const Configuration &config : *points) {
                       if (tracker.isExhausted())
                         return;
                       tracker.measure(config);
                     }
                   });
}

/// Roulette selection: an index drawn with probability proportional to the
/// fitness 1/time.
static const Configuration &selectParent(llvm::ArrayRef<Scored> population,
                                         std::mt19937_64 &rng) {
  std::vector<double> fitness;
  fitness.reserve(population.size());
  for (const Scored &s : population)
    fitness.push_back(1.0 / std::max(s.ms, 1e-9));
  std::discrete_distribution<size_t> pick(fitness.begin(), fitness.end());
  return population[pick(rng)].config;
}

/// Uniform crossover of three roulette-selected parents, or a copy of one,
/// then mutation; std::nullopt if no legal child was found.
static std::optional<Configuration>
breedChild(const SearchSpace &space, llvm::ArrayRef<Scored> population,
           const SearchOptions &options, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  Configuration child = selectParent(population, rng);
  if (coin(rng) < options.crossoverRate) {
    const Configuration *parents[3] = {&selectParent(population, rng),
                                       &selectParent(population, rng),
                                       &selectParent(population, rng)};
    std::uniform_int_distribution<int> which(0, 2);
    for (unsigned attempt = 0; attempt < 100; ++attempt) {
      Configuration mixed;
      for (const TuningParameter &param : space.getParameters())
        mixed[param.name] = parents[which(rng)]->at(param.name);
      if (space.isLegal(mixed)) {
        child = std::move(mixed);
        break;
      }
    }
  }
  for (unsigned attempt = 0; attempt < 100; ++attempt) {
    Configuration mutated = child;
    for (const TuningParameter &param : space.getParameters()) {
      if (coin(rng) >= options.mutationRate)
        continue;
      std::uniform_int_distribution<size_t> pick(0, param.domain.size() - 1);
      mutated[param.name] = param.domain[pick(rng)];
    }
    if (space.isLegal(mutated))
      return mutated;
  }
  return space.isLegal(child) ? std::optional<Configuration>(child)
                              : std::nullopt;
}

/// The genetic search's exploration: a population bred and mutated until
/// the budget runs out.
static void evolvePopulation(const SearchSpace &space,
                             const SearchOptions &options, Tracker &tracker,
                             std::mt19937_64 &rng) {
  unsigned populationSize = std::max(options.populationSize, 3u);
  unsigned numElites = std::min(options.numElites, populationSize / 2);

  std::vector<Scored> population;
  // The default was measured by runSearch; measure() returns its time.
  Configuration defaults = space.getDefault();
  population.push_back({defaults, *tracker.measure(defaults)});
  for (const Configuration &seed : options.seeds) {
    if (tracker.isExhausted() || population.size() >= populationSize)
      break;
    if (!space.isLegal(seed) || tracker.isKnown(seed))
      continue;
    if (std::optional<double> ms = tracker.measure(seed))
      population.push_back({seed, *ms});
  }
  // Fills the population with new random legal candidates.
  auto fillRandomly = [&] {
    while (population.size() < populationSize && !tracker.isExhausted()) {
      std::optional<Configuration> config = sampleUnknown(space, tracker, rng);
      if (!config)
        return;
      if (std::optional<double> ms = tracker.measure(*config))
        population.push_back({std::move(*config), *ms});
    }
  };
  fillRandomly();

  while (!tracker.isExhausted()) {
    llvm::stable_sort(population, [](const Scored &a, const Scored &b) {
      return a.ms < b.ms;
    });
    // Too few valid candidates to breed from: restart from the best plus
    // random ones, as TC does.
    if (population.size() < 3) {
      size_t before = population.size();
      fillRandomly();
      if (population.size() == before)
        break;
      continue;
    }
    std::vector<Scored> next(population.begin(),
                             population.begin() + numElites);
    unsigned newChildren = 0;
    // Children already evaluated are redrawn: the budget buys new points.
    for (unsigned attempt = 0;
         next.size() < populationSize && attempt < populationSize * 50 &&
         !tracker.isExhausted();
         ++attempt) {
      std::optional<Configuration> child =
          breedChild(space, population, options, rng);
      if (!child || tracker.isKnown(*child))
        continue;
      ++newChildren;
      if (std::optional<double> ms = tracker.measure(*child))
        next.push_back({std::move(*child), *ms});
    }
    if (newChildren == 0) {
      // Breeding is stuck in an explored region: inject a random candidate,
      // or stop when the legal space is exhausted.
      std::optional<Configuration> config = sampleUnknown(space, tracker, rng);
      if (!config)
        break;
      if (std::optional<double> ms = tracker.measure(*config))
        next.push_back({std::move(*config), *ms});
    }
    population = std::move(next);
  }
}

llvm::Expected<SearchResult> comprehend::runtime::runGeneticSearch(
    const SearchSpace &space, const EvaluateFn &evaluate, const CheckFn &check,
    const SearchOptions &options) {
  return runSearch(space, evaluate, check, options,
                   [&](Tracker &tracker, std::mt19937_64 &rng) {
                     evolvePopulation(space, options, tracker, rng);
                   });
}
