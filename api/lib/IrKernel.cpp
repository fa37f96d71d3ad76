//===- IrKernel.cpp - Run tensor-language functions from C++ --------------===//
#include "comprehend/api/IrKernel.h"
#include "comprehend/api/Pipeline.h"

#include "comprehend/ir/Clone.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/MemoryLimits.h"
#include "comprehend/runtime/TuningKernel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace comprehend;
using namespace comprehend::api;
using namespace comprehend::runtime;
using llvm::StringRef;

namespace {
/// The `NAME=VALUE` argument strings of `args` by parameter name, each naming a
/// parameter of `entry` once.
llvm::Expected<llvm::StringMap<std::string>>
parseGivenArguments(const KernelEntry &entry, StringRef entryName,
                    llvm::ArrayRef<std::string> args) {
  llvm::StringMap<std::string> given;
  for (const std::string &arg : args) {
    auto [name, value] = StringRef(arg).split('=');
    name = name.trim();
    name.consume_front("%");
    if (name.empty() || !StringRef(arg).contains('='))
      return makeInputError("argument '" + arg +
                                "' must be NAME=FILE.npy or NAME=VALUE",
                            InputSubject::Argument);
    // clang-15 cannot capture a structured binding: `name` by init-capture.
    if (!llvm::any_of(entry.params, [&, name = name](const ParamType &param) {
          return param.name == name;
        }))
      return makeInputError("argument '" + arg + "': '@" + entryName +
                                "' has no parameter '%" + name + "'",
                            InputSubject::Argument);
    if (!given.try_emplace(name, value.str()).second)
      return makeInputError("parameter '%" + name + "' is given twice",
                            InputSubject::Argument);
  }
  return given;
}

/// The value of scalar parameter `param`: `given` if any, else random.
llvm::Expected<ArgValue> bindScalar(const ParamType &param,
                                    const std::string *given,
                                    std::mt19937_64 &rng) {
  if (!given) {
    // Random integers would be random loop bounds and sizes.
    if (isIntegerDType(param.dtype) || param.dtype == DType::Bool)
      return makeInputError("missing argument '%" + param.name + "' of type " +
                                param.str(),
                            InputSubject::MissingScalar, param.name);
    return ArgValue(makeRandomScalar(param.dtype, rng));
  }
  auto scalar = ScalarArg::parse(param.dtype, *given);
  if (!scalar)
    return makeInputError("argument " + param.name + ": " +
                              llvm::toString(scalar.takeError()),
                          InputSubject::Argument);
  return ArgValue(*scalar);
}

/// An array argument before it is uploaded: read from a file, or the shape
/// of the random one still to make.
struct PendingArray {
  std::optional<HostTensor> read;
  llvm::SmallVector<int64_t, 4> shape;
};

llvm::Expected<PendingArray> readOrShape(const ParamType &param,
                                         const std::string *given) {
  PendingArray pending;
  if (given) {
    auto read = readNpyFile(*given, param.dtype);
    if (!read)
      return read.takeError();
    pending.shape = read->shape;
    pending.read = std::move(*read);
    return pending;
  }
  pending.shape = getHostShape(param);
  if (llvm::is_contained(pending.shape, kDynamic))
    return makeInputError("missing argument '%" + param.name + "': its type " +
                              param.str() +
                              " has dynamic sizes, so no random array can "
                              "stand in",
                          InputSubject::MissingArray, param.name);
  return pending;
}

/// Binds every parameter of `entry` from `args` (NAME=FILE.npy or
/// NAME=VALUE), else randomly. Checks that all arrays fit the device and the
/// host before making or uploading any.
llvm::Expected<IrKernel::Arguments>
bindArguments(Runtime &runtime, const KernelEntry &entry, StringRef entryName,
              llvm::ArrayRef<std::string> args) {
  auto given = parseGivenArguments(entry, entryName, args);
  if (!given)
    return given.takeError();
  auto lookup = [&](const ParamType &param) -> const std::string * {
    auto it = given->find(param.name);
    return it == given->end() ? nullptr : &it->second;
  };
  std::vector<std::optional<PendingArray>> pending(entry.params.size());
  std::vector<TensorBytes> footprint;
  for (size_t index = 0; index < entry.params.size(); ++index) {
    const ParamType &param = entry.params[index];
    if (param.kind == ParamType::Kind::Scalar)
      continue;
    auto array = readOrShape(param, lookup(param));
    if (!array)
      return array.takeError();
    footprint.push_back(
        {"%" + param.name, getArgumentBytes(param, array->shape)});
    pending[index] = std::move(*array);
  }
  if (llvm::Error error = checkTensorsFit(
          footprint, MemoryLimits::of(runtime.getDevice().getInfo())))
    return error;

  std::mt19937_64 rng(std::random_device{}());
  IrKernel::Arguments bound;
  bound.arrays.resize(entry.params.size());
  for (size_t index = 0; index < entry.params.size(); ++index) {
    const ParamType &param = entry.params[index];
    if (!pending[index]) {
      auto value = bindScalar(param, lookup(param), rng);
      if (!value)
        return value.takeError();
      bound.values.push_back(std::move(*value));
      continue;
    }
    PendingArray &array = *pending[index];
    HostTensor tensor = array.read
                            ? std::move(*array.read)
                            : makeRandomTensor(param.dtype, array.shape, rng);
    auto uploaded = uploadArgument(runtime, param, tensor);
    if (!uploaded)
      return uploaded.takeError();
    bound.values.push_back(uploaded->value);
    bound.arrays[index] = std::move(*uploaded);
  }
  return bound;
}

/// The tuning-cache key of an .ir entry: the file's text, the device, the
/// grid and the bytes of every array argument.
TuningKey makeIrTuningKey(const Runtime &runtime,
                          const llvm::SourceMgr &sourceMgr, StringRef entryName,
                          std::array<size_t, 3> grid,
                          const IrKernel::Arguments &arguments) {
  std::string sizes;
  llvm::raw_string_ostream os(sizes);
  os << "grid=" << grid[0] << "x" << grid[1] << "x" << grid[2];
  for (const std::optional<DeviceArgument> &array : arguments.arrays)
    if (array)
      os << ",%" << array->type.name << "=" << array->buffer->getSize() << "B";
  const DeviceInfo &device = runtime.getDevice().getInfo();
  StringRef text =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  return TuningKey{hashKernelText(text), device.name, device.driverVersion,
                   os.str(), std::string(entryName)};
}
} // namespace

