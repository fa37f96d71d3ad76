//===- TcKernel.cpp - Run Tensor Comprehensions from C++ ------------------===//
#include "comprehend/api/TcKernel.h"
#include "comprehend/api/TcTuning.h"

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/IncomingOutputs.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace comprehend;
using namespace comprehend::api;
using runtime::makeInputError;

TcKernel::~TcKernel() = default;

llvm::Expected<std::unique_ptr<TcKernel>>
TcKernel::compile(runtime::Runtime &runtime, const tc::Program &program,
                  const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
                  DiagnosticEngine &diags, const TcKernelOptions &options) {
  auto source = std::make_shared<Source>();
  source->def.program = &program;
  source->def.def = &def;
  source->def.sizes = sizes;
  source->def.inferRanges();
  source->sourceMgr = &diags.getSourceMgr();
  source->options = options;
  source->options.config.clear();
  return compile(runtime, std::move(source), diags, options, nullptr);
}

llvm::Expected<std::unique_ptr<TcKernel>>
TcKernel::compile(runtime::Runtime &runtime,
                  std::shared_ptr<const Source> source, DiagnosticEngine &diags,
                  const TcKernelOptions &options,
                  const runtime::TuningKey *knownKey) {
  const TcSource &def = source->def;
  std::unique_ptr<TcKernel> kernel(new TcKernel(runtime));
  kernel->source = source;
  kernel->entryName = def.def->getName().name;
  const backend::CoreInfo &core = runtime.getCoreInfo();
  const CompilationOptions base = source->getBaseOptions();

  // The default lowering names the kernel in the tuning cache.
  auto defaults = Pipeline::configure(core, {}, base);
  if (!defaults)
    return defaults.takeError();
  std::optional<LoweredProgram> defaultLowering;
  if (knownKey) {
    kernel->key = *knownKey;
  } else {
    auto lowered = defaults->lower(def, diags);
    if (!lowered)
      return lowered.takeError();
    defaultLowering = std::move(*lowered);
    kernel->key =
        makeTcTuningKey(*defaultLowering->program, runtime, kernel->entryName,
                        def.def->getSizeVars(), def.sizes);
  }

  // The configuration given, else the tuning cache's, else the defaults.
  std::optional<Pipeline> chosen;
  if (llvm::Error error = kernel->chooseConfig(
          options, Pipeline::configureInto(chosen, core, base)))
    return error;
  if (kernel->config.empty())
    chosen = std::move(*defaults);

  auto lowered = kernel->config.empty() && defaultLowering
                     ? std::move(*defaultLowering)
                     : chosen->lower(def, diags);
  if (!lowered)
    return lowered.takeError();
  auto compiled = chosen->build(runtime, std::move(*lowered), diags);
  if (!compiled)
    return compiled.takeError();
  kernel->compiled = std::move(*compiled);
  if (llvm::Error error = kernel->allocateBuffers())
    return error;
  return kernel;
}

llvm::Error TcKernel::allocateBuffers() {
  for (const tc::LoweredTensor &tensor : compiled.def.tensors) {
    if (!getDType(tensor.type))
      return makeInputError("the element type of '" + tensor.name +
                            "' is not supported on the device yet");
    // What a call fills and reads, the host reaches directly where it can.
    void *host = nullptr;
    auto buffer =
        tensor.role == tc::TensorInfo::Role::Temporary
            ? runtime.allocate(getSizeInBytes(tensor))
            : runtime.allocateHostVisible(getSizeInBytes(tensor), &host);
    if (!buffer)
      return buffer.takeError();
    buffers.push_back(std::move(*buffer));
    hostViews.push_back(host);
    size_t index = buffers.size() - 1;
    if (tensor.role == tc::TensorInfo::Role::Input)
      inputIndices.push_back(index);
    else if (tensor.role == tc::TensorInfo::Role::Output)
      outputIndices.push_back(index);
  }
  for (const std::string &name : tc::getIncomingOutputs(*source->def.def))
    for (size_t i = 0; i < compiled.def.tensors.size(); ++i)
      if (compiled.def.tensors[i].name == name)
        incoming.push_back({i, {}});
  return restoreIncoming();
}

llvm::Expected<runtime::SearchSpace> TcKernel::getSearchSpace() const {
  llvm::StringRef firstKernel =
      compiled.def.kernels.front().function->getName();
  auto entry = compiled.executable->getEntry(firstKernel);
  if (!entry)
    return entry.takeError();
  // The knobs the default lowering consulted, as the kernel was built with
  // its options.
  const backend::CoreInfo &core = runtime.getCoreInfo();
  auto defaults = Pipeline::configure(core, {}, source->getBaseOptions());
  if (!defaults)
    return defaults.takeError();
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine quiet(sourceMgr, llvm::nulls());
  TcKnobs knobs;
  if (auto lowered = defaults->lower(source->def, quiet))
    knobs = findTcKnobs(lowered->def, *lowered->program);
  else
    llvm::consumeError(lowered.takeError());
  return makeTcSearchSpace(knobs, core, entry->info);
}

