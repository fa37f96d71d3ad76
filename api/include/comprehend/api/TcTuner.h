//===- TcTuner.h - Autotuning one TC def ------------------------*- C++ -*-===//
//
// Tunes one TC def at concrete sizes on a runtime's device: the default
// variant is compiled (its diagnostics are the user's), then tuned by the
// tuner of both languages (Tuner.h) on random inputs.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TCTUNER_H
#define COMPREHEND_API_TCTUNER_H

#include "comprehend/api/TcKernel.h"
#include "comprehend/api/Tuner.h"

namespace comprehend::api {

struct TcTuneOptions : TuneOptions {
  /// Base options every candidate refines.
  tc::LoweringOptions lowering;
  backend::CompileOptions compile;
};

using TcTuneResult = TuneResult;

/// Tunes `def` of `program` at `sizes`. Diagnostics of the def go to
/// `diags` (the result is then an input error); a failure of the default
/// variant is returned, failing candidates are only counted. A result that
/// could not be stored is a warning on `options.warnings`.
llvm::Expected<TcTuneResult>
tuneTc(runtime::Runtime &runtime, const tc::Program &program,
       const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
       DiagnosticEngine &diags, const TcTuneOptions &options = {});

} // namespace comprehend::api

#endif // COMPREHEND_API_TCTUNER_H
