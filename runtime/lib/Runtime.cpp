//===- Runtime.cpp - The C++ API of the Comprehend runtime ----------------===//
#include "comprehend/runtime/Runtime.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>

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

Runtime::Runtime(Device device, cl_context context, cl_command_queue queue,
                 RuntimeOptions options)
    : device(std::move(device)), context(context), queue(queue),
      options(std::move(options)) {}

Runtime::~Runtime() {
  if (queue)
    clFinish(queue);
  addressResult.reset();
  programs.clear();
  if (queue)
    clReleaseCommandQueue(queue);
  if (context)
    clReleaseContext(context);
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

  cl_int err = CL_SUCCESS;
  cl_device_id id = device.getId();
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM,
      reinterpret_cast<cl_context_properties>(device.getPlatform()), 0};
  cl_context context =
      clCreateContext(properties, 1, &id, nullptr, nullptr, &err);
  if (err)
    return makeCLError("clCreateContext", err);
  cl_queue_properties queueProperties[] = {CL_QUEUE_PROPERTIES,
                                           CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue queue =
      clCreateCommandQueueWithProperties(context, id, queueProperties, &err);
  if (err == CL_INVALID_OPERATION || err == CL_INVALID_VALUE) {
    // OpenCL 1.2 drivers only know the older entry point.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    queue = clCreateCommandQueue(context, id, CL_QUEUE_PROFILING_ENABLE, &err);
#pragma GCC diagnostic pop
  }
  if (err) {
    clReleaseContext(context);
    return makeCLError("clCreateCommandQueue", err);
  }
  return std::unique_ptr<Runtime>(
      new Runtime(std::move(device), context, queue, std::move(options)));
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
  auto program = buildProgram(context, device, spirv, programOptions);
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
  cl_int err = CL_SUCCESS;
  size_t size = std::max<size_t>(bytes, 1);
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err);
  if (err)
    return makeCLError("clCreateBuffer(" + std::to_string(size) + " bytes)",
                       err);
  return Buffer(mem, bytes);
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
  return checkCL(clEnqueueWriteBuffer(queue, buffer.get(), CL_TRUE, offset,
                                      bytes, data, 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
}

llvm::Error Runtime::read(const Buffer &buffer, void *data, size_t bytes,
                          size_t offset) {
  if (bytes == 0)
    return llvm::Error::success();
  return checkCL(clEnqueueReadBuffer(queue, buffer.get(), CL_TRUE, offset,
                                     bytes, data, 0, nullptr, nullptr),
                 "clEnqueueReadBuffer");
}

llvm::Error Runtime::fill(const Buffer &buffer, uint8_t byte) {
  if (buffer.getSize() == 0)
    return llvm::Error::success();
  if (llvm::Error err =
          checkCL(clEnqueueFillBuffer(queue, buffer.get(), &byte, 1, 0,
                                      buffer.getSize(), 0, nullptr, nullptr),
                  "clEnqueueFillBuffer"))
    return err;
  return finish();
}

/// `comprehend_address_of(ulong *p, ulong *out)`: `*out = (ulong)p`, in the
/// OpenCL 1.2 shape every device path of the runtime accepts.
static const char *const kAddressKernel = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %main "comprehend_address_of"
       %void = OpTypeVoid
      %ulong = OpTypeInt 64 0
        %ptr = OpTypePointer CrossWorkgroup %ulong
         %fn = OpTypeFunction %void %ptr %ptr
       %main = OpFunction %void None %fn
          %p = OpFunctionParameter %ptr
        %out = OpFunctionParameter %ptr
      %entry = OpLabel
       %addr = OpConvertPtrToU %ulong %p
               OpStore %out %addr Aligned 8
               OpReturn
               OpFunctionEnd
)";

