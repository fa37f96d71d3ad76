//===- RuntimeCommands.cpp - run, tune and devices ------------------------===//
//
// `devices` lists the OpenCL devices and their core info; `run` compiles a
// tensor-language file for the selected device, binds every parameter (from
// --arg, else random), launches the entry over --grid work-groups, prints the
// median kernel time and writes the memref arguments back as .npy files.
// Exit codes: 1 for bad input (diagnostics, missing or mismatched
// arguments), 2 for usage, 3 for device/runtime failures. `tune` searches
// the work-group and subgroup sizes of an entry (docs/tuning.md), checking
// every candidate's outputs against the default's, and caches the best.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "TuneReport.h"

#include "comprehend/api/TcTuner.h"
#include "comprehend/api/TcTuning.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/runtime/TuningSearch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace comprehend::tools {

/// Prints `error` and maps it to an exit code.
static int fail(llvm::Error error, StringRef command) {
  ErrorKind kind = reportError(std::move(error), llvm::errs(),
                               "comprehend " + command.str());
  return kind == ErrorKind::Input ? ExitInvalidInput : ExitRuntime;
}

//===----------------------------------------------------------------------===//
// devices
//===----------------------------------------------------------------------===//

int runDevices() {
  auto devices = listDevices();
  if (!devices)
    return fail(devices.takeError(), "devices");
  std::vector<const runtime::Device *> shown;
  if (Device.empty()) {
    for (const runtime::Device &device : *devices)
      shown.push_back(&device);
  } else {
    auto selected = selectDevice(Device);
    if (!selected)
      return fail(selected.takeError(), "devices");
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
    llvm::outs() << "no OpenCL devices\n";
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

namespace {
/// Everything bound to one run.
struct Bindings {
  std::vector<ArgValue> values;
  /// Device memory of memref and group parameters, by parameter index.
  std::vector<std::optional<DeviceArgument>> arrays;
};
} // namespace

/// Binds every parameter of `entry` from --arg, else randomly.
static llvm::Expected<Bindings> bindParameters(Runtime &runtime,
                                               const KernelEntry &entry,
                                               StringRef entryName) {
  llvm::StringMap<std::string> given;
  for (const std::string &arg : Args) {
    auto [name, value] = StringRef(arg).split('=');
    name = name.trim();
    name.consume_front("%");
    if (name.empty() || !StringRef(arg).contains('='))
      return makeInputError("--arg '" + arg +
                            "' must be NAME=FILE.npy or "
                            "NAME=VALUE");
    // clang-15 cannot capture a structured binding: `name` by init-capture.
    if (!llvm::any_of(entry.params, [&, name = name](const ParamType &param) {
          return param.name == name;
        }))
      return makeInputError("--arg '" + arg + "': '@" + entryName +
                            "' has no parameter '%" + name + "'");
    if (!given.try_emplace(name, value.str()).second)
      return makeInputError("--arg: parameter '%" + name + "' is given twice");
  }

  std::mt19937_64 rng(std::random_device{}());
  Bindings bindings;
  bindings.arrays.resize(entry.params.size());
  for (size_t index = 0; index < entry.params.size(); ++index) {
    const ParamType &param = entry.params[index];
    auto it = given.find(param.name);
    bool isScalar = param.kind == ParamType::Kind::Scalar;
    if (isScalar) {
      if (it == given.end()) {
        // Random integers would be random loop bounds and sizes.
        if (isIntegerDType(param.dtype) || param.dtype == DType::Bool)
          return makeInputError("missing argument '%" + param.name +
                                "' of "
                                "type " +
                                param.str() + ": give it with --arg " +
                                param.name + "=VALUE");
        bindings.values.push_back(makeRandomScalar(param.dtype, rng));
        continue;
      }
      auto scalar = ScalarArg::parse(param.dtype, it->second);
      if (!scalar)
        return makeInputError("--arg " + param.name + ": " +
                              llvm::toString(scalar.takeError()));
      bindings.values.push_back(*scalar);
      continue;
    }

    HostTensor tensor;
    if (it != given.end()) {
      auto read = readNpyFile(it->second, param.dtype);
      if (!read)
        return read.takeError();
      tensor = std::move(*read);
    } else {
      llvm::SmallVector<int64_t, 4> shape = getHostShape(param);
      if (llvm::is_contained(shape, kDynamic))
        return makeInputError("missing argument '%" + param.name +
                              "': its type " + param.str() +
                              " has dynamic sizes, so give it with --arg " +
                              param.name + "=FILE.npy");
      tensor = makeRandomTensor(param.dtype, shape, rng);
    }
    auto uploaded = uploadArgument(runtime, param, tensor);
    if (!uploaded)
      return uploaded.takeError();
    bindings.values.push_back(uploaded->value);
    bindings.arrays[index] = std::move(*uploaded);
  }
  return bindings;
}

/// The tuning-cache key of an .ir entry: the file's text, the device, the
/// grid and the bytes of every array argument (the sizes that matter for a
/// program whose shapes may be dynamic).
static TuningKey makeIrTuningKey(const Runtime &runtime,
                                 const llvm::SourceMgr &sourceMgr,
                                 llvm::StringRef entryName,
                                 std::array<size_t, 3> grid,
                                 const Bindings &bindings) {
  std::string sizes;
  llvm::raw_string_ostream os(sizes);
  os << "grid=" << grid[0] << "x" << grid[1] << "x" << grid[2];
  for (const std::optional<DeviceArgument> &array : bindings.arrays)
    if (array)
      os << ",%" << array->type.name << "=" << array->buffer->getSize() << "B";
  const DeviceInfo &device = runtime.getDevice().getInfo();
  StringRef text =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  return TuningKey{hashKernelText(text), device.name, device.driverVersion,
                   os.str(), std::string(entryName)};
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

static int runIrFile() {
  if (!checkRunUsage())
    return ExitUsage;
  auto grid = parseGrid(Grid);
  if (!grid)
    return fail(grid.takeError(), "run");
  IrInput input;
  if (int code = loadIrInput("run", input))
    return code;
  DiagnosticEngine &diags = input.diags;
  std::unique_ptr<ir::Program> &program = input.program;
  const std::string &entryName = input.entryName;

  auto runtime = Runtime::create(Device);
  if (!runtime)
    return fail(runtime.takeError(), "run");
  auto executable = Executable::compile(**runtime, *program, diags);
  if (!executable) {
    // Compiler diagnostics were printed already.
    if (diags.hasErrors()) {
      llvm::consumeError(executable.takeError());
      return ExitInvalidInput;
    }
    return fail(executable.takeError(), "run");
  }
  auto entry = (*executable)->getEntry(entryName);
  if (!entry)
    return fail(entry.takeError(), "run");
  auto bindings = bindParameters(**runtime, *entry, entryName);
  if (!bindings)
    return fail(bindings.takeError(), "run");

  // A configuration from --config, else from the tuning cache, recompiles
  // the entry with it; the bound arguments stay valid (same parameters).
  Configuration config;
  if (int code = getConfigOption("run", config))
    return code;
  bool fromCache = false;
  if (config.empty()) {
    TuningCache cache(CachePath.empty() ? TuningCache::getDefaultPath()
                                        : std::string(CachePath),
                      &llvm::errs());
    if (std::optional<TuningRecord> record = cache.lookup(makeIrTuningKey(
            **runtime, input.sourceMgr, entryName, *grid, *bindings))) {
      config = record->config;
      fromCache = true;
    }
  }
  // The same names and checks as for .tc files; the lowering knobs (tc.*)
  // have nothing to act on here.
  backend::CompileOptions compileOptions;
  if (!config.empty()) {
    tc::LoweringOptions unused;
    if (llvm::Error error = api::applyCompileConfiguration(
            config, (*runtime)->getCoreInfo(), unused, compileOptions)) {
      if (!fromCache) {
        llvm::errs() << "comprehend run: error: "
                     << llvm::toString(std::move(error)) << "\n";
        return ExitInvalidInput;
      }
      // A cached configuration of an older compiler is only a missed hint.
      llvm::errs() << "comprehend run: warning: ignoring the cached "
                      "configuration: "
                   << llvm::toString(std::move(error)) << "\n";
      config.clear();
      compileOptions = backend::CompileOptions();
    }
  }
  if (!config.empty()) {
    std::unique_ptr<ir::Program> configured =
        ir::parseSource(input.ctx, diags, input.sourceMgr.getMainFileID());
    if (!configured)
      return ExitInvalidInput;
    applyConfiguration(*configured->lookupFunction(entryName), config);
    auto recompiled =
        Executable::compile(**runtime, *configured, diags, compileOptions);
    if (!recompiled) {
      if (diags.hasErrors()) {
        llvm::consumeError(recompiled.takeError());
        return ExitInvalidInput;
      }
      return fail(recompiled.takeError(), "run");
    }
    executable = std::move(recompiled);
    program = std::move(configured);
    entry = (*executable)->getEntry(entryName);
    if (!entry)
      return fail(entry.takeError(), "run");
    if (fromCache)
      llvm::errs() << "using the tuned configuration "
                   << formatConfiguration(config) << " from the tuning cache\n";
  }

  // The first launch produces the outputs; the timed ones after it may
  // accumulate into them (beta = 1), so outputs are read before.
  auto first = (*executable)->run(entryName, *grid, bindings->values, 1);
  if (!first)
    return fail(first.takeError(), "run");
  std::vector<std::string> written;
  if (!OutDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(OutDir)) {
      llvm::errs() << "comprehend run: error: cannot create '" << OutDir
                   << "': " << ec.message() << "\n";
      return ExitInvalidInput;
    }
    for (const std::optional<DeviceArgument> &array : bindings->arrays) {
      if (!array)
        continue;
      auto tensor = downloadArgument(**runtime, *array);
      if (!tensor)
        return fail(tensor.takeError(), "run");
      llvm::SmallString<128> path(OutDir);
      llvm::sys::path::append(path, array->type.name + ".npy");
      if (llvm::Error err = writeNpyFile(path, *tensor))
        return fail(std::move(err), "run");
      written.push_back(std::string(path));
    }
  }
  unsigned repeat = std::max(1u, unsigned(Repeat));
  auto timing = (*executable)->run(entryName, *grid, bindings->values, repeat);
  if (!timing)
    return fail(timing.takeError(), "run");

  const DeviceInfo &device = (*runtime)->getDevice().getInfo();
  const backend::KernelInfo &info = entry->info;
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      json.attribute("entry", entryName);
      json.attribute("device", device.name);
      json.attribute("runs", static_cast<int64_t>(timing->kernelMs.size()));
      json.attribute("median_ms", timing->getMedianKernelMs());
      json.attribute("median_wall_ms", timing->getMedianWallMs());
      json.attributeArray("times_ms", [&] {
        for (double ms : timing->kernelMs)
          json.value(ms);
      });
      json.attributeArray("grid", [&] {
        for (size_t size : *grid)
          json.value(static_cast<int64_t>(size));
      });
      json.attributeArray("work_group_size", [&] {
        json.value(static_cast<int64_t>(info.workGroupSize[0]));
        json.value(static_cast<int64_t>(info.workGroupSize[1]));
        json.value(int64_t(1));
      });
      json.attributeArray("outputs", [&] {
        for (const std::string &path : written)
          json.value(path);
      });
    });
    llvm::outs() << "\n";
    return ExitSuccess;
  }
  llvm::outs() << "@" << entryName << " on " << device.name << ": median "
               << llvm::format("%.4f", timing->getMedianKernelMs())
               << " ms over " << timing->kernelMs.size() << " runs (grid "
               << (*grid)[0] << "x" << (*grid)[1] << "x" << (*grid)[2]
               << ", work-group " << info.workGroupSize[0] << "x"
               << info.workGroupSize[1] << ")\n";
  for (const std::string &path : written)
    llvm::outs() << "wrote " << path << "\n";
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

