//===- RuntimeCommands.cpp - run, tune and devices ------------------------===//
//
// `devices` lists the OpenCL devices and their core info; `run` compiles a
// tensor-language file for the selected device, binds every parameter (from
// --arg, else random), launches the entry over --grid work-groups, prints the
// median kernel time and writes the memref arguments back as .npy files.
// Exit codes: 1 for bad input (diagnostics, missing or mismatched
// arguments), 2 for usage, 3 for device/runtime failures.
//
//===----------------------------------------------------------------------===//
#include "Input.h"
#include "Options.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

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

int runTune() {
  llvm::errs() << "comprehend tune: the autotuner is not built yet\n";
  return ExitUsage;
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
    if (!llvm::any_of(entry.params, [&](const ParamType &param) {
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

static int runIrFile() {
  if (!checkRunUsage())
    return ExitUsage;
  auto grid = parseGrid(Grid);
  if (!grid)
    return fail(grid.takeError(), "run");
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  diags.setWarningsAsErrors(WarningsAsErrors);
  if (failed(loadInputFile(InputFilename, sourceMgr)))
    return ExitInvalidInput;
  ir::Context ctx;
  std::unique_ptr<ir::Program> program =
      ir::parseSource(ctx, diags, sourceMgr.getMainFileID());
  if (!program || failed(ir::verify(*program, diags)) || diags.hasErrors())
    return ExitInvalidInput;

  std::string entryName = Entry;
  if (entryName.empty()) {
    if (program->size() != 1) {
      llvm::errs() << "comprehend run: error: '" << InputFilename << "' has "
                   << program->size()
                   << " functions; choose one with --entry\n";
      return ExitInvalidInput;
    }
    entryName = program->begin()->getName().str();
  } else if (!program->lookupFunction(entryName)) {
    llvm::errs() << "comprehend run: error: no function '@" << entryName
                 << "' in '" << InputFilename << "'\n";
    return ExitInvalidInput;
  }

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
    llvm::errs() << "comprehend run: running .tc files is not built yet; "
                    "compile them to .ir first\n";
    return ExitUsage;
  case InputLang::Auto:
    break;
  }
  llvm::errs() << "comprehend run: cannot tell the language of '"
               << InputFilename << "'; use --lang ir\n";
  return ExitUsage;
}

} // namespace comprehend::tools
