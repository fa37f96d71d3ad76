//===- Tuner.cpp - Measuring, confirming and choosing configurations ------===//
#include "comprehend/runtime/Tuner.h"

#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

using namespace comprehend::runtime;

TuningVariant::~TuningVariant() = default;
TuningTarget::~TuningTarget() = default;

namespace {
using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  if (values.empty())
    return std::numeric_limits<double>::infinity();
  auto middle = values.begin() + values.size() / 2;
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

/// Runs one tuning: owns the clock, the launch counts and the table of
/// measured candidates.
class TuningRun {
public:
  TuningRun(TuningTarget &target, const TunerOptions &options)
      : target(target), options(options),
        start(options.start.value_or(Clock::now())) {}

  double elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  double budget() const { return options.search.timeBudgetSeconds; }
  /// Seconds left of the whole budget (infinite without one).
  double left() const {
    return budget() > 0 ? budget() - elapsed()
                        : std::numeric_limits<double>::infinity();
  }

  /// Compiles and times the default; fits the launch count to the budget.
  llvm::Error measureDefault(const Configuration &config) {
    double begin = elapsed();
    defaultConfig = config;
    auto variant = target.prepare(config);
    if (!variant)
      return variant.takeError();
    defaultVariant = std::move(*variant);
    auto probe = defaultVariant->time(1);
    if (!probe)
      return probe.takeError();
    double probeMs = probe->front();
    repeat = std::max(1u, options.repeat);
    if (budget() > 0) {
      // A slow default is timed with fewer launches: 5 % of the budget.
      double fit = std::floor(0.05 * budget() * 1000 / std::max(probeMs, 1e-6));
      repeat = unsigned(std::clamp(fit, 1.0, double(repeat)));
    }
    auto timing = defaultVariant->time(repeat);
    if (!timing)
      return timing.takeError();
    defaultMs = median(*timing);
    bestMs = defaultMs;
    slowestEvaluation = elapsed() - begin;
    return llvm::Error::success();
  }

  llvm::Expected<double> evaluate(const Configuration &config) {
    bestAfter.push_back(bestMs);
    if (config == defaultConfig) {
      table[config] = defaultMs;
      return defaultMs;
    }
    double begin = elapsed();
    // Whatever happens, the next evaluation may cost as much as this one.
    auto account = llvm::make_scope_exit([&] {
      slowestEvaluation = std::max(slowestEvaluation, elapsed() - begin);
    });
    auto variant = target.prepare(config);
    prepareSeconds[config] = elapsed() - begin;
    if (!variant)
      return variant.takeError();
    auto probe = (*variant)->time(1);
    if (!probe)
      return probe.takeError();
    double probeMs = probe->front();
    // A candidate far slower than the best cannot win: one launch tells.
    if (probeMs > options.hopeless * bestMs) {
      pendingMs = probeMs;
      return probeMs;
    }
    unsigned count = repeat;
    double secondsLeft = left();
    if (std::isfinite(secondsLeft))
      count = unsigned(std::clamp(std::floor(std::max(secondsLeft, 0.0) * 1000 /
                                             std::max(probeMs, 1e-6)),
                                  1.0, double(repeat)));
    auto timing = (*variant)->time(count);
    if (!timing)
      return timing.takeError();
    pendingMs = median(*timing);
    return pendingMs;
  }

  llvm::Error check(const Configuration &config) {
    if (llvm::Error error = target.check(config))
      return error;
    table[config] = pendingMs;
    bestMs = std::min(bestMs, pendingMs);
    if (!bestAfter.empty())
      bestAfter.back() = bestMs;
    return llvm::Error::success();
  }

  /// The time of one confirmation round of \p configs (the default first):
  /// `repeat` launches each at its measured time.
  double getRoundMs(llvm::ArrayRef<Configuration> configs) {
    double roundMs = defaultMs * repeat;
    for (const Configuration &config : llvm::drop_begin(configs))
      roundMs += (table.count(config) ? table[config] : defaultMs) * repeat;
    return roundMs;
  }

  /// Drops the slowest finalists (\p configs: the default, then the others
  /// fastest first) until compiling them again, as long as each took in the
  /// search, and the fewest rounds fit in what is left of the budget.
  void fitFinalists(std::vector<Configuration> &configs) {
    auto needed = [&] {
      double seconds = options.minConfirmRounds * getRoundMs(configs) / 1000;
      for (const Configuration &config : llvm::drop_begin(configs))
        seconds += prepareSeconds.count(config) ? prepareSeconds[config] : 0;
      return seconds;
    };
    while (configs.size() > 1 && needed() > left())
      configs.pop_back();
  }

