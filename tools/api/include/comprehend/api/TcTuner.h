//===- TcTuner.h - Autotuning one TC def ------------------------*- C++ -*-===//
//
// Tunes one TC def at concrete sizes on a runtime's device: the search space
// comes from TcTuning.h, each candidate is lowered and compiled with its
// configuration, run once from poisoned outputs on the same random inputs as
// the default variant (the warm-up, which also triggers the driver's
// just-in-time compile), compared with the default's outputs, then timed
// with profiling events (median of `repeat` launches). The fastest few are
// timed again beside the default to discount lucky measurements. The best
// configuration is stored in the tuning cache, where TcKernel and
// `comprehend run` find it.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TCTUNER_H
#define COMPREHEND_API_TCTUNER_H

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/TuningSearch.h"

namespace comprehend::api {

struct TcTuneOptions {
  /// Budgets, seed and progress output of the genetic search.
  runtime::SearchOptions search;
  /// Timed launches per candidate (after one warm-up launch).
  unsigned repeat = 10;
  /// After the search, the `numFinalists` fastest candidates and the default
  /// are timed again `confirmRounds` times each, in alternation; those times
  /// pick the winner and are the ones reported. 0 rounds: no confirmation.
  unsigned numFinalists = 3;
  unsigned confirmRounds = 3;
  /// The tuning cache; empty: runtime::TuningCache::getDefaultPath().
  std::string cachePath;
  /// Seed the search with the cached configuration and store the best one.
  bool useCache = true;
  /// Where cache warnings go; null: dropped.
  llvm::raw_ostream *warnings = nullptr;
  /// Base options every candidate refines.
  tc::LoweringOptions lowering;
  backend::CompileOptions compile;
};

struct TcTuneResult {
  runtime::SearchResult search;
  runtime::TuningKey key;
  /// The cache file the result went to; empty when it was not stored.
  std::string cachePath;
};

/// Tunes `def` of `program` at `sizes`. Diagnostics of the def go to
/// `diags` (the result is then an input error); a failure of the default
/// variant is returned, failing candidates are only counted.
llvm::Expected<TcTuneResult>
tuneTc(runtime::Runtime &runtime, const tc::Program &program,
       const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
       DiagnosticEngine &diags, const TcTuneOptions &options = {});

/// Whether two outputs agree: floats within a relative 1e-3 (another work
/// split may reorder a sum), NaN only where the other has NaN; integers
/// bit-exact.
bool sameOutputs(runtime::DType dtype, llvm::ArrayRef<unsigned char> a,
                 llvm::ArrayRef<unsigned char> b);

} // namespace comprehend::api

#endif // COMPREHEND_API_TCTUNER_H
