//===- Tuner.h - Measuring, confirming and choosing configurations -*- C++
//-*-===//
//
// The measurement protocol of the autotuner, shared by every kind of kernel
// (a TC def, an .ir function): the kernel is a TuningTarget that compiles a
// configuration into a TuningVariant, checks its outputs and times its
// launches; `tune` decides how often to launch, drives the search
// (TuningSearch.h) within the time budget, times the finalists again beside
// the default and picks the answer.
//
// Budget. With a time budget B, the search may start candidates during the
// first (1 - confirmShare) * B seconds, the rest is kept for confirmation;
// the default is timed with as many launches as fit in 5 % of B (at least
// one, at most `repeat`); a candidate whose first launch is more than
// `hopeless` times slower than the best so far is not timed further; a
// candidate's launches are capped by the time left. So a run ends within B
// plus the launches already under way when the time runs out.
//
// Confirmation. The finalists (the fastest candidates) and the default are
// timed again in alternating rounds, so a burst of load hits them alike.
// Each round gives a finalist's time relative to the default's in that
// round; a finalist wins only when the median of those ratios is below
// 1 - margin, where the margin is the larger of `minMargin` and the spread
// (half the range) of the ratios. Otherwise the default is the answer: a
// configuration that does not reproduce a clear gain is never stored.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_TUNER_H
#define COMPREHEND_RUNTIME_TUNER_H

#include "comprehend/runtime/TuningSearch.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace comprehend::runtime {

/// One compiled configuration whose outputs were computed once.
class TuningVariant {
public:
  virtual ~TuningVariant();
  /// Launches `count` times on the inputs in place; returns each launch's
  /// kernel time in milliseconds (summed over the kernel's launches when a
  /// configuration is several kernels).
  virtual llvm::Expected<std::vector<double>> time(unsigned count) = 0;
};

/// A kernel as the tuner sees it.
class TuningTarget {
public:
  virtual ~TuningTarget();
  /// Compiles `config` and runs it once from poisoned outputs on the shared
  /// inputs (the warm-up, which also triggers a driver's just-in-time
  /// compile). The first call is for the default; its outputs are the
  /// reference of `check`.
  virtual llvm::Expected<std::unique_ptr<TuningVariant>>
  prepare(const Configuration &config) = 0;
  /// Compares the outputs of the variant prepared last with the reference;
  /// an error describes the difference.
  virtual llvm::Error check(const Configuration &config) = 0;
};

struct TunerOptions {
  /// Budgets (evaluations, seconds), seed, seeds and progress output.
  SearchOptions search;
  /// Timed launches per measurement, at most.
  unsigned repeat = 10;
  /// A candidate whose first launch is this much slower than the best so
  /// far is not timed further.
  double hopeless = 4;
  /// Finalists timed again beside the default, and the rounds for that.
  unsigned numFinalists = 3;
  unsigned minConfirmRounds = 2;
  unsigned maxConfirmRounds = 5;
  /// The part of a time budget kept for confirmation.
  double confirmShare = 0.2;
  /// The smallest gain over the default that can win.
  double minMargin = 0.02;
  /// Evaluate every legal point (spaces of at most `exhaustiveLimit`
  /// points) instead of searching; the budgets still apply.
  bool exhaustive = false;
  uint64_t exhaustiveLimit = 4096;
  /// When the budget started (e.g. before the caller compiled the default
  /// to build the space); unset: when `tune` is called.
  std::optional<std::chrono::steady_clock::time_point> start;
};

/// A finalist's times in the confirmation rounds.
struct Finalist {
  Configuration config;
  /// Median time of each round (ms).
  std::vector<double> roundMs;
  /// The finalist's time over the default's, per round.
  std::vector<double> ratios;
  /// Median of roundMs, of ratios; and half the range of ratios.
  double medianMs = 0;
  double medianRatio = 1;
  double spread = 0;
};

struct TunerResult {
  /// The search; `best`/`bestMs` are the answer after confirmation (the
  /// default unless a finalist won), `defaultMs` the default's confirmed
  /// time.
  SearchResult search;
  /// The default first, then the other finalists (empty without
  /// confirmation).
  std::vector<Finalist> finalists;
  unsigned confirmRounds = 0;
  /// Whether a configuration other than the default won the confirmation.
  bool improved = false;
  /// Why the answer is what it is, for people.
  std::string verdict;
  /// Timed launches per measurement after fitting the budget.
  unsigned repeat = 0;
  double elapsedSeconds = 0;
  /// The fastest candidate time seen after each evaluation, in order (for
  /// the search-quality report); failed and wrong candidates repeat the
  /// previous value.
  std::vector<double> bestAfter;
  /// Every measured configuration and its time (the search's table).
  std::map<Configuration, double> table;
};

/// Tunes `target` over `space`. Fails when the default is illegal or fails
/// to compile or run.
llvm::Expected<TunerResult> tune(const SearchSpace &space, TuningTarget &target,
                                 const TunerOptions &options);

/// How well the genetic search finds the best point of a fully measured
/// space: the search is replayed on the measured times for several seeds.
struct SearchQuality {
  /// Measured legal points and the best time among them.
  unsigned numPoints = 0;
  double bestMs = 0;
  /// Evaluations allowed per replay (10 % of the points, at least 1).
  unsigned evaluations = 0;
  unsigned numSeeds = 0;
  /// Per seed: best time / the time found within `evaluations`.
  std::vector<double> qualities;
  /// Median of qualities; the share of seeds reaching 95 % of the best.
  double medianQuality = 0;
  double shareAt95 = 0;
  /// Per seed: evaluations until 95 % of the best was reached (0 if never,
  /// within the whole space).
  std::vector<unsigned> evaluationsTo95;
};

/// Replays the genetic search over `table` (every legal point of `space`
/// with its time) with `numSeeds` seeds.
SearchQuality measureSearchQuality(const SearchSpace &space,
                                   const std::map<Configuration, double> &table,
                                   unsigned numSeeds,
                                   const SearchOptions &base = {});

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_TUNER_H