IrKernel::~IrKernel() = default;

llvm::Expected<std::unique_ptr<IrKernel>>
IrKernel::compile(Runtime &runtime, ir::Program &program,
                  DiagnosticEngine &diags, StringRef entry,
                  std::array<size_t, 3> grid, llvm::ArrayRef<std::string> args,
                  const IrKernelOptions &options) {
  std::unique_ptr<IrKernel> kernel(
      new IrKernel(runtime, program.getContext(), diags.getSourceMgr()));
  kernel->entryName = entry.str();
  kernel->grid = grid;
  kernel->base.compile = options.compile;
  auto source = std::make_shared<ir::Program>(program.getContext());
  ir::cloneInto(program, *source);
  kernel->source = std::move(source);
  const backend::CoreInfo &core = runtime.getCoreInfo();
  auto defaults = Pipeline::configure(core, {}, kernel->base);
  if (!defaults)
    return defaults.takeError();
  if (llvm::Error error = kernel->build(program, diags, *defaults))
    return error;
  auto bound = bindArguments(runtime, *kernel->entry, entry, args);
  if (!bound)
    return bound.takeError();
  kernel->arguments = std::make_shared<Arguments>(std::move(*bound));
  kernel->key = makeIrTuningKey(runtime, kernel->sourceMgr, entry, grid,
                                *kernel->arguments);

  // The same names and checks as for .tc files; the lowering knobs (tc.*)
  // have nothing to act on here.
  std::optional<Pipeline> chosen;
  if (llvm::Error error = kernel->chooseConfig(
          options, Pipeline::configureInto(chosen, core, kernel->base)))
    return error;
  if (kernel->config.empty())
    return kernel;
  // The bound arguments stay valid: the same parameters.
  if (llvm::Error error = kernel->rebuild(diags, *chosen))
    return error;
  return kernel;
}

