//===- TcRunCommand.cpp - `comprehend run` of a Tensor Comprehensions def -===//
//
// Runs one TC def on the device:
//
//  1. the size variables are bound from --sizes and from the shapes of the
//     --arg arrays (TC shape, row-major as TC reads it); a disagreement or a
//     size that stays unknown is an input error naming the size;
//  2. the def is compiled for the device by api::TcKernel with those sizes
//     (and the --config configuration, else the tuning cache's, else the
//     defaults), its inputs uploaded (from --arg, else random), outputs and
//     temporaries poisoned with NaN bytes so that an element the kernel
//     never writes shows up in --check; an output that the def reads before
//     writing it (`+=` without `!`) takes an incoming value instead, from
//     --arg or random, which the evaluator gets too;
//  3. the first launch produces the outputs (written to --out DIR as
//     DIR/NAME.npy in TC shape and, with --check, compared with
//     tc::evaluate on the same inputs); --repeat further launches are timed
//     with profiling events and their median is printed (a def lowered to
//     several kernels: the sum of its kernels per repetition).
//
// --check tolerance on the relative error |got - want| / max(1, |want|):
// 1e-4 for float (single-precision kernels against the evaluator's double
// arithmetic over reductions of a few thousand terms), 1e-10 for double and
// 0 (exact) for integer tensors.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "TcInput.h"

#include "comprehend/api/TcKernel.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Npy.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/Evaluator.h"
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/Lowering.h"

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
#include <limits>
#include <random>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace comprehend::tools {

namespace {
/// `run` warns when a cached configuration's median exceeds the default's
/// time recorded at tuning by more than this factor (timings on a shared
/// machine vary by a few percent).
constexpr double kSlowCachedMargin = 1.1;

/// An error message that ends the command with exit code 1.
struct InputError {
  std::string message;
};

/// The --check tolerance (see the file comment).
double getTolerance(tc::ScalarType type) {
  switch (type) {
  case tc::ScalarType::Float:
    return 1e-4;
  case tc::ScalarType::Double:
    return 1e-10;
  default:
    return 0;
  }
}

double loadElement(DType dtype, const unsigned char *data, int64_t index) {
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
  }
  case DType::F64: {
    double v;
    std::memcpy(&v, data + 8 * index, 8);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, data + 4 * index, 4);
    return v;
  }
  default: {
    int64_t v;
    std::memcpy(&v, data + 8 * index, 8);
    return static_cast<double>(v);
  }
  }
}

void storeElement(DType dtype, unsigned char *data, int64_t index,
                  double value) {
  switch (dtype) {
  case DType::F32: {
    float v = static_cast<float>(value);
    std::memcpy(data + 4 * index, &v, 4);
    return;
  }
  case DType::F64:
    std::memcpy(data + 8 * index, &value, 8);
    return;
  case DType::I32: {
    int32_t v = static_cast<int32_t>(value);
    std::memcpy(data + 4 * index, &v, 4);
    return;
  }
  default: {
    int64_t v = static_cast<int64_t>(value);
    std::memcpy(data + 8 * index, &v, 8);
    return;
  }
  }
}

/// The column-major offset of the element with row-major offset \p rowMajor
/// in an array of \p shape.
int64_t getColumnMajorOffset(llvm::ArrayRef<int64_t> shape, int64_t rowMajor) {
  int64_t offset = 0, stride = 1;
  llvm::SmallVector<int64_t, 4> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = rowMajor % shape[d];
    rowMajor /= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    offset += index[d] * stride;
    stride *= shape[d];
  }
  return offset;
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return text;
}

/// An --arg array for an input of the def.
struct GivenArray {
  std::string path;
  HostTensor tensor;
};

/// Where each size variable got its value, for the disagreement message.
struct SizeBinding {
  int64_t value;
  std::string source;
};

