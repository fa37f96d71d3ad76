//===- Tuner.h - Autotuning a kernel of either language ---------*- C++ -*-===//
//
// One tuner for TC defs and tensor-language functions alike: the search
// space is the kernel's (Kernel::getSearchSpace), each candidate is the
// kernel recompiled with its configuration, run once from poisoned outputs
// on the same inputs as the default (the warm-up, which also triggers the
// driver's just-in-time compile), compared with the default's outputs, then
// timed with profiling events. Budgets, launch counts and the confirmation
// that decides between the finalists and the default are runtime::tune's
// (runtime/Tuner.h). The answer — the default unless a finalist confirmed a
// clear gain — is stored in the tuning cache under the kernel's key, where
// the kernel classes and `comprehend run` find it.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TUNER_H
#define COMPREHEND_API_TUNER_H

#include "comprehend/api/Kernel.h"
#include "comprehend/runtime/Tuner.h"

namespace comprehend::api {

struct TuneOptions {
  /// Budgets, launches per timing, confirmation and the search's options
  /// (`tuner.start`: when the budget started, e.g. before the default was
  /// compiled).
  runtime::TunerOptions tuner;
  /// The tuning cache; empty: runtime::TuningCache::getDefaultPath().
  std::string cachePath;
  /// Seed the search with the cached configuration and store the best one.
  bool useCache = true;
  /// Where warnings of a corrupt cache file go; null: dropped.
  llvm::raw_ostream *warnings = nullptr;
};

struct TuneResult {
  runtime::TunerResult tuning;
  /// The space that was searched.
  runtime::SearchSpace space;
  runtime::TuningKey key;
  /// The cache file the result went to; empty when it was not stored.
  std::string cachePath;
  /// Why the result could not be stored (the cache is a convenience: the
  /// caller warns); empty when it was stored or not meant to be.
  std::string cacheError;
};

/// Tunes `kernel`, compiled with its default configuration. A failure of
/// the default is returned; failing candidates are only counted.
llvm::Expected<TuneResult> tuneKernel(Kernel &kernel,
                                      const TuneOptions &options = {});

} // namespace comprehend::api

#endif // COMPREHEND_API_TUNER_H
