//===- TcTuneCommand.cpp - `comprehend tune` of a TC def ------------------===//
//
// Tunes one def at the --sizes given (api::tuneTc), prints the default and
// best times, the speed-up and the configuration, and files the best one in
// the tuning cache, where `comprehend run` and api::TcKernel find it.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"
#include "TcInput.h"

#include "comprehend/api/TcTuner.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::runtime;

namespace comprehend::tools {

int tuneTcFile() {
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
  if (!runtime) {
    ErrorKind kind =
        reportError(runtime.takeError(), llvm::errs(), "comprehend tune");
    return kind == ErrorKind::Input ? ExitInvalidInput : ExitRuntime;
  }
  api::TcTuneOptions options;
  options.search.maxEvaluations = Evals;
  options.search.timeBudgetSeconds = Budget;
  if (!Evals && Budget <= 0)
    options.search.maxEvaluations = 40;
  options.search.seed = 1;
  options.search.progress = &llvm::errs();
  options.repeat = std::max(1u, unsigned(Repeat));
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  auto result =
      api::tuneTc(**runtime, *input.program, *def, sizes, input.diags, options);
  if (!result) {
    if (input.diags.hasErrors()) {
      llvm::consumeError(result.takeError());
      return ExitInvalidInput;
    }
    ErrorKind kind =
        reportError(result.takeError(), llvm::errs(), "comprehend tune");
    return kind == ErrorKind::Input ? ExitInvalidInput : ExitRuntime;
  }
  const SearchResult &search = result->search;
  llvm::StringRef entry = def->getName().name;
  const DeviceInfo &device = (*runtime)->getDevice().getInfo();
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      json.attribute("entry", entry);
      json.attribute("device", device.name);
      json.attribute("runs", int64_t(options.repeat));
      json.attribute("median_ms", search.bestMs);
      json.attribute("default_ms", search.defaultMs);
      json.attribute("speedup", search.getSpeedup());
      json.attribute("config", toJSON(search.best));
      json.attribute("default_config", toJSON(search.defaultConfig));
      json.attribute("evaluations", int64_t(search.numEvaluations));
      json.attribute("failed", int64_t(search.numFailed));
      json.attribute("wrong", int64_t(search.numWrong));
      json.attribute("cache", result->cachePath.empty()
                                  ? llvm::json::Value(nullptr)
                                  : llvm::json::Value(result->cachePath));
    });
    llvm::outs() << "\n";
    return ExitSuccess;
  }
  llvm::outs() << "'" << entry << "' on " << device.name << ": default "
               << llvm::format("%.4f", search.defaultMs) << " ms, best "
               << llvm::format("%.4f", search.bestMs) << " ms, speed-up "
               << llvm::format("%.2f", search.getSpeedup()) << "x ("
               << search.numEvaluations << " candidates, " << search.numFailed
               << " failed, " << search.numWrong << " wrong)\n";
  if (search.best == search.defaultConfig)
    llvm::outs() << "the default configuration is already the best found\n";
  llvm::outs() << "config: " << formatConfiguration(search.best) << "\n";
  if (!result->cachePath.empty())
    llvm::outs() << "cached in " << result->cachePath << "\n";
  return ExitSuccess;
}

} // namespace comprehend::tools