llvm::Error IrKernel::build(ir::Program &program, DiagnosticEngine &diags,
                            const Pipeline &pipeline) {
  auto compiled = pipeline.build(runtime, program, diags);
  if (!compiled)
    return compiled.takeError();
  auto found = (*compiled)->getEntry(entryName);
  if (!found)
    return found.takeError();
  executable = std::move(*compiled);
  entry = &*found;
  return llvm::Error::success();
}

llvm::Error IrKernel::rebuild(DiagnosticEngine &diags,
                              const Pipeline &pipeline) {
  configured = std::make_unique<ir::Program>(ctx);
  ir::cloneInto(*source, *configured);
  pipeline.configureLaunch(*configured->lookupFunction(entryName));
  return build(*configured, diags, pipeline);
}

llvm::Expected<SearchSpace> IrKernel::getSearchSpace() const {
  return makeWorkGroupSpace(runtime.getCoreInfo(), entry->info);
}

llvm::Expected<std::unique_ptr<api::Kernel>>
IrKernel::recompile(const Configuration &config) const {
  std::string messages;
  DiagnosticEngine quiet(sourceMgr);
  quiet.setHandler(
      [&](const Diagnostic &diag) { messages += diag.message + "; "; });
  std::unique_ptr<IrKernel> kernel(new IrKernel(runtime, ctx, sourceMgr));
  kernel->entryName = entryName;
  kernel->grid = grid;
  kernel->arguments = arguments;
  kernel->source = source;
  kernel->key = key;
  kernel->config = config;
  kernel->configSource = ConfigSource::Given;
  kernel->base = base;
  auto pipeline = Pipeline::configure(runtime.getCoreInfo(), config, base);
  if (!pipeline)
    return pipeline.takeError();
  if (llvm::Error error = kernel->rebuild(quiet, *pipeline)) {
    llvm::consumeError(std::move(error));
    return makeInputError("compilation failed: " + messages);
  }
  return std::unique_ptr<api::Kernel>(std::move(kernel));
}

llvm::Expected<KernelData> IrKernel::makeTuningInputs(uint64_t) {
  KernelData inputs;
  for (const std::optional<DeviceArgument> &array : arguments->arrays) {
    if (!array)
      continue;
    std::vector<unsigned char> bytes(array->buffer->getSize());
    if (llvm::Error error =
            runtime.read(*array->buffer, bytes.data(), bytes.size()))
      return error;
    inputs.emplace_back(array->type.name, std::move(bytes));
  }
  return inputs;
}

llvm::Expected<std::vector<KernelOutput>>
IrKernel::runOnInputs(const KernelData &inputs) {
  for (const auto &[name, bytes] : inputs)
    for (const std::optional<DeviceArgument> &array : arguments->arrays)
      if (array && array->type.name == name)
        if (llvm::Error error =
                runtime.write(*array->buffer, bytes.data(), bytes.size()))
          return error;
  // The first launch produces the checked outputs; timed ones may
  // accumulate into them (beta = 1).
  auto first = run(1);
  if (!first)
    return first.takeError();
  std::vector<KernelOutput> outputs;
  for (const std::optional<DeviceArgument> &array : arguments->arrays) {
    if (!array)
      continue;
    KernelOutput &output = outputs.emplace_back();
    output.name = "'%" + array->type.name + "'";
    output.dtype = array->type.dtype;
    output.bytes.resize(array->buffer->getSize());
    if (llvm::Error error = runtime.read(*array->buffer, output.bytes.data(),
                                         output.bytes.size()))
      return error;
  }
  return outputs;
}

llvm::Expected<Timing> IrKernel::run(unsigned repeat) {
  return executable->run(entryName, grid, arguments->values, repeat);
}

llvm::Expected<std::vector<std::string>> IrKernel::writeArrays(StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return makeInputError("cannot create '" + dir + "': " + ec.message());
  std::vector<std::string> written;
  for (const std::optional<DeviceArgument> &array : arguments->arrays) {
    if (!array)
      continue;
    auto tensor = downloadArgument(runtime, *array);
    if (!tensor)
      return tensor.takeError();
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, array->type.name + ".npy");
    if (llvm::Error error = writeNpyFile(path, *tensor))
      return error;
    written.push_back(std::string(path));
  }
  return written;
}