  /// Times the finalists (the default first) in alternating rounds.
  std::vector<Finalist> confirm(llvm::ArrayRef<Configuration> configs,
                                unsigned &rounds) {
    std::vector<std::unique_ptr<TuningVariant>> variants;
    std::vector<Finalist> finalists;
    for (const Configuration &config : configs) {
      std::unique_ptr<TuningVariant> variant;
      if (config != defaultConfig) {
        auto prepared = target.prepare(config);
        if (!prepared) {
          llvm::consumeError(prepared.takeError());
          continue;
        }
        variant = std::move(*prepared);
      }
      finalists.push_back({config, {}, {}, 0, 1, 0});
      variants.push_back(std::move(variant));
    }
    auto variantOf = [&](size_t i) {
      return variants[i] ? variants[i].get() : defaultVariant.get();
    };
    // A round times every finalist `repeat` times; fit the rounds into what
    // is left of the budget.
    std::vector<Configuration> kept;
    for (const Finalist &finalist : finalists)
      kept.push_back(finalist.config);
    double roundMs = getRoundMs(kept);
    rounds = options.maxConfirmRounds;
    double secondsLeft = left();
    if (std::isfinite(secondsLeft)) {
      double fit = std::floor(std::max(secondsLeft, 0.0) * 1000 /
                              std::max(roundMs, 1e-6));
      rounds = unsigned(std::clamp(fit, double(options.minConfirmRounds),
                                   double(options.maxConfirmRounds)));
    }
    for (unsigned round = 0; round < rounds; ++round)
      for (size_t i = 0; i < finalists.size(); ++i) {
        auto timing = variantOf(i)->time(repeat);
        if (!timing) {
          llvm::consumeError(timing.takeError());
          finalists[i].roundMs.push_back(
              std::numeric_limits<double>::infinity());
          continue;
        }
        finalists[i].roundMs.push_back(median(*timing));
      }
    for (Finalist &finalist : finalists) {
      for (unsigned round = 0; round < rounds; ++round)
        finalist.ratios.push_back(finalist.roundMs[round] /
                                  finalists[0].roundMs[round]);
      finalist.medianMs = median(finalist.roundMs);
      finalist.medianRatio = median(finalist.ratios);
      auto [lo, hi] =
          std::minmax_element(finalist.ratios.begin(), finalist.ratios.end());
      finalist.spread = (*hi - *lo) / 2;
    }
    return finalists;
  }

  TuningTarget &target;
  const TunerOptions &options;
  Clock::time_point start;
  Configuration defaultConfig;
  std::unique_ptr<TuningVariant> defaultVariant;
  double defaultMs = 0, bestMs = 0;
  double pendingMs = std::numeric_limits<double>::infinity();
  unsigned repeat = 1;
  std::vector<double> bestAfter;
  std::map<Configuration, double> table;
  /// The longest evaluation so far (the default's measurement included),
  /// the search's estimate of the next one.
  double slowestEvaluation = 0;
  /// Seconds each candidate took to compile (TuningTarget::prepare).
  std::map<Configuration, double> prepareSeconds;
};
} // namespace