Expected<uint64_t> Runtime::getDeviceAddress(const Buffer &buffer) {
  if (!addressKernel) {
    spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
    std::vector<uint32_t> words;
    if (!tools.Assemble(kAddressKernel, &words))
      return makeDeviceError("internal error: cannot assemble the address "
                             "kernel");
    auto program = loadProgram(words);
    if (!program)
      return program.takeError();
    auto kernel = (*program)->getKernel("comprehend_address_of");
    if (!kernel)
      return kernel.takeError();
    auto result = allocate(sizeof(uint64_t));
    if (!result)
      return result.takeError();
    addressKernel = &*kernel;
    addressResult = std::move(*result);
  }
  cl_mem args[] = {buffer.get(), addressResult.get()};
  for (unsigned i = 0; i < 2; ++i)
    if (llvm::Error err = checkCL(
            clSetKernelArg(addressKernel->get(), i, sizeof(cl_mem), &args[i]),
            "clSetKernelArg"))
      return err;
  size_t one = 1;
  if (llvm::Error err = checkCL(
          clEnqueueNDRangeKernel(queue, addressKernel->get(), 1, nullptr, &one,
                                 &one, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel"))
    return err;
  uint64_t address = 0;
  if (llvm::Error err = read(addressResult, &address, sizeof(address)))
    return err;
  return address;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

Expected<Buffer> Runtime::makeAddressTable(const GroupArg &group) {
  std::vector<uint64_t> addresses;
  addresses.reserve(group.buffers.size());
  // Members of a stacked group share a buffer: query each buffer once.
  llvm::DenseMap<cl_mem, uint64_t> bases;
  for (auto [buffer, offset] : llvm::zip(group.buffers, group.byteOffsets)) {
    auto it = bases.find(buffer->get());
    if (it == bases.end()) {
      auto base = getDeviceAddress(*buffer);
      if (!base)
        return base.takeError();
      it = bases.try_emplace(buffer->get(), *base).first;
    }
    addresses.push_back(it->second + offset);
  }
  return upload(addresses.data(), addresses.size() * sizeof(uint64_t));
}

Expected<BoundArguments>
Runtime::bindArguments(Kernel &kernel,
                       llvm::ArrayRef<backend::KernelArg> layout,
                       llvm::ArrayRef<ArgValue> values) {
  using Kind = backend::KernelArg::Kind;
  if (layout.size() != kernel.getNumArgs())
    return makeInputError("kernel '" + kernel.getName() + "' takes " +
                          llvm::Twine(kernel.getNumArgs()) +
                          " OpenCL arguments, but the calling convention "
                          "gives " +
                          llvm::Twine(layout.size()));
  BoundArguments bound;
  // Group address tables, made once per group parameter.
  llvm::DenseMap<unsigned, cl_mem> tables;
  for (size_t index = 0; index < layout.size(); ++index) {
    const backend::KernelArg &arg = layout[index];
    if (arg.paramIndex >= values.size())
      return makeInputError("no value for parameter " +
                            llvm::Twine(arg.paramIndex) + " of kernel '" +
                            kernel.getName() + "'");
    const ArgValue &value = values[arg.paramIndex];
    const auto *scalar = std::get_if<ScalarArg>(&value);
    const auto *tensor = std::get_if<TensorArg>(&value);
    const auto *group = std::get_if<GroupArg>(&value);
    auto wrongKind = [&](llvm::StringRef expected) {
      return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                            " of kernel '" + kernel.getName() + "' must be a " +
                            expected);
    };
    cl_uint argIndex = static_cast<cl_uint>(index);
    auto setValue = [&](size_t size, const void *data) {
      std::string call = ("clSetKernelArg(" + kernel.getName() + ", " +
                          llvm::Twine(argIndex) + ")")
                             .str();
      return checkCL(clSetKernelArg(kernel.get(), argIndex, size, data), call);
    };
    auto setI64 = [&](int64_t v) { return setValue(sizeof(v), &v); };
    auto setI64Array = [&](int64_t v, int64_t count) -> llvm::Error {
      std::vector<int64_t> values(std::max<int64_t>(count, 1), v);
      auto buffer = upload(values.data(), values.size() * sizeof(int64_t));
      if (!buffer)
        return buffer.takeError();
      cl_mem mem = buffer->get();
      bound.temporaries.push_back(std::move(*buffer));
      return setValue(sizeof(cl_mem), &mem);
    };

    llvm::Error err = llvm::Error::success();
    switch (arg.kind) {
    case Kind::Scalar:
      if (!scalar)
        return wrongKind("scalar");
      if (arg.sizeInBytes != scalar->getSize())
        return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                              " of kernel '" + kernel.getName() + "' takes " +
                              llvm::Twine(arg.sizeInBytes) + " bytes, but a " +
                              getDTypeName(scalar->dtype) + " was given");
      err = setValue(scalar->getSize(), scalar->bytes.data());
      break;
    case Kind::Pointer: {
      if (!tensor || !tensor->buffer)
        return wrongKind("memref");
      cl_mem mem = tensor->buffer->get();
      err = setValue(sizeof(cl_mem), &mem);
      break;
    }
    case Kind::DynamicShape:
    case Kind::DynamicStride: {
      if (!tensor)
        return wrongKind("memref");
      auto sizes = arg.kind == Kind::DynamicShape
                       ? llvm::SmallVector<int64_t, 4>(tensor->shape)
                       : tensor->getStrides();
      if (arg.mode >= sizes.size())
        return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                              " has no mode " + llvm::Twine(arg.mode));
      err = setI64(sizes[arg.mode]);
      break;
    }
    case Kind::GroupPointer: {
      if (!group)
        return wrongKind("group");
      auto it = tables.find(arg.paramIndex);
      if (it == tables.end()) {
        auto table = makeAddressTable(*group);
        if (!table)
          return table.takeError();
        it = tables.try_emplace(arg.paramIndex, table->get()).first;
        bound.temporaries.push_back(std::move(*table));
      }
      err = setValue(sizeof(cl_mem), &it->second);
      break;
    }
    case Kind::GroupShape:
    case Kind::GroupStride: {
      if (!group)
        return wrongKind("group");
      auto sizes = arg.kind == Kind::GroupShape
                       ? llvm::SmallVector<int64_t, 4>(group->shape)
                       : group->getStrides();
      if (arg.mode >= sizes.size())
        return makeInputError("parameter " + llvm::Twine(arg.paramIndex) +
                              " has no mode " + llvm::Twine(arg.mode));
      err = setI64Array(sizes[arg.mode], group->getSize());
      break;
    }
    case Kind::GroupSize:
      if (!group)
        return wrongKind("group");
      err = setI64(group->getSize());
      break;
    case Kind::GroupOffset:
      if (!group)
        return wrongKind("group");
      err = setI64(group->offset);
      break;
    }
    if (err)
      return err;
  }
  // Address tables are written by blocking copies; nothing else is pending.
  return bound;
}

static Expected<double> getKernelMs(cl_event event) {
  cl_ulong start = 0, end = 0;
  if (cl_int err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START,
                                           sizeof(start), &start, nullptr))
    return makeCLError("clGetEventProfilingInfo", err);
  if (cl_int err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END,
                                           sizeof(end), &end, nullptr))
    return makeCLError("clGetEventProfilingInfo", err);
  return static_cast<double>(end - start) * 1e-6;
}

