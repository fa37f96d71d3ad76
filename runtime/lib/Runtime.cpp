//===- Runtime.cpp - The C++ API of the Comprehend runtime ----------------===//
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/OpenCLPlatform.h"

#include "CudaPlatform.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::Expected;

static double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid]
                           : 0.5 * (values[mid - 1] + values[mid]);
}

double Timing::getMedianKernelMs() const { return median(kernelMs); }
double Timing::getMedianWallMs() const { return median(wallMs); }

Runtime::Runtime(Device device, std::shared_ptr<Platform> platform,
                 RuntimeOptions options)
    : device(std::move(device)), platform(std::move(platform)),
      options(std::move(options)) {}

Runtime::~Runtime() {
  if (llvm::Error err = platform->finish())
    llvm::consumeError(std::move(err));
  programs.clear();
}

Expected<std::unique_ptr<Runtime>> Runtime::create(llvm::StringRef deviceSpec,
                                                   RuntimeOptions options) {
  auto device = selectDevice(deviceSpec);
  if (!device)
    return device.takeError();
  return create(std::move(*device), std::move(options));
}

Expected<std::unique_ptr<Runtime>> Runtime::create(Device device,
                                                   RuntimeOptions options) {
  if (!device.getInfo().canRunKernels())
    return makeDeviceError("device '" + device.getInfo().getFullName() +
                           "' cannot run SPIR-V kernels (no SPIR-V IL, no "
                           "cl_khr_spir, or not 64-bit)");
  if (options.programCacheDir.empty())
    if (const char *dir = std::getenv("COMPREHEND_PROGRAM_CACHE"))
      options.programCacheDir = dir;
  Expected<std::shared_ptr<Platform>> platform =
      device.getPlatformKind() == PlatformKind::Cuda
          ? createCudaPlatform(device)
          : Expected<std::shared_ptr<Platform>>(
                OpenCLPlatform::create(device, options.programCacheDir));
  if (!platform)
    return platform.takeError();
  return std::unique_ptr<Runtime>(
      new Runtime(std::move(device), std::move(*platform), std::move(options)));
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

Expected<Program *> Runtime::loadProgram(llvm::ArrayRef<uint32_t> spirv) {
  std::string key = getProgramCacheKey(spirv, device);
  std::lock_guard<std::mutex> lock(programsMutex);
  auto it = programs.find(key);
  if (it != programs.end()) {
    Program *found = it->second.get();
    if (programUses[found].users++ == 0)
      llvm::erase_value(idlePrograms, found);
    return found;
  }
  ProgramOptions programOptions;
  programOptions.cacheDir = options.programCacheDir;
  auto program = platform->buildProgram(spirv, programOptions);
  if (!program)
    return program.takeError();
  if ((*program)->getOrigin() == ProgramOrigin::Built)
    ++numBuilds;
  Program *result = program->get();
  programs[key] = std::move(*program);
  programUses[result] = ProgramUse{key, 1};
  return result;
}

void Runtime::releaseProgram(Program *program) {
  std::lock_guard<std::mutex> lock(programsMutex);
  auto use = programUses.find(program);
  if (use == programUses.end() || use->second.users == 0 ||
      --use->second.users > 0)
    return;
  idlePrograms.push_back(program);
  if (idlePrograms.size() <= kMaxIdlePrograms)
    return;
  const Program *oldest = idlePrograms.front();
  idlePrograms.erase(idlePrograms.begin());
  auto entry = programUses.find(oldest);
  programs.erase(entry->second.key);
  programUses.erase(entry);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Expected<Buffer> Runtime::allocate(size_t bytes) {
  auto handle = platform->allocate(std::max<size_t>(bytes, 1));
  if (!handle)
    return handle.takeError();
  return Buffer(platform, *handle, bytes);
}

Expected<Buffer> Runtime::allocateHostVisible(size_t bytes, void **host) {
  auto handle = platform->allocateHostVisible(bytes, host);
  if (!handle)
    return handle.takeError();
  return Buffer(platform, *handle, bytes);
}

Expected<Buffer> Runtime::upload(const void *data, size_t bytes) {
  auto buffer = allocate(bytes);
  if (!buffer)
    return buffer.takeError();
  if (llvm::Error err = write(*buffer, data, bytes))
    return err;
  return buffer;
}

llvm::Error Runtime::write(const Buffer &buffer, const void *data, size_t bytes,
                           size_t offset) {
  if (bytes == 0)
    return llvm::Error::success();
  return platform->write(buffer.getHandle(), data, bytes, offset);
}

llvm::Error Runtime::read(const Buffer &buffer, void *data, size_t bytes,
                          size_t offset) {
  if (bytes == 0)
    return llvm::Error::success();
  return platform->read(buffer.getHandle(), data, bytes, offset);
}

llvm::Error Runtime::enqueueWrite(const Buffer &buffer, const void *data,
                                  size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success();
  return platform->enqueueWrite(buffer.getHandle(), data, bytes, 0);
}

llvm::Error Runtime::enqueueRead(const Buffer &buffer, void *data,
                                 size_t bytes) {
  if (bytes == 0)
    return llvm::Error::success();
  return platform->enqueueRead(buffer.getHandle(), data, bytes, 0);
}

Expected<Buffer> Runtime::wrapHostMemory(const void *data, size_t bytes,
                                         bool writable, size_t elementBytes) {
  auto handle = platform->wrapHostMemory(data, bytes, writable, elementBytes);
  if (!handle)
    return handle.takeError();
  if (!*handle)
    return Buffer();
  return Buffer(platform, *handle, bytes);
}

Expected<Buffer> Runtime::wrapDeviceMemory(uint64_t address, size_t bytes) {
  auto handle = platform->wrapDeviceMemory(address, bytes);
  if (!handle)
    return handle.takeError();
  return Buffer::borrow(platform, *handle, bytes);
}

llvm::Error Runtime::fill(const Buffer &buffer, uint8_t byte) {
  if (buffer.getSize() == 0)
    return llvm::Error::success();
  return platform->fill(buffer.getHandle(), byte, buffer.getSize());
}

Expected<uint64_t> Runtime::getDeviceAddress(const Buffer &buffer) {
  return platform->getDeviceAddress(buffer);
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

Expected<Buffer> Runtime::makeAddressTable(const GroupArg &group) {
  std::vector<uint64_t> addresses;
  addresses.reserve(group.buffers.size());
  // Members of a stacked group share a buffer: query each buffer once.
  llvm::DenseMap<const Buffer *, uint64_t> bases;
  for (auto [buffer, offset] : llvm::zip(group.buffers, group.byteOffsets)) {
    auto it = bases.find(buffer);
    if (it == bases.end()) {
      auto base = getDeviceAddress(*buffer);
      if (!base)
        return base.takeError();
      it = bases.try_emplace(buffer, *base).first;
    }
    addresses.push_back(it->second + offset);
  }
  return upload(addresses.data(), addresses.size() * sizeof(uint64_t));
}

Expected<BoundArguments>
Runtime::bindArguments(Kernel &kernel,
                       llvm::ArrayRef<backend::KernelArg> layout,
                       llvm::ArrayRef<ArgValue> values) {
  if (layout.size() != kernel.getNumArgs())
    return makeInputError(
        "kernel '" + kernel.getName() + "' takes " +
        llvm::Twine(kernel.getNumArgs()) + " " +
        (platform->getKind() == PlatformKind::Cuda ? "CUDA" : "OpenCL") +
        " arguments, but the calling convention gives " +
        llvm::Twine(layout.size()));
  BoundArguments bound;
  // Group address tables, made once per group parameter.
  llvm::DenseMap<unsigned, size_t> tables;
  for (size_t index = 0; index < layout.size(); ++index) {
    const backend::KernelArg &arg = layout[index];
    if (arg.paramIndex >= values.size())
      return makeInputError("no value for parameter " +
                            llvm::Twine(arg.paramIndex) + " of kernel '" +
                            kernel.getName() + "'");
    if (llvm::Error err = bindArgument(kernel, static_cast<unsigned>(index),
                                       arg, values, bound, tables))
      return err;
  }
  // Address tables are written by blocking copies; nothing else is pending.
  return bound;
}

/// The extent (DynamicShape, GroupShape) or the stride (DynamicStride,
/// GroupStride) of mode `arg.mode`.
static Expected<int64_t> getModeValue(const backend::KernelArg &arg,
                                      llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<int64_t> strides) {
  using Kind = backend::KernelArg::Kind;
  bool isShape = arg.kind == Kind::DynamicShape || arg.kind == Kind::GroupShape;
  llvm::ArrayRef<int64_t> sizes = isShape ? shape : strides;
  if (arg.mode >= sizes.size())
    return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                          " has no mode " + llvm::Twine(arg.mode));
  return sizes[arg.mode];
}

llvm::Error Runtime::bindArgument(Kernel &kernel, unsigned index,
                                  const backend::KernelArg &arg,
                                  llvm::ArrayRef<ArgValue> values,
                                  BoundArguments &bound,
                                  llvm::DenseMap<unsigned, size_t> &tables) {
  using Kind = backend::KernelArg::Kind;
  const ArgValue &value = values[arg.paramIndex];
  const auto *scalar = std::get_if<ScalarArg>(&value);
  const auto *tensor = std::get_if<TensorArg>(&value);
  const auto *group = std::get_if<GroupArg>(&value);
  bool wantsGroup =
      arg.kind == Kind::GroupPointer || arg.kind == Kind::GroupShape ||
      arg.kind == Kind::GroupStride || arg.kind == Kind::GroupSize ||
      arg.kind == Kind::GroupOffset;
  bool wantsScalar = arg.kind == Kind::Scalar;
  if (wantsScalar  ? !scalar
      : wantsGroup ? !group
                   : !tensor || (arg.kind == Kind::Pointer && !tensor->buffer))
    return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                          " of kernel '" + kernel.getName() + "' must be a " +
                          (wantsScalar  ? "scalar"
                           : wantsGroup ? "group"
                                        : "memref"));
  auto setI64 = [&](Expected<int64_t> v) -> llvm::Error {
    if (!v)
      return v.takeError();
    return platform->setArgument(kernel, index, sizeof(int64_t), &*v);
  };
  // A temporary buffer bound as a pointer argument and kept in `bound`.
  auto setTemporary = [&](Expected<Buffer> buffer) -> llvm::Error {
    if (!buffer)
      return buffer.takeError();
    bound.temporaries.push_back(std::move(*buffer));
    return platform->setBufferArgument(kernel, index, bound.temporaries.back());
  };

  switch (arg.kind) {
  case Kind::Scalar:
    if (arg.sizeInBytes != scalar->getSize())
      return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                            " of kernel '" + kernel.getName() + "' takes " +
                            llvm::Twine(arg.sizeInBytes) + " bytes, but a " +
                            getDTypeName(scalar->dtype) + " was given");
    return platform->setArgument(kernel, index, scalar->getSize(),
                                 scalar->bytes.data());
  case Kind::Pointer:
    return platform->setBufferArgument(kernel, index, *tensor->buffer);
  case Kind::DynamicShape:
  case Kind::DynamicStride:
    return setI64(getModeValue(arg, tensor->shape, tensor->getStrides()));
  case Kind::GroupPointer: {
    auto it = tables.find(arg.paramIndex);
    if (it != tables.end())
      return platform->setBufferArgument(kernel, index,
                                         bound.temporaries[it->second]);
    tables[arg.paramIndex] = bound.temporaries.size();
    return setTemporary(makeAddressTable(*group));
  }
  case Kind::GroupShape:
  case Kind::GroupStride: {
    auto size = getModeValue(arg, group->shape, group->getStrides());
    if (!size)
      return size.takeError();
    std::vector<int64_t> repeated(std::max<int64_t>(group->getSize(), 1),
                                  *size);
    return setTemporary(
        upload(repeated.data(), repeated.size() * sizeof(int64_t)));
  }
  case Kind::GroupSize:
    return setI64(group->getSize());
  case Kind::GroupOffset:
    return setI64(group->offset);
  }
  return llvm::Error::success();
}