/// The parameter named \p name that --arg may give: an input, or an output
/// that takes an incoming value. Null with \p error set otherwise.
const tc::Param *findArgParam(const tc::Def &def, StringRef name,
                              llvm::ArrayRef<std::string> incoming,
                              std::string &error) {
  for (const tc::Param &input : def.getInputs())
    if (input.name.name == name)
      return &input;
  for (const tc::Param &output : def.getOutputs()) {
    if (output.name.name != name)
      continue;
    if (llvm::is_contained(incoming, name))
      return &output;
    error = ("'" + def.getName().name + "' writes output '" + name +
             "' before reading it; only an output that a statement reads "
             "first (a reduction without '!') takes an incoming value")
                .str();
    return nullptr;
  }
  error = ("'" + def.getName().name + "' has no input '" + name + "'").str();
  return nullptr;
}

/// Reads the --arg arrays, keyed by input name (and by the name of an
/// output that takes an incoming value).
std::optional<InputError> readGivenArrays(const tc::Def &def,
                                          llvm::ArrayRef<std::string> incoming,
                                          llvm::StringMap<GivenArray> &given) {
  for (const std::string &arg : Args) {
    auto [name, path] = StringRef(arg).split('=');
    name = name.trim();
    std::string message;
    const tc::Param *param = findArgParam(def, name, incoming, message);
    if (!param)
      return InputError{"--arg '" + arg + "': " + message};
    // An output's element type is the type sema inferred for it.
    const tc::TensorInfo *info = def.lookupTensor(name);
    if (!info)
      return InputError{"--arg '" + arg + "': '" + name.str() +
                        "' is never defined"};
    std::optional<DType> dtype = api::getDType(info->type);
    if (!dtype)
      return InputError{"--arg '" + arg + "': the element type of '" +
                        name.str() + "' is not supported by run"};
    auto tensor = readNpyFile(path, *dtype);
    if (!tensor)
      return InputError{llvm::toString(tensor.takeError())};
    if (tensor->dtype != *dtype)
      return InputError{("'" + path + "' holds " + getDTypeName(tensor->dtype) +
                         " but '" + name + "' is " + getDTypeName(*dtype))
                            .str()};
    if (!given.try_emplace(name, GivenArray{path.str(), std::move(*tensor)})
             .second)
      return InputError{"--arg: '" + name.str() + "' is given twice"};
  }
  return std::nullopt;
}

/// Binds every size variable of \p def from --sizes and the given arrays.
std::optional<InputError> bindSizes(const tc::Def &def,
                                    const llvm::StringMap<int64_t> &fixed,
                                    const llvm::StringMap<GivenArray> &given,
                                    llvm::StringMap<int64_t> &sizes) {
  llvm::StringMap<SizeBinding> bound;
  for (const auto &size : fixed)
    bound[size.first()] = {size.second, "--sizes"};
  // Inputs, and outputs with a declared type that take an incoming value.
  llvm::SmallVector<const tc::Param *, 8> params;
  for (const tc::Param &input : def.getInputs())
    params.push_back(&input);
  for (const tc::Param &output : def.getOutputs())
    params.push_back(&output);
  for (const tc::Param *param : params) {
    const tc::Param &input = *param;
    auto it = given.find(input.name.name);
    if (it == given.end() || !input.type)
      continue;
    const HostTensor &tensor = it->second.tensor;
    std::string source =
        ("'" + input.name.name + "' (" + it->second.path + ")").str();
    if (tensor.shape.size() != input.type->dims.size())
      return InputError{("'" + input.name.name + "' has rank " +
                         llvm::Twine(input.type->dims.size()) + " but '" +
                         it->second.path + "' has shape " +
                         formatShape(tensor.shape))
                            .str()};
    for (size_t d = 0; d < input.type->dims.size(); ++d) {
      const tc::TensorType::Dim &dim = input.type->dims[d];
      int64_t extent = tensor.shape[d];
      if (dim.sizeVar.empty()) {
        if (extent != dim.constant)
          return InputError{
              ("dimension " + llvm::Twine(d) + " of '" + input.name.name +
               "' is " + llvm::Twine(dim.constant) + " but '" +
               it->second.path + "' has shape " + formatShape(tensor.shape))
                  .str()};
        continue;
      }
      auto [entry, inserted] =
          bound.try_emplace(dim.sizeVar, SizeBinding{extent, source});
      if (!inserted && entry->second.value != extent)
        return InputError{("size '" + dim.sizeVar + "' is " +
                           llvm::Twine(entry->second.value) + " in " +
                           entry->second.source + " but " +
                           llvm::Twine(extent) + " in " + source)
                              .str()};
    }
  }
  for (const std::string &var : def.getSizeVars()) {
    auto it = bound.find(var);
    if (it == bound.end())
      return InputError{"size '" + var +
                        "' is unknown; give it with --sizes or an --arg array"};
    sizes[var] = it->second.value;
  }
  return std::nullopt;
}