llvm::Expected<std::unique_ptr<Kernel>>
TcKernel::recompile(const runtime::Configuration &config) const {
  std::string messages;
  llvm::raw_string_ostream os(messages);
  llvm::SourceMgr scratch;
  DiagnosticEngine quiet(source->sourceMgr ? *source->sourceMgr : scratch, os);
  TcKernelOptions options = source->options;
  options.config = config;
  options.useTuningCache = false;
  auto kernel = compile(runtime, source, quiet, options, &key);
  if (!kernel)
    return kernel.takeError();
  return std::unique_ptr<Kernel>(std::move(*kernel));
}

llvm::Expected<KernelData> TcKernel::makeTuningInputs(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  KernelData inputs;
  // Inputs and the incoming values of outputs that take one.
  for (const tc::LoweredTensor &tensor : getTensors()) {
    if (tensor.role != tc::TensorInfo::Role::Input &&
        !takesIncomingValue(tensor.name))
      continue;
    runtime::DType dtype = *getDType(tensor.type);
    std::vector<unsigned char> bytes(getSizeInBytes(tensor));
    size_t size = runtime::getDTypeSize(dtype);
    for (size_t i = 0; i * size < bytes.size(); ++i) {
      double value = dist(rng);
      // Small non-negative integers can index other tensors (gather).
      if (dtype == runtime::DType::I32) {
        int32_t v = static_cast<int32_t>(std::floor(1.5 * (value + 1)));
        std::memcpy(&bytes[i * size], &v, size);
      } else if (dtype == runtime::DType::I64) {
        int64_t v = static_cast<int64_t>(std::floor(1.5 * (value + 1)));
        std::memcpy(&bytes[i * size], &v, size);
      } else if (dtype == runtime::DType::F32) {
        float v = static_cast<float>(value);
        std::memcpy(&bytes[i * size], &v, size);
      } else {
        std::memcpy(&bytes[i * size], &value, size);
      }
    }
    inputs.emplace_back(tensor.name, std::move(bytes));
  }
  return inputs;
}

llvm::Expected<std::vector<KernelOutput>>
TcKernel::runOnInputs(const KernelData &inputs) {
  for (const auto &[name, bytes] : inputs)
    if (llvm::Error error = write(name, bytes.data(), bytes.size()))
      return error;
  for (const tc::LoweredTensor &tensor : getTensors())
    if (tensor.role != tc::TensorInfo::Role::Input &&
        !takesIncomingValue(tensor.name))
      if (llvm::Error error = fill(tensor.name, 0xff))
        return error;
  auto timing = run(1);
  if (!timing)
    return timing.takeError();
  std::vector<KernelOutput> outputs;
  for (const tc::LoweredTensor &tensor : getTensors()) {
    if (tensor.role != tc::TensorInfo::Role::Output)
      continue;
    KernelOutput &output = outputs.emplace_back();
    output.name = "'" + tensor.name + "'";
    output.dtype = *getDType(tensor.type);
    output.bytes.resize(getSizeInBytes(tensor));
    if (llvm::Error error =
            read(tensor.name, output.bytes.data(), output.bytes.size()))
      return error;
  }
  return outputs;
}

llvm::Expected<std::unique_ptr<TcKernel>> TcKernel::compileText(
    runtime::Runtime &runtime, llvm::StringRef source, llvm::StringRef entry,
    const llvm::StringMap<int64_t> &sizes, const TcKernelOptions &options,
    llvm::StringRef bufferName) {
  // The kernel keeps the program for `recompile`.
  struct Owned {
    llvm::SourceMgr sourceMgr;
    std::unique_ptr<tc::Program> program;
  };
  auto owned = std::make_shared<Owned>();
  std::string messages;
  llvm::raw_string_ostream os(messages);
  DiagnosticEngine diags(owned->sourceMgr, os);
  unsigned bufferId = owned->sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  owned->program = tc::loadProgram(diags, bufferId);
  if (!owned->program)
    return makeInputError(llvm::StringRef(os.str()).rtrim());
  const tc::Def *def = tc::findEntry(*owned->program, entry);
  if (!def)
    return makeInputError("no def '" + entry + "' in " + bufferName);
  auto from = std::make_shared<Source>();
  from->def.program = owned->program.get();
  from->def.def = def;
  from->def.sizes = sizes;
  from->sourceMgr = &owned->sourceMgr;
  from->options = options;
  from->options.config.clear();
  from->owned = owned;
  auto kernel = compile(runtime, std::move(from), diags, options, nullptr);
  if (!kernel && diags.hasErrors()) {
    llvm::consumeError(kernel.takeError());
    return makeInputError(llvm::StringRef(os.str()).rtrim());
  }
  return kernel;
}

llvm::ArrayRef<tc::LoweredTensor> TcKernel::getTensors() const {
  return compiled.def.tensors;
}

const tc::DefRanges *TcKernel::getRanges() const {
  return source->def.ranges ? &*source->def.ranges : nullptr;
}