llvm::Expected<TunerResult>
comprehend::runtime::tune(const SearchSpace &space, TuningTarget &target,
                          const TunerOptions &options) {
  Configuration defaults = space.getDefault();
  if (std::optional<std::string> reason = space.checkLegal(defaults))
    return makeInputError("the default configuration is illegal: " + *reason);
  TuningRun run(target, options);
  if (llvm::Error error = run.measureDefault(defaults))
    return makeDeviceError("the default configuration (" +
                           formatConfiguration(defaults) +
                           ") failed: " + llvm::toString(std::move(error)));

  SearchOptions search = options.search;
  if (run.budget() > 0)
    // Never 0, which would mean no limit: a budget spent on the default
    // leaves the search none.
    search.timeBudgetSeconds = std::max(
        1e-9, run.budget() * (1 - options.confirmShare) - run.elapsed());
  search.expectedEvaluationSeconds = [&] { return run.slowestEvaluation; };
  EvaluateFn evaluate = [&](const Configuration &config) {
    return run.evaluate(config);
  };
  CheckFn check = [&](const Configuration &config) {
    return run.check(config);
  };
  llvm::Expected<SearchResult> found =
      options.exhaustive ? runExhaustiveSearch(space, evaluate, check, search,
                                               options.exhaustiveLimit)
                         : runGeneticSearch(space, evaluate, check, search);
  if (!found)
    return found.takeError();

  TunerResult result;
  result.search = std::move(*found);
  result.repeat = run.repeat;
  result.bestAfter = std::move(run.bestAfter);
  result.table = run.table;

  // Finalists: the fastest candidates that measured faster than the
  // default. One that measured slower would need the confirmation rounds
  // to reverse the order by more than their margin, and a far slower one
  // (a hopeless probe) costs its slowness in every round.
  std::vector<Configuration> configs = {defaults};
  for (const auto &[config, ms] : result.search.measured)
    if (config != defaults && configs.size() <= options.numFinalists &&
        ms < run.defaultMs)
      configs.push_back(config);
  result.search.best = defaults;
  result.search.bestMs = result.search.defaultMs;
  size_t fasterThanDefault = configs.size() - 1;
  if (options.maxConfirmRounds > 0)
    run.fitFinalists(configs);
  if (fasterThanDefault > 0 && configs.size() == 1) {
    result.verdict = "the default kept: no time left to confirm the " +
                     std::to_string(fasterThanDefault) +
                     " candidates that measured faster";
  } else if (configs.size() == 1) {
    result.verdict = result.search.measured.size() > 1
                         ? "the default kept: no candidate measured faster"
                         : "no candidate other than the default ran correctly";
  } else if (options.maxConfirmRounds == 0) {
    result.search.best = configs[1];
    result.search.bestMs = result.search.measured.front().second;
    result.improved = result.search.bestMs < result.search.defaultMs;
    result.verdict = "not confirmed (no confirmation rounds)";
  } else {
    result.finalists = run.confirm(configs, result.confirmRounds);
    const Finalist &baseline = result.finalists.front();
    result.search.defaultMs = baseline.medianMs;
    result.search.bestMs = baseline.medianMs;
    const Finalist *winner = nullptr;
    for (const Finalist &finalist : llvm::drop_begin(result.finalists))
      if (!winner || finalist.medianRatio < winner->medianRatio)
        winner = &finalist;
    double margin = std::max(options.minMargin, winner ? winner->spread : 0);
    std::string ratio;
    if (winner) {
      llvm::raw_string_ostream os(ratio);
      os << llvm::format("%.3f", winner->medianRatio)
         << " of the default's time (margin " << llvm::format("%.3f", margin)
         << ", " << result.confirmRounds << " rounds)";
    }
    if (winner && winner->medianRatio < 1 - margin) {
      result.improved = true;
      result.search.best = winner->config;
      // The confirmed gain, applied to the default's confirmed time.
      result.search.bestMs = baseline.medianMs * winner->medianRatio;
      result.verdict = "confirmed: " + ratio;
    } else {
      result.verdict = winner
                           ? "the default kept: the best finalist took " + ratio
                           : "the default kept: no finalist ran";
    }
  }
  result.elapsedSeconds = run.elapsed();
  return result;
}

SearchQuality comprehend::runtime::measureSearchQuality(
    const SearchSpace &space, const std::map<Configuration, double> &table,
    unsigned numSeeds, const SearchOptions &base) {
  SearchQuality quality;
  quality.numPoints = table.size();
  quality.numSeeds = numSeeds;
  if (table.empty())
    return quality;
  quality.bestMs = std::numeric_limits<double>::infinity();
  for (const auto &[config, ms] : table)
    quality.bestMs = std::min(quality.bestMs, ms);
  quality.evaluations =
      std::max(1u, unsigned(std::ceil(0.1 * double(table.size()))));
  unsigned reached = 0;
  for (unsigned seed = 0; seed < numSeeds; ++seed) {
    SearchOptions options = base;
    options.seed = seed;
    options.timeBudgetSeconds = 0;
    options.progress = nullptr;
    options.seeds.clear();
    options.maxEvaluations = table.size();
    std::vector<double> bestAfter;
    double best = std::numeric_limits<double>::infinity();
    // Points outside the table (failed or wrong when measured) fail again.
    EvaluateFn lookup =
        [&](const Configuration &config) -> llvm::Expected<double> {
      auto it = table.find(config);
      if (it == table.end()) {
        bestAfter.push_back(best);
        return makeDeviceError("not measured");
      }
      best = std::min(best, it->second);
      bestAfter.push_back(best);
      return it->second;
    };
    llvm::Expected<SearchResult> result =
        runGeneticSearch(space, lookup, nullptr, options);
    if (!result) {
      llvm::consumeError(result.takeError());
      continue;
    }
    double within = bestAfter.empty()
                        ? std::numeric_limits<double>::infinity()
                        : bestAfter[std::min<size_t>(quality.evaluations,
                                                     bestAfter.size()) -
                                    1];
    quality.qualities.push_back(quality.bestMs / within);
    unsigned to95 = 0;
    for (size_t i = 0; i < bestAfter.size(); ++i)
      if (quality.bestMs / bestAfter[i] >= 0.95) {
        to95 = unsigned(i + 1);
        break;
      }
    quality.evaluationsTo95.push_back(to95);
    if (quality.qualities.back() >= 0.95)
      ++reached;
  }
  if (!quality.qualities.empty()) {
    quality.medianQuality = median(quality.qualities);
    quality.shareAt95 = double(reached) / double(quality.qualities.size());
  }
  return quality;
}
