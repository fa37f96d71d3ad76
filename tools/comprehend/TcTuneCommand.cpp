//===- TcTuneCommand.cpp - `comprehend tune` of a TC def ------------------===//
//
// Tunes one def at the --sizes given (api::tuneTc), prints the default and
// best times, the speed-up, the verdict of the confirmation and the
// configuration, and files the answer in the tuning cache, where
// `comprehend run` and api::TcKernel find it.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "TcInput.h"
#include "TuneReport.h"

#include "comprehend/api/TcTuner.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace comprehend;
using namespace comprehend::runtime;

namespace comprehend::tools {

int tuneTcFile() {
  // --budget counts from here: reading the def, inferring its ranges and
  // opening the device are part of what the user waits for.
  auto start = std::chrono::steady_clock::now();
  if (!Args.empty() || !Grid.empty() || !OutDir.empty()) {
    llvm::errs() << "comprehend tune: --arg, --grid and --out are not used "
                    "for .tc files; the def is tuned on random inputs at "
                    "--sizes\n";
    return ExitUsage;
  }
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/true))
    return code;
  const tc::Def *def = nullptr;
  llvm::StringMap<int64_t> sizes;
  if (int code = selectTcEntry("tune", *input.program, def, sizes))
    return code;
  for (const std::string &var : def->getSizeVars())
    if (!sizes.count(var)) {
      llvm::errs() << "comprehend tune: error: size '" << var
                   << "' is unknown; give every size with --sizes\n";
      return ExitInvalidInput;
    }

  auto runtime = Runtime::create(Device);
  if (!runtime)
    return reportFailure(runtime.takeError(), "tune");
  api::TcTuneOptions options;
  options.tuner = getTunerOptions();
  options.tuner.start = start;
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  auto result =
      api::tuneTc(**runtime, *input.program, *def, sizes, input.diags, options);
  if (!result) {
    if (input.diags.hasErrors()) {
      llvm::consumeError(result.takeError());
      return ExitInvalidInput;
    }
    return reportFailure(result.takeError(), "tune");
  }
  std::string entry = def->getName().name.str();
  printTuneReport(entry, "'" + entry + "'",
                  (*runtime)->getDevice().getInfo().name, result->space,
                  result->tuning, result->cachePath);
  return ExitSuccess;
}

} // namespace comprehend::tools