namespace {
/// A compiled candidate of an .ir kernel.
class IrVariant : public TuningVariant {
public:
  IrVariant(std::unique_ptr<Executable> executable, llvm::StringRef entry,
            std::array<size_t, 3> grid, const Bindings &bindings)
      : executable(std::move(executable)), entry(entry), grid(grid),
        bindings(bindings) {}
  llvm::Expected<std::vector<double>> time(unsigned count) override {
    auto timing = executable->run(entry, grid, bindings.values, count);
    if (!timing)
      return timing.takeError();
    return std::move(timing->kernelMs);
  }

private:
  std::unique_ptr<Executable> executable;
  std::string entry;
  std::array<size_t, 3> grid;
  const Bindings &bindings;
};

/// One kernel of an .ir file as the tuner sees it: every candidate is the
/// program re-parsed with the configuration's attributes on the entry,
/// compiled and run once on the same inputs (restored before each
/// candidate) for the correctness check.
class IrTarget : public TuningTarget {
public:
  IrTarget(Runtime &runtime, llvm::SourceMgr &sourceMgr, ir::Context &ctx,
           std::string entryName, std::array<size_t, 3> grid)
      : runtime(runtime), sourceMgr(sourceMgr), ctx(ctx),
        entryName(std::move(entryName)), grid(grid) {}

