//===- TuningSearch.h - Genetic search over a search space ------*- C++ -*-===//
//
// The search treats a kernel as a black box: `evaluate(config)` compiles and
// times one configuration and returns its time in milliseconds (or an error,
// which drops the candidate). An optional `check(config)` compares the
// candidate's outputs with the default variant's on the same inputs; a
// candidate that fails it is dropped however fast it is.
//
// The strategy follows TC's genetic autotuner: the population is seeded with
// the default configuration and random legal ones; each generation keeps the
// `numElites` fastest unchanged and fills the rest with children of parents
// drawn by roulette selection on fitness 1/time (uniform crossover of three
// parents with probability `crossoverRate`, otherwise a copy), each
// parameter of a child re-drawn with probability `mutationRate`. Every
// configuration is evaluated at most once; the search stops at the
// evaluation budget, the time budget, or when it cannot find new legal
// configurations. With the same seed and a deterministic evaluator it makes
// the same choices.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNINGSEARCH_H
#define COMPREHEND_RUNTIME_TUNINGSEARCH_H

#include "comprehend/runtime/TuningSpace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace comprehend::runtime {

/// Compiles and times one configuration; returns milliseconds.
using EvaluateFn = std::function<llvm::Expected<double>(const Configuration &)>;
/// Checks a candidate's outputs against the default variant's on the same
/// inputs; an error (describing the mismatch) drops the candidate. Called
/// after a successful evaluate of the same configuration, never for the
/// default itself.
using CheckFn = std::function<llvm::Error(const Configuration &)>;

struct SearchOptions {
  unsigned populationSize = 16;
  /// The fastest candidates carried unchanged into the next generation
  /// (capped at half the population).
  unsigned numElites = 2;
  /// Probability that a child is a crossover of three parents.
  double crossoverRate = 0.8;
  /// Probability that each parameter of a child is re-drawn.
  double mutationRate = 0.15;
  uint64_t seed = 0;
  /// At most this many evaluate() calls (the default's included); 0: no
  /// limit.
  unsigned maxEvaluations = 100;
  /// Stop starting evaluations after this many seconds; 0: no limit.
  double timeBudgetSeconds = 0;
  /// Seconds one more evaluation is expected to take (compiling, the first
  /// launch and the timed ones). With a time budget the search starts none
  /// that would end after it; null: only the time already spent counts.
  std::function<double()> expectedEvaluationSeconds;
  /// Configurations evaluated right after the default (e.g. the best one of
  /// an earlier run, from the tuning cache); illegal ones are skipped.
  std::vector<Configuration> seeds;
  /// Where to draw the progress bar (one `\r`-rewritten line); null: none.
  llvm::raw_ostream *progress = nullptr;
};

struct SearchResult {
  Configuration best;
  double bestMs = 0;
  Configuration defaultConfig;
  double defaultMs = 0;
  /// evaluate() calls, and how many of them failed or were rejected by the
  /// correctness check.
  unsigned numEvaluations = 0;
  unsigned numFailed = 0;
  unsigned numWrong = 0;
  /// What the check said of each rejected candidate: a candidate that runs
  /// but computes other outputs than the default is a compiler bug, which
  /// the user should hear of rather than only count.
  std::vector<std::string> wrongCandidates;
  /// Every configuration that ran and passed the check (the default
  /// included), fastest first, with its time.
  std::vector<std::pair<Configuration, double>> measured;

  double getSpeedup() const { return bestMs > 0 ? defaultMs / bestMs : 1; }
};

/// Runs the genetic search. Fails if the space's default is illegal or if
/// evaluating the default fails (there is nothing to compare with).
llvm::Expected<SearchResult> runGeneticSearch(const SearchSpace &space,
                                              const EvaluateFn &evaluate,
                                              const CheckFn &check,
                                              const SearchOptions &options);

/// The baseline: the default plus uniformly drawn legal configurations, on
/// the same budgets, checks and progress output as runGeneticSearch.
llvm::Expected<SearchResult> runRandomSearch(const SearchSpace &space,
                                             const EvaluateFn &evaluate,
                                             const CheckFn &check,
                                             const SearchOptions &options);

/// Every legal point (the default first, then the others in the space's
/// order), on the same budgets, checks and progress output; an input error
/// when the space has more than `limit` points.
llvm::Expected<SearchResult> runExhaustiveSearch(const SearchSpace &space,
                                                 const EvaluateFn &evaluate,
                                                 const CheckFn &check,
                                                 const SearchOptions &options,
                                                 uint64_t limit = 4096);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNINGSEARCH_H
