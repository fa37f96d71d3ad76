//===- RuntimeCommands.cpp - run, tune and devices ------------------------===//
//
// `devices` lists the OpenCL and CUDA devices and their core info; `run`
// compiles a tensor-language file for the selected device (api::IrKernel: every
// parameter bound from --arg, else random), launches the entry over --grid
// work-groups, prints the median kernel time and writes the memref
// arguments back as .npy files. Exit codes: 1 for bad input (diagnostics,
// missing or mismatched arguments), 2 for usage, 3 for device/runtime
// failures. `tune` searches the launch knobs of an entry with the tuner of
// both languages (api::tuneKernel, docs/tuning.md) and caches the answer.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "RunReport.h"
#include "TuneReport.h"

#include "comprehend/api/IrKernel.h"
#include "comprehend/api/Tuner.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace comprehend::tools {

//===----------------------------------------------------------------------===//
// devices
//===----------------------------------------------------------------------===//

int runDevices() {
  auto devices = listDevices();
  if (!devices)
    return reportFailure(devices.takeError(), "devices");
  std::vector<const runtime::Device *> shown;
  if (Device.empty()) {
    for (const runtime::Device &device : *devices)
      shown.push_back(&device);
  } else {
    auto selected = selectDevice(Device);
    if (!selected)
      return reportFailure(selected.takeError(), "devices");
    shown.push_back(&(*devices)[selected->getInfo().index]);
  }
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      json.attributeArray("devices", [&] {
        for (const runtime::Device *device : shown)
          writeDeviceJson(json, device->getInfo());
      });
    });
    llvm::outs() << "\n";
    return ExitSuccess;
  }
  if (shown.empty())
    llvm::outs() << "no devices\n";
  for (const runtime::Device *device : shown)
    printDevice(llvm::outs(), device->getInfo());
  return ExitSuccess;
}

//===----------------------------------------------------------------------===//
// run
//===----------------------------------------------------------------------===//

/// Parses --grid X[,Y[,Z]].
static llvm::Expected<std::array<size_t, 3>> parseGrid(StringRef text) {
  std::array<size_t, 3> grid = {1, 1, 1};
  if (text.empty())
    return grid;
  llvm::SmallVector<StringRef, 3> parts;
  text.split(parts, ',');
  if (parts.size() > 3)
    return makeInputError("--grid takes at most three sizes, got '" + text +
                          "'");
  for (size_t i = 0; i < parts.size(); ++i) {
    uint64_t size = 0;
    if (parts[i].trim().getAsInteger(10, size) || size == 0)
      return makeInputError("--grid '" + text +
                            "' must be positive integers X[,Y[,Z]]");
    grid[i] = size;
  }
  return grid;
}

/// Checks the syntax of --grid and --arg (usage errors, exit 2).
static bool checkRunUsage() {
  for (const std::string &arg : Args) {
    StringRef name = StringRef(arg).split('=').first.trim();
    if (!StringRef(arg).contains('=') || name.empty() || name == "%") {
      llvm::errs() << "comprehend run: --arg '" << arg
                   << "' must be NAME=FILE.npy or NAME=VALUE\n";
      return false;
    }
  }
  auto grid = parseGrid(Grid);
  if (!grid) {
    llvm::errs() << "comprehend run: " << llvm::toString(grid.takeError())
                 << "\n";
    return false;
  }
  return true;
}

namespace {
/// A parsed and verified .ir input with its chosen entry.
struct IrInput {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  ir::Context ctx;
  std::unique_ptr<ir::Program> program;
  std::string entryName;
};
} // namespace

/// Parses and verifies the input file and picks the function named by
/// --entry (default: the only one). Returns the exit code on failure.
static int loadIrInput(llvm::StringRef command, IrInput &input) {
  input.diags.setWarningsAsErrors(WarningsAsErrors);
  if (failed(loadInputFile(InputFilename, input.sourceMgr)))
    return ExitInvalidInput;
  input.program =
      ir::parseSource(input.ctx, input.diags, input.sourceMgr.getMainFileID());
  if (!input.program || failed(ir::verify(*input.program, input.diags)) ||
      input.diags.hasErrors())
    return ExitInvalidInput;
  input.entryName = Entry;
  if (input.entryName.empty()) {
    if (input.program->size() != 1) {
      llvm::errs() << "comprehend " << command << ": error: '" << InputFilename
                   << "' has " << input.program->size()
                   << " functions; choose one with --entry\n";
      return ExitInvalidInput;
    }
    input.entryName = input.program->begin()->getName().str();
  } else if (!input.program->lookupFunction(input.entryName)) {
    llvm::errs() << "comprehend " << command << ": error: no function '@"
                 << input.entryName << "' in '" << InputFilename << "'\n";
    return ExitInvalidInput;
  }
  return ExitSuccess;
}

/// Compiles the entry of `input` with --arg and `options`; returns the exit
/// code on failure.
static int compileIrKernel(llvm::StringRef command, Runtime &runtime,
                           IrInput &input, std::array<size_t, 3> grid,
                           const api::IrKernelOptions &options,
                           std::unique_ptr<api::IrKernel> &kernel) {
  auto compiled = api::IrKernel::compile(runtime, *input.program, input.diags,
                                         input.entryName, grid, Args, options);
  if (!compiled) {
    // Compiler diagnostics were printed already.
    if (input.diags.hasErrors()) {
      llvm::consumeError(compiled.takeError());
      return ExitInvalidInput;
    }
    return reportFailure(compiled.takeError(), command);
  }
  kernel = std::move(*compiled);
  return ExitSuccess;
}