const tc::LoweredTensor *TcKernel::lookupTensor(llvm::StringRef name) const {
  for (const tc::LoweredTensor &tensor : compiled.def.tensors)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

size_t TcKernel::getSizeInBytes(const tc::LoweredTensor &tensor) const {
  return getNumElements(tensor) * getElementBytes(tensor);
}

size_t TcKernel::getElementBytes(const tc::LoweredTensor &tensor) const {
  std::optional<runtime::DType> dtype = getDType(tensor.type);
  return dtype ? runtime::getDTypeSize(*dtype) : 0;
}

bool TcKernel::takesIncomingValue(llvm::StringRef name) const {
  for (const Incoming &entry : incoming)
    if (compiled.def.tensors[entry.index].name == name)
      return true;
  return false;
}

TcKernel::Incoming *TcKernel::lookupIncoming(size_t index) {
  for (Incoming &entry : incoming)
    if (entry.index == index)
      return &entry;
  return nullptr;
}

llvm::Error TcKernel::restoreIncoming() {
  for (const Incoming &entry : incoming) {
    const runtime::Buffer &buffer = buffers[entry.index];
    llvm::Error error =
        entry.bytes.empty()
            ? runtime.fill(buffer, 0)
            : runtime.write(buffer, entry.bytes.data(), entry.bytes.size());
    if (error)
      return error;
  }
  incomingOverwritten = false;
  return llvm::Error::success();
}

llvm::Expected<const runtime::Buffer &>
TcKernel::getBuffer(llvm::StringRef name, size_t bytes) const {
  for (size_t i = 0; i < compiled.def.tensors.size(); ++i) {
    if (compiled.def.tensors[i].name != name)
      continue;
    size_t expected = getSizeInBytes(compiled.def.tensors[i]);
    if (bytes != expected)
      return makeInputError("'" + name + "' has " + llvm::Twine(expected) +
                            " bytes, not " + llvm::Twine(bytes));
    return buffers[i];
  }
  return makeInputError("'" + entryName + "' has no tensor '" + name + "'");
}

llvm::Error TcKernel::write(llvm::StringRef name, const void *data,
                            size_t bytes) {
  auto buffer = getBuffer(name, bytes);
  if (!buffer)
    return buffer.takeError();
  if (Incoming *entry = lookupIncoming(&*buffer - buffers.data())) {
    const auto *begin = static_cast<const unsigned char *>(data);
    entry->bytes.assign(begin, begin + bytes);
  }
  return runtime.write(*buffer, data, bytes);
}

llvm::Error TcKernel::read(llvm::StringRef name, void *data, size_t bytes) {
  auto buffer = getBuffer(name, bytes);
  if (!buffer)
    return buffer.takeError();
  return runtime.read(*buffer, data, bytes);
}

llvm::Error TcKernel::fill(llvm::StringRef name, uint8_t byte) {
  const tc::LoweredTensor *tensor = lookupTensor(name);
  if (!tensor)
    return makeInputError("'" + entryName + "' has no tensor '" + name + "'");
  if (Incoming *entry = lookupIncoming(tensor - compiled.def.tensors.data()))
    entry->bytes.assign(getSizeInBytes(*tensor), byte);
  return runtime.fill(*getBuffer(name, getSizeInBytes(*tensor)), byte);
}

std::vector<runtime::ArgValue>
TcKernel::getArguments(const tc::LoweredKernel &launch) const {
  std::vector<runtime::ArgValue> values;
  for (unsigned index : launch.tensorIndices) {
    const tc::LoweredTensor &tensor = compiled.def.tensors[index];
    runtime::TensorArg arg;
    arg.buffer = &buffers[index];
    arg.dtype = *getDType(tensor.type);
    arg.shape.assign(tensor.shape.rbegin(), tensor.shape.rend());
    values.push_back(std::move(arg));
  }
  return values;
}

llvm::Expected<runtime::Timing> TcKernel::run(unsigned repeat) {
  // Arguments per kernel, in its parameter order.
  std::vector<std::vector<runtime::ArgValue>> arguments;
  for (const tc::LoweredKernel &launch : compiled.def.kernels)
    arguments.push_back(getArguments(launch));
  runtime::Timing total;
  for (unsigned r = 0; r < std::max(1u, repeat); ++r) {
    if (incomingOverwritten)
      if (llvm::Error error = restoreIncoming())
        return error;
    incomingOverwritten = !incoming.empty();
    double kernelMs = 0, wallMs = 0;
    for (size_t k = 0; k < compiled.def.kernels.size(); ++k) {
      const tc::LoweredKernel &launch = compiled.def.kernels[k];
      std::array<size_t, 3> grid;
      for (unsigned d = 0; d < 3; ++d)
        grid[d] = static_cast<size_t>(launch.grid[d]);
      auto timing = compiled.executable->run(launch.function->getName(), grid,
                                             arguments[k], 1);
      if (!timing)
        return timing.takeError();
      kernelMs += timing->getMedianKernelMs();
      wallMs += timing->getMedianWallMs();
    }
    total.kernelMs.push_back(kernelMs);
    total.wallMs.push_back(wallMs);
  }
  return total;
}