Expected<Timing> Runtime::time(Kernel &kernel, const LaunchConfig &config,
                               unsigned repeat) {
  std::array<size_t, 3> global;
  for (unsigned i = 0; i < 3; ++i) {
    if (config.grid[i] == 0 || config.workGroupSize[i] == 0)
      return makeInputError("the grid and the work-group size must not be "
                            "empty");
    global[i] = config.grid[i] * config.workGroupSize[i];
  }
  Timing timing;
  for (unsigned i = 0; i < std::max(repeat, 1u); ++i) {
    cl_event event = nullptr;
    auto start = std::chrono::steady_clock::now();
    cl_int err =
        clEnqueueNDRangeKernel(queue, kernel.get(), 3, nullptr, global.data(),
                               config.workGroupSize.data(), 0, nullptr, &event);
    if (err)
      return makeCLError(
          ("clEnqueueNDRangeKernel(" + kernel.getName() + ")").str(), err);
    err = clWaitForEvents(1, &event);
    auto stop = std::chrono::steady_clock::now();
    if (err) {
      clReleaseEvent(event);
      return makeCLError(("clWaitForEvents(" + kernel.getName() + ")").str(),
                         err);
    }
    auto kernelMs = getKernelMs(event);
    clReleaseEvent(event);
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

llvm::Error Runtime::finish() { return checkCL(clFinish(queue), "clFinish"); }