/// Prints what `run` of an .ir entry measured, as text or JSON (--json).
static void printIrRun(const api::IrKernel &kernel, const Timing &timing,
                       llvm::ArrayRef<std::string> written, StringRef device) {
  std::array<size_t, 3> grid = kernel.getGrid();
  const backend::KernelInfo &info = kernel.getKernelInfo();
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      tools::writeRunTiming(json, kernel.getEntryName(), device, timing);
      json.attributeArray("grid", [&] {
        for (size_t size : grid)
          json.value(static_cast<int64_t>(size));
      });
      json.attributeArray("work_group_size", [&] {
        json.value(static_cast<int64_t>(info.workGroupSize[0]));
        json.value(static_cast<int64_t>(info.workGroupSize[1]));
        json.value(int64_t(1));
      });
      tools::writeRunOutputs(json, written);
    });
    llvm::outs() << "\n";
    return;
  }
  tools::printRunTiming(("@" + kernel.getEntryName()).str(), device, timing);
  llvm::outs() << "grid " << grid[0] << "x" << grid[1] << "x" << grid[2]
               << ", work-group " << info.workGroupSize[0] << "x"
               << info.workGroupSize[1] << ")\n";
  tools::printRunOutputs(written);
}

static int runIrFile() {
  if (!checkRunUsage())
    return ExitUsage;
  auto grid = parseGrid(Grid);
  if (!grid)
    return reportFailure(grid.takeError(), "run");
  IrInput input;
  if (int code = loadIrInput("run", input))
    return code;
  auto runtime = Runtime::create(Device);
  if (!runtime)
    return reportFailure(runtime.takeError(), "run");
  // A configuration from --config, else from the tuning cache.
  api::IrKernelOptions options;
  if (int code = getConfigOption("run", options.config))
    return code;
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  options.warningPrefix = "comprehend run: warning: ";
  std::unique_ptr<api::IrKernel> kernel;
  if (int code =
          compileIrKernel("run", **runtime, input, *grid, options, kernel))
    return code;
  if (kernel->getConfigSource() == api::ConfigSource::TuningCache)
    llvm::errs() << "using the tuned configuration "
                 << formatConfiguration(kernel->getConfig())
                 << " from the tuning cache\n";

  // The first launch produces the outputs; the timed ones after it may
  // accumulate into them (beta = 1), so outputs are read before.
  auto first = kernel->run(1);
  if (!first)
    return reportFailure(first.takeError(), "run");
  std::vector<std::string> written;
  if (!OutDir.empty()) {
    auto paths = kernel->writeArrays(OutDir);
    if (!paths)
      return reportFailure(paths.takeError(), "run");
    written = std::move(*paths);
  }
  auto timing = kernel->run(std::max(1u, unsigned(Repeat)));
  if (!timing)
    return reportFailure(timing.takeError(), "run");
  printIrRun(*kernel, *timing, written, (*runtime)->getDevice().getInfo().name);
  return ExitSuccess;
}

int runRun() {
  switch (getInputLang()) {
  case InputLang::IR:
    return runIrFile();
  case InputLang::TC:
    return runTcFile();
  case InputLang::Auto:
    break;
  }
  llvm::errs() << "comprehend run: cannot tell the language of '"
               << InputFilename << "'; use --lang ir\n";
  return ExitUsage;
}

//===----------------------------------------------------------------------===//
// tune
//===----------------------------------------------------------------------===//

static int tuneIrFile() {
  // --budget counts from here, as for a .tc file.
  auto start = std::chrono::steady_clock::now();
  if (!checkRunUsage())
    return ExitUsage;
  auto grid = parseGrid(Grid);
  if (!grid)
    return reportFailure(grid.takeError(), "tune");
  IrInput input;
  if (int code = loadIrInput("tune", input))
    return code;

  auto runtime = Runtime::create(Device);
  if (!runtime)
    return reportFailure(runtime.takeError(), "tune");
  api::IrKernelOptions kernelOptions;
  kernelOptions.useTuningCache = false;
  std::unique_ptr<api::IrKernel> kernel;
  if (int code = compileIrKernel("tune", **runtime, input, *grid, kernelOptions,
                                 kernel))
    return code;
  api::TuneOptions options;
  options.tuner = getTunerOptions();
  options.tuner.start = start;
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  auto result = api::tuneKernel(*kernel, options);
  if (!result)
    return reportFailure(result.takeError(), "tune");
  // The cache is a convenience: failing to write it is only a warning.
  if (!result->cacheError.empty())
    llvm::errs() << "comprehend tune: warning: " << result->cacheError << "\n";
  printTuneReport(input.entryName, "@" + input.entryName,
                  (*runtime)->getDevice().getInfo().name, result->space,
                  result->tuning, result->cachePath);
  return ExitSuccess;
}

int runTune() {
  switch (getInputLang()) {
  case InputLang::IR:
    return tuneIrFile();
  case InputLang::TC:
    return tuneTcFile();
  case InputLang::Auto:
    break;
  }
  llvm::errs() << "comprehend tune: cannot tell the language of '"
               << InputFilename << "'; use --lang ir\n";
  return ExitUsage;
}

} // namespace comprehend::tools
