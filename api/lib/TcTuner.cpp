//===- TcTuner.cpp - Autotuning one TC def --------------------------------===//
#include "comprehend/api/TcTuner.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace comprehend;
using namespace comprehend::api;

llvm::Expected<TcTuneResult>
api::tuneTc(runtime::Runtime &runtime, const tc::Program &program,
            const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
            DiagnosticEngine &diags, const TcTuneOptions &options) {
  auto start = std::chrono::steady_clock::now();
  TcKernelOptions kernelOptions;
  kernelOptions.useTuningCache = false;
  kernelOptions.lowering = options.lowering;
  kernelOptions.compile = options.compile;
  auto kernel =
      TcKernel::compile(runtime, program, def, sizes, diags, kernelOptions);
  if (!kernel)
    return kernel.takeError();
  TuneOptions tuneOptions = options;
  if (!tuneOptions.tuner.start)
    tuneOptions.tuner.start = start;
  auto result = tuneKernel(**kernel, tuneOptions);
  if (result && !result->cacheError.empty() && options.warnings)
    *options.warnings << "warning: " << result->cacheError << "\n";
  return result;
}