  /// Compiles the unmodified program, binds the inputs and saves them.
  llvm::Error setUp(backend::KernelInfo &defaults) {
    auto executable = compile(nullptr);
    if (!executable)
      return executable.takeError();
    auto entry = (*executable)->getEntry(entryName);
    if (!entry)
      return entry.takeError();
    defaults = entry->info;
    auto bound = bindParameters(runtime, *entry, entryName);
    if (!bound)
      return bound.takeError();
    bindings = std::move(*bound);
    initial.resize(bindings.arrays.size());
    for (size_t i = 0; i < bindings.arrays.size(); ++i)
      if (bindings.arrays[i])
        if (llvm::Error error = readBack(i, initial[i]))
          return error;
    return llvm::Error::success();
  }

  llvm::Expected<std::unique_ptr<TuningVariant>>
  prepare(const Configuration &config) override {
    lastOutputs.clear();
    auto executable = compile(reference.empty() ? nullptr : &config);
    if (!executable)
      return executable.takeError();
    for (size_t i = 0; i < initial.size(); ++i)
      if (bindings.arrays[i])
        if (llvm::Error error =
                runtime.write(*bindings.arrays[i]->buffer, initial[i].data(),
                              initial[i].size()))
          return error;
    // The first launch is the warm-up and produces the checked outputs; the
    // timed ones may accumulate into them (beta = 1).
    auto first = (*executable)->run(entryName, grid, bindings.values, 1);
    if (!first)
      return first.takeError();
    lastOutputs.resize(initial.size());
    for (size_t i = 0; i < initial.size(); ++i)
      if (bindings.arrays[i])
        if (llvm::Error error = readBack(i, lastOutputs[i]))
          return error;
    if (reference.empty())
      reference = lastOutputs;
    return std::make_unique<IrVariant>(std::move(*executable), entryName, grid,
                                       bindings);
  }