/// An output read back from the device: its values in row-major order.
struct HostData {
  DType dtype;
  std::vector<double> values;
};
} // namespace

static int reportInputError(const InputError &error) {
  llvm::errs() << "comprehend run: error: " << error.message << "\n";
  return ExitInvalidInput;
}

static int failRuntime(llvm::Error error) {
  ErrorKind kind =
      reportError(std::move(error), llvm::errs(), "comprehend run");
  return kind == ErrorKind::Input ? ExitInvalidInput : ExitRuntime;
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
  DiagnosticEngine &diags = input.diags;
  const tc::Program *program = input.program.get();
  const tc::Def *def = nullptr;
  llvm::StringMap<int64_t> fixed;
  if (int code = selectTcEntry("run", *program, def, fixed))
    return code;
  StringRef entryName = def->getName().name;

  llvm::SmallVector<std::string, 2> incoming = api::getIncomingOutputs(*def);
  llvm::StringMap<GivenArray> given;
  if (std::optional<InputError> error = readGivenArrays(*def, incoming, given))
    return reportInputError(*error);
  llvm::StringMap<int64_t> sizes;
  if (std::optional<InputError> error = bindSizes(*def, fixed, given, sizes))
    return reportInputError(*error);

  auto runtime = Runtime::create(Device);
  if (!runtime)
    return failRuntime(runtime.takeError());
  api::TcKernelOptions options;
  if (int code = getConfigOption("run", options.config))
    return code;
  options.cachePath = CachePath;
  options.warnings = &llvm::errs();
  auto kernel =
      api::TcKernel::compile(**runtime, *program, *def, sizes, diags, options);
  if (!kernel) {
    if (diags.hasErrors()) {
      llvm::consumeError(kernel.takeError());
      return ExitInvalidInput;
    }
    return failRuntime(kernel.takeError());
  }
  llvm::ArrayRef<tc::LoweredTensor> tensors = (*kernel)->getTensors();
  if ((*kernel)->getConfigSource() == api::ConfigSource::TuningCache)
    llvm::errs() << "using the tuned configuration "
                 << formatConfiguration((*kernel)->getConfig())
                 << " from the tuning cache\n";

  // Inputs and the incoming values of outputs that take one (given or
  // random), in row-major order for the evaluator; the device buffer of a
  // row-major TC tensor is the column-major memref with reversed modes, so
  // the same bytes serve both. Everything else is poisoned with NaN bytes.
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  llvm::StringMap<tc::Tensor> evalArgs;
  for (const tc::LoweredTensor &tensor : tensors) {
    if (tensor.role != tc::TensorInfo::Role::Input &&
        !(*kernel)->takesIncomingValue(tensor.name)) {
      if (llvm::Error error = (*kernel)->fill(tensor.name, 0xff))
        return failRuntime(std::move(error));
      continue;
    }
    DType dtype = *api::getDType(tensor.type);
    int64_t count = api::getNumElements(tensor);
    std::vector<unsigned char> bytes((*kernel)->getSizeInBytes(tensor));
    tc::Tensor arg(tensor.type, tensor.shape);
    arg.data.resize(count);
    auto it = given.find(tensor.name);
    // An output's shape follows from the sizes; its array must have it.
    if (it != given.end() && llvm::ArrayRef<int64_t>(it->second.tensor.shape) !=
                                 llvm::ArrayRef<int64_t>(tensor.shape))
      return reportInputError({"'" + tensor.name + "' has shape " +
                               formatShape(tensor.shape) + " but '" +
                               it->second.path + "' has shape " +
                               formatShape(it->second.tensor.shape)});
    for (int64_t i = 0; i < count; ++i) {
      double value;
      if (it != given.end())
        value = loadElement(dtype, it->second.tensor.data.data(),
                            getColumnMajorOffset(tensor.shape, i));
      else if (isIntegerDType(dtype))
        // Small non-negative integers, so that they can index other
        // tensors (e.g. gather) of any extent of at least 3.
        value = std::floor(1.5 * (dist(rng) + 1));
      else
        value = tc::convertTo(dist(rng), tensor.type);
      arg.data[i] = value;
      storeElement(dtype, bytes.data(), i, value);
    }
    evalArgs[tensor.name] = std::move(arg);
    if (llvm::Error error =
            (*kernel)->write(tensor.name, bytes.data(), bytes.size()))
      return failRuntime(std::move(error));
  }

  // The first launch produces the outputs; the timed ones after it may
  // accumulate into them, so outputs are read before.
  auto first = (*kernel)->run(1);
  if (!first)
    return failRuntime(first.takeError());
  llvm::StringMap<HostData> outputs;
  for (const tc::LoweredTensor &tensor : tensors) {
    if (tensor.role != tc::TensorInfo::Role::Output)
      continue;
    DType dtype = *api::getDType(tensor.type);
    int64_t count = api::getNumElements(tensor);
    std::vector<unsigned char> bytes((*kernel)->getSizeInBytes(tensor));
    if (llvm::Error error =
            (*kernel)->read(tensor.name, bytes.data(), bytes.size()))
      return failRuntime(std::move(error));
    HostData &data = outputs[tensor.name];
    data.dtype = dtype;
    data.values.resize(count);
    for (int64_t i = 0; i < count; ++i)
      data.values[i] = loadElement(dtype, bytes.data(), i);
  }

  std::vector<std::string> written;
  if (!OutDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(OutDir)) {
      llvm::errs() << "comprehend run: error: cannot create '" << OutDir
                   << "': " << ec.message() << "\n";
      return ExitInvalidInput;
    }
    for (const tc::LoweredTensor &tensor : tensors) {
      if (tensor.role != tc::TensorInfo::Role::Output)
        continue;
      const HostData &data = outputs[tensor.name];
      // HostTensor is column-major over the TC shape; the file is then what
      // NumPy reads with the TC shape.
      HostTensor host(data.dtype, tensor.shape);
      for (size_t i = 0; i < data.values.size(); ++i)
        storeElement(data.dtype, host.data.data(),
                     getColumnMajorOffset(tensor.shape, i), data.values[i]);
      llvm::SmallString<128> path(OutDir);
      llvm::sys::path::append(path, tensor.name + ".npy");
      if (llvm::Error error = writeNpyFile(path, host))
        return failRuntime(std::move(error));
      written.push_back(std::string(path));
    }
  }

  // Timed before the evaluator: right after seconds of single-threaded
  // host work, the device's worker threads measured up to 2x slower.
  unsigned repeat = std::max(1u, unsigned(Repeat));
  auto timing = (*kernel)->run(repeat);
  if (!timing)
    return failRuntime(timing.takeError());

  // --check: the evaluator on the same inputs. NaN (poison left behind)
  // counts as an infinite error.
  std::optional<double> maxError;
  std::string worstTensor;
  double tolerance = 0;
  double referenceMs = 0;
  if (Check) {
    auto start = std::chrono::steady_clock::now();
    std::optional<llvm::StringMap<tc::Tensor>> expected =
        tc::evaluate(*program, *def, evalArgs, diags, sizes);
    referenceMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    if (!expected || diags.hasErrors())
      return ExitInvalidInput;
    maxError = 0;
    for (const tc::LoweredTensor &tensor : tensors) {
      if (tensor.role != tc::TensorInfo::Role::Output)
        continue;
      tolerance = std::max(tolerance, getTolerance(tensor.type));
      auto want = expected->find(tensor.name);
      const std::vector<double> &got = outputs[tensor.name].values;
      if (want == expected->end() || want->second.data.size() != got.size())
        return reportInputError({"the evaluator's '" + tensor.name +
                                 "' has a different shape than the kernel's"});
      for (size_t i = 0; i < got.size(); ++i) {
        double wanted = want->second.data[i];
        double error =
            std::abs(got[i] - wanted) / std::max(1.0, std::abs(wanted));
        if (std::isnan(error))
          error = std::numeric_limits<double>::infinity();
        if (error > *maxError) {
          maxError = error;
          worstTensor = tensor.name;
        }
      }
    }
  }

  // A tuned configuration that now runs slower than the default did when
  // it was tuned: another machine, another driver, or a loaded one.
  double cachedDefaultMs = (*kernel)->getCachedDefaultMs();
  if ((*kernel)->getConfigSource() == api::ConfigSource::TuningCache &&
      cachedDefaultMs > 0 &&
      timing->getMedianKernelMs() > kSlowCachedMargin * cachedDefaultMs)
    llvm::errs() << "warning: the tuned configuration ran in "
                 << llvm::format("%.4f", timing->getMedianKernelMs())
                 << " ms, slower than the default's "
                 << llvm::format("%.4f", cachedDefaultMs)
                 << " ms when it was tuned; if the machine is not busy, "
                    "tune again ('comprehend tune')\n";

  const DeviceInfo &device = (*runtime)->getDevice().getInfo();
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      json.attribute("entry", entryName);
      json.attribute("device", device.name);
      json.attribute("runs", static_cast<int64_t>(timing->kernelMs.size()));
      json.attribute("median_ms", timing->getMedianKernelMs());
      json.attributeObject("sizes", [&] {
        for (const std::string &var : def->getSizeVars())
          json.attribute(var, sizes[var]);
      });
      json.attributeArray("kernels", [&] {
        for (const tc::LoweredKernel &launch :
             (*kernel)->getLoweredDef().kernels)
          json.object([&] {
            json.attribute("name", launch.function->getName());
            json.attributeArray("grid", [&] {
              for (int64_t size : launch.grid)
                json.value(size);
            });
          });
      });
      json.attribute("config", toJSON((*kernel)->getConfig()));
      json.attribute("config_source",
                     getConfigSourceName((*kernel)->getConfigSource()));
      if (maxError) {
        // JSON has no infinity; null marks an output left poisoned.
        if (std::isfinite(*maxError))
          json.attribute("max_rel_error", *maxError);
        else
          json.attribute("max_rel_error", nullptr);
        json.attribute("tolerance", tolerance);
        json.attribute("reference_ms", referenceMs);
      }
      json.attributeArray("outputs", [&] {
        for (const std::string &path : written)
          json.value(path);
      });
    });
    llvm::outs() << "\n";
  } else {
    llvm::outs() << "'" << entryName << "' on " << device.name << ": median "
                 << llvm::format("%.4f", timing->getMedianKernelMs())
                 << " ms over " << timing->kernelMs.size() << " runs (";
    llvm::interleave(
        def->getSizeVars(), llvm::outs(),
        [&](const std::string &var) {
          llvm::outs() << var << "=" << sizes[var];
        },
        ", ");
    llvm::outs() << ")\n";
    if (maxError)
      llvm::outs() << "max relative error " << llvm::format("%.3e", *maxError)
                   << " (tolerance " << llvm::format("%.0e", tolerance)
                   << "); reference evaluator "
                   << llvm::format("%.1f", referenceMs) << " ms\n";
    for (const std::string &path : written)
      llvm::outs() << "wrote " << path << "\n";
  }
  if (maxError && *maxError > tolerance) {
    llvm::errs() << "comprehend run: error: '" << worstTensor
                 << "' differs from the reference evaluator: max relative "
                    "error "
                 << llvm::format("%.3e", *maxError) << " above tolerance "
                 << llvm::format("%.0e", tolerance) << "\n";
    return ExitInvalidInput;
  }
  return ExitSuccess;
}

} // namespace comprehend::tools