Expected<LaunchPlan>
Runtime::planLaunch(Kernel &kernel, llvm::ArrayRef<backend::KernelArg> layout,
                    llvm::ArrayRef<ArgValue> values,
                    const LaunchConfig &config) {
  using Kind = backend::KernelArg::Kind;
  if (layout.size() != kernel.getNumArgs())
    return makeInputError("kernel '" + kernel.getName() + "' takes " +
                          llvm::Twine(kernel.getNumArgs()) +
                          " arguments, but the calling convention gives " +
                          llvm::Twine(layout.size()));
  LaunchPlan plan;
  plan.kernel = &kernel;
  plan.config = config;
  for (size_t index = 0; index < layout.size(); ++index) {
    const backend::KernelArg &arg = layout[index];
    LaunchPlan::Arg &planned = plan.args.emplace_back();
    planned.index = static_cast<unsigned>(index);
    const ArgValue *value =
        arg.paramIndex < values.size() ? &values[arg.paramIndex] : nullptr;
    const auto *scalar = value ? std::get_if<ScalarArg>(value) : nullptr;
    const auto *tensor = value ? std::get_if<TensorArg>(value) : nullptr;
    if (arg.kind == Kind::Scalar && scalar) {
      planned.size = scalar->getSize();
      planned.bytes = scalar->bytes;
    } else if (arg.kind == Kind::Pointer && tensor) {
      planned.param = static_cast<int>(arg.paramIndex);
    } else if ((arg.kind == Kind::DynamicShape ||
                arg.kind == Kind::DynamicStride) &&
               tensor) {
      auto mode = getModeValue(arg, tensor->shape, tensor->getStrides());
      if (!mode)
        return mode.takeError();
      planned.size = sizeof(int64_t);
      std::memcpy(planned.bytes.data(), &*mode, sizeof(int64_t));
    } else {
      return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                            " of kernel '" + kernel.getName() +
                            "' cannot be planned (a group, or no value)");
    }
  }
  return plan;
}