  llvm::Error check(const Configuration &config) override {
    for (size_t i = 0; i < reference.size(); ++i) {
      if (!bindings.arrays[i])
        continue;
      if (!api::sameOutputs(bindings.arrays[i]->type.dtype, reference[i],
                            lastOutputs[i]))
        return makeInputError("'%" + bindings.arrays[i]->type.name +
                              "' differs from the default's with " +
                              formatConfiguration(config));
    }
    return llvm::Error::success();
  }

  const Bindings &getBindings() const { return bindings; }

private:
  llvm::Expected<std::unique_ptr<Executable>>
  compile(const Configuration *config) {
    // Candidates that fail to compile are dropped silently; the default's
    // diagnostics are printed.
    DiagnosticEngine diags(sourceMgr);
    std::string messages;
    if (config)
      diags.setHandler(
          [&](const Diagnostic &diag) { messages += diag.message + "; "; });
    std::unique_ptr<ir::Program> program =
        ir::parseSource(ctx, diags, sourceMgr.getMainFileID());
    if (!program || failed(ir::verify(*program, diags)))
      return makeInputError("'" + InputFilename + "' is invalid " + messages);
    if (config)
      applyConfiguration(*program->lookupFunction(entryName), *config);
    auto executable = Executable::compile(runtime, *program, diags);
    if (!executable && config) {
      llvm::consumeError(executable.takeError());
      return makeInputError("compilation failed: " + messages);
    }
    return executable;
  }

