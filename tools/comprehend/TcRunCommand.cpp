//===- TcRunCommand.cpp - `comprehend run` of a Tensor Comprehensions def -===//
//
// Runs one TC def on the device (bindTcArguments, api::TcKernel,
// runTcKernel; TcRun.h describes the steps): flags in, the median
// kernel time, the --check verdict and the files written out.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "RunReport.h"
#include "TcInput.h"
#include "TcRun.h"

#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace comprehend::tools {

/// `run` warns when a cached configuration's median exceeds the default's
/// time recorded at tuning by more than this factor (timings on a shared
/// machine vary by a few percent).
static constexpr double kSlowCachedMargin = 1.1;

static int failRun(llvm::Error error, const DiagnosticEngine &diags) {
  // Diagnostics were printed already.
  if (diags.hasErrors()) {
    llvm::consumeError(std::move(error));
    return ExitInvalidInput;
  }
  return reportFailure(std::move(error), "run");
}

/// Prints what `run` of a TC def measured, as text or JSON (--json).
static void printTcRun(const api::TcKernel &kernel, const tc::Def &def,
                       const TcArguments &arguments, const TcRunResult &result,
                       StringRef device) {
  const Timing &timing = result.timing;
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      tools::writeRunTiming(json, kernel.getEntryName(), device, timing);
      json.attributeObject("sizes", [&] {
        for (const std::string &var : def.getSizeVars())
          json.attribute(var, arguments.sizes.lookup(var));
      });
      json.attributeArray("kernels", [&] {
        for (const tc::LoweredKernel &launch : kernel.getLoweredDef().kernels)
          json.object([&] {
            json.attribute("name", launch.function->getName());
            json.attributeArray("grid", [&] {
              for (int64_t size : launch.grid)
                json.value(size);
            });
          });
      });
      json.attribute("config", toJSON(kernel.getConfig()));
      json.attribute("config_source",
                     getConfigSourceName(kernel.getConfigSource()));
      if (result.maxError) {
        // JSON has no infinity; null marks an output left poisoned.
        if (std::isfinite(*result.maxError))
          json.attribute("max_rel_error", *result.maxError);
        else
          json.attribute("max_rel_error", nullptr);
        json.attribute("tolerance", result.tolerance);
        json.attribute("reference_ms", result.referenceMs);
      }
      tools::writeRunOutputs(json, result.written);
    });
    llvm::outs() << "\n";
    return;
  }
  tools::printRunTiming(("'" + kernel.getEntryName() + "'").str(), device,
                        timing);
  llvm::interleave(
      def.getSizeVars(), llvm::outs(),
      [&](const std::string &var) {
        llvm::outs() << var << "=" << arguments.sizes.lookup(var);
      },
      ", ");
  llvm::outs() << ")\n";
  if (result.maxError)
    llvm::outs() << "max relative error "
                 << llvm::format("%.3e", *result.maxError) << " (tolerance "
                 << llvm::format("%.0e", result.tolerance)
                 << "); reference evaluator "
                 << llvm::format("%.1f", result.referenceMs) << " ms\n";
  tools::printRunOutputs(result.written);
}

int runTcFile() {
  for (const std::string &arg : Args)
    if (!StringRef(arg).contains('=') ||
        StringRef(arg).split('=').first.trim().empty()) {
      llvm::errs() << "comprehend run: --arg '" << arg
                   << "' must be NAME=FILE.npy\n";
      return ExitUsage;
    }
  if (!Grid.empty()) {
    llvm::errs() << "comprehend run: --grid is for .ir files; for .tc the "
                    "grid follows from the sizes\n";
    return ExitUsage;
  }
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/true))
    return code;
  const tc::Def *def = nullptr;
  llvm::StringMap<int64_t> fixed;
  if (int code = selectTcEntry("run", *input.program, def, fixed))
    return code;
  auto arguments = bindTcArguments(*def, fixed, Args);
  if (!arguments)
    return failRun(arguments.takeError(), input.diags);

  auto runtime = [&] {
    llvm::TimeTraceScope scope("open the device");
    return Runtime::create(Device);
  }();
  if (!runtime)
    return failRun(runtime.takeError(), input.diags);
  api::TcKernelOptions options;
  if (int code = getConfigOption("run", options.config))
    return code;
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  auto kernel = [&] {
    llvm::TimeTraceScope scope("compile the def (all of it)");
    return api::TcKernel::compile(**runtime, *input.program, *def,
                                  arguments->sizes, input.diags, options);
  }();
  if (!kernel)
    return failRun(kernel.takeError(), input.diags);
  bool fromCache =
      (*kernel)->getConfigSource() == api::ConfigSource::TuningCache;
  if (fromCache)
    llvm::errs() << "using the tuned configuration "
                 << formatConfiguration((*kernel)->getConfig())
                 << " from the tuning cache\n";
  TcRunOptions runOptions;
  runOptions.repeat = std::max(1u, unsigned(Repeat));
  runOptions.check = Check;
  runOptions.outDir = OutDir;
  // PoCL generates the kernels' machine code at their first launch.
  auto result = [&] {
    llvm::TimeTraceScope scope("run (first launch: device codegen)");
    return runTcKernel(**kernel, *input.program, *def, *arguments, input.diags,
                       runOptions);
  }();
  if (!result)
    return failRun(result.takeError(), input.diags);

  // A tuned configuration that now runs slower than the default did when
  // it was tuned: another machine, another driver, or a loaded one.
  double medianMs = result->timing.getMedianKernelMs();
  double cachedDefaultMs = (*kernel)->getCachedDefaultMs();
  if (fromCache && cachedDefaultMs > 0 &&
      medianMs > kSlowCachedMargin * cachedDefaultMs)
    llvm::errs() << "warning: the tuned configuration ran in "
                 << llvm::format("%.4f", medianMs)
                 << " ms, slower than the default's "
                 << llvm::format("%.4f", cachedDefaultMs)
                 << " ms when it was tuned; if the machine is not busy, "
                    "tune again ('comprehend tune')\n";
  printTcRun(**kernel, *def, *arguments, *result,
             (*runtime)->getDevice().getInfo().name);
  if (result->maxError && *result->maxError > result->tolerance) {
    llvm::errs() << "comprehend run: error: '" << result->worstTensor
                 << "' differs from the reference evaluator: max relative "
                    "error "
                 << llvm::format("%.3e", *result->maxError)
                 << " above tolerance "
                 << llvm::format("%.0e", result->tolerance) << "\n";
    return ExitInvalidInput;
  }
  return ExitSuccess;
}

} // namespace comprehend::tools