llvm::Error Runtime::enqueue(const LaunchPlan &plan,
                             llvm::ArrayRef<const Buffer *> buffers) {
  for (const LaunchPlan::Arg &arg : plan.args) {
    llvm::Error error =
        arg.param < 0 ? platform->setArgument(*plan.kernel, arg.index, arg.size,
                                              arg.bytes.data())
                      : platform->setBufferArgument(*plan.kernel, arg.index,
                                                    *buffers[arg.param]);
    if (error)
      return error;
  }
  return platform->enqueue(*plan.kernel, plan.config);
}

Expected<Timing> Runtime::time(Kernel &kernel, const LaunchConfig &config,
                               unsigned repeat) {
  for (unsigned i = 0; i < 3; ++i)
    if (config.grid[i] == 0 || config.workGroupSize[i] == 0)
      return makeInputError("the grid and the work-group size must not be "
                            "empty");
  Timing timing;
  for (unsigned i = 0; i < std::max(repeat, 1u); ++i) {
    auto start = std::chrono::steady_clock::now();
    auto kernelMs = platform->launch(kernel, config);
    auto stop = std::chrono::steady_clock::now();
    if (!kernelMs)
      return kernelMs.takeError();
    timing.kernelMs.push_back(*kernelMs);
    timing.wallMs.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return timing;
}

Expected<double> Runtime::launch(Kernel &kernel, const LaunchConfig &config) {
  auto timing = time(kernel, config, 1);
  if (!timing)
    return timing.takeError();
  return timing->kernelMs.front();
}

llvm::Error Runtime::finish() { return platform->finish(); }