  llvm::Error readBack(size_t index, std::vector<unsigned char> &bytes) {
    const Buffer &buffer = *bindings.arrays[index]->buffer;
    bytes.resize(buffer.getSize());
    return runtime.read(buffer, bytes.data(), bytes.size());
  }

  Runtime &runtime;
  llvm::SourceMgr &sourceMgr;
  ir::Context &ctx;
  std::string entryName;
  std::array<size_t, 3> grid;
  Bindings bindings;
  std::vector<std::vector<unsigned char>> initial, reference, lastOutputs;
};
} // namespace

static int tuneIrFile() {
  if (!checkRunUsage())
    return ExitUsage;
  auto grid = parseGrid(Grid);
  if (!grid)
    return fail(grid.takeError(), "tune");
  IrInput input;
  if (int code = loadIrInput("tune", input))
    return code;
  DiagnosticEngine &diags = input.diags;
  const std::string &entryName = input.entryName;

  auto start = std::chrono::steady_clock::now();
  auto runtime = Runtime::create(Device);
  if (!runtime)
    return fail(runtime.takeError(), "tune");
  IrTarget target(**runtime, input.sourceMgr, input.ctx, entryName, *grid);
  backend::KernelInfo defaults;
  if (llvm::Error error = target.setUp(defaults)) {
    if (diags.hasErrors()) {
      llvm::consumeError(std::move(error));
      return ExitInvalidInput;
    }
    return fail(std::move(error), "tune");
  }
  auto space = makeWorkGroupSpace((*runtime)->getCoreInfo(), defaults);
  if (!space)
    return fail(space.takeError(), "tune");

  TuningKey key = makeIrTuningKey(**runtime, input.sourceMgr, entryName, *grid,
                                  target.getBindings());
  TuningCache cache(CachePath.empty() ? TuningCache::getDefaultPath()
                                      : std::string(CachePath),
                    &llvm::errs());
  TunerOptions options = getTunerOptions();
  options.start = start;
  // A configuration cached by an earlier run is re-measured first, so a
  // short second run starts from it.
  if (std::optional<TuningRecord> cached = cache.lookup(key))
    options.search.seeds.push_back(cached->config);
  auto result = tune(*space, target, options);
  if (!result)
    return fail(result.takeError(), "tune");

  // The cache is a convenience: failing to write it is only a warning.
  std::string cachePath = cache.getPath();
  if (llvm::Error error =
          cache.store(key,
                      TuningRecord{result->search.best, result->search.bestMs,
                                   result->search.defaultMs},
                      /*replace=*/true)) {
    llvm::errs() << "comprehend tune: warning: "
                 << llvm::toString(std::move(error)) << "\n";
    cachePath.clear();
  }
  printTuneReport(entryName, "@" + entryName,
                  (*runtime)->getDevice().getInfo().name, *space, *result,
                  cachePath);
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
