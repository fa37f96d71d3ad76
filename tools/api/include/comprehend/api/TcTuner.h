//===- TcTuner.h - Autotuning one TC def ------------------------*- C++ -*-===//
//
// Tunes one TC def at concrete sizes on a runtime's device: the search space
// comes from TcTuning.h, each candidate is lowered and compiled with its
// configuration, run once from poisoned outputs on the same random inputs as
// the default variant (the warm-up, which also triggers the driver's
// just-in-time compile), compared with the default's outputs, then timed
// with profiling events. Budgets, launch counts and the confirmation that
// decides between the finalists and the default are runtime::tune's
// (runtime/Tuner.h). The answer — the default unless a finalist confirmed a
// clear gain — is stored in the tuning cache, where TcKernel and
// `comprehend run` find it.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TCTUNER_H
#define COMPREHEND_API_TCTUNER_H

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Tuner.h"

namespace comprehend::api {

struct TcTuneOptions {
  /// Budgets, launches per timing, confirmation and the search's options.
  runtime::TunerOptions tuner;
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
  runtime::TunerResult tuning;
  /// The space that was searched.
  runtime::SearchSpace space;
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
