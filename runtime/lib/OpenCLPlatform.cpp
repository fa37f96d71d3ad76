//===- OpenCLPlatform.cpp - Devices driven through OpenCL -----------------===//
#include "comprehend/runtime/OpenCLPlatform.h"
#include "comprehend/runtime/Error.h"

#include <spirv-tools/libspirv.hpp>

#include <algorithm>
#include <cstdlib>

using namespace comprehend::runtime;
using llvm::Expected;

Platform::~Platform() = default;

Expected<uint64_t> Platform::wrapDeviceMemory(uint64_t, size_t) {
  return makeDeviceError("device memory of another library can only be "
                         "passed to a CUDA device; this device is driven "
                         "through " +
                         getPlatformKindName(getKind()));
}

llvm::StringRef comprehend::runtime::getPlatformKindName(PlatformKind kind) {
  return kind == PlatformKind::Cuda ? "cuda" : "opencl";
}

static uint64_t toHandle(cl_mem mem) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(mem));
}

static cl_mem toMem(uint64_t handle) {
  return reinterpret_cast<cl_mem>(static_cast<uintptr_t>(handle));
}

/// An in-order queue with profiling on `id`.
static Expected<cl_command_queue> createQueue(cl_context context,
                                              cl_device_id id) {
  cl_int err = CL_SUCCESS;
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
  if (err)
    return makeCLError("clCreateCommandQueue", err);
  return queue;
}

Expected<std::shared_ptr<OpenCLPlatform>>
OpenCLPlatform::create(const Device &device, std::string programCacheDir) {
  cl_int err = CL_SUCCESS;
  llvm::SmallVector<cl_device_id, 2> ids = {device.getCLDevice()};
  if (cl_device_id callerThread = device.getCallerThreadDevice())
    ids.push_back(callerThread);
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM,
      reinterpret_cast<cl_context_properties>(device.getCLPlatform()), 0};
  cl_context context =
      clCreateContext(properties, static_cast<cl_uint>(ids.size()), ids.data(),
                      nullptr, nullptr, &err);
  if (err)
    return makeCLError("clCreateContext", err);
  auto queue = createQueue(context, ids.front());
  if (!queue) {
    clReleaseContext(context);
    return queue.takeError();
  }
  cl_command_queue callerQueue = nullptr;
  if (ids.size() > 1) {
    auto created = createQueue(context, ids.back());
    if (!created) {
      clReleaseCommandQueue(*queue);
      clReleaseContext(context);
      return created.takeError();
    }
    callerQueue = *created;
  }
  auto platform = std::shared_ptr<OpenCLPlatform>(new OpenCLPlatform(
      device, context, *queue, callerQueue, std::move(programCacheDir)));
  platform->queryHostMemory(ids.front());
  return platform;
}

/// The alignment at which host memory that kernels write is used in place
/// at most: the widest vector store our kernels make on an x86 core
/// (AVX-512, 64 bytes; the backend proves its streaming stores' alignment
/// from the starts of the buffers they write, MarkStreamingStores.cpp), and
/// that of PyTorch's CPU tensors, half of which a device's own 128 would
/// have copied on every call. Memory that kernels only read needs its
/// elements' alignment: their loads claim no more (FunctionEmitter's
/// emitVectorLoad, backend/lib/spv/EmitParts.cpp). PoCL 3.1 uses
/// CL_MEM_USE_HOST_PTR memory in place at any alignment
/// (bench/results/call-overhead.md).
constexpr size_t kMaxInPlaceAlignment = 64;

/// Host memory is used in place only where the device's memory is the
/// host's (CL_DEVICE_HOST_UNIFIED_MEMORY, a CPU device such as PoCL's) and
/// at the alignment the device asks of every buffer, up to
/// kMaxInPlaceAlignment.
void OpenCLPlatform::queryHostMemory(cl_device_id id) {
  cl_bool unified = CL_FALSE;
  cl_uint alignBits = 0;
  cl_device_type type = 0;
  if (clGetDeviceInfo(id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified),
                      &unified, nullptr) ||
      clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(alignBits),
                      &alignBits, nullptr) ||
      clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(type), &type, nullptr))
    return;
  if (unified && (type & CL_DEVICE_TYPE_CPU))
    hostAlignment = std::clamp<size_t>(alignBits / 8, 1, kMaxInPlaceAlignment);
}

OpenCLPlatform::~OpenCLPlatform() {
  for (cl_command_queue each : {queue, callerQueue})
    if (each)
      clFinish(each);
  if (addressResult)
    clReleaseMemObject(addressResult);
  addressProgram.reset();
  for (cl_command_queue each : {queue, callerQueue})
    if (each)
      clReleaseCommandQueue(each);
  if (context)
    clReleaseContext(context);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Expected<uint64_t> OpenCLPlatform::allocate(size_t bytes) {
  cl_int err = CL_SUCCESS;
  size_t size = std::max<size_t>(bytes, 1);
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err);
  if (err)
    return makeCLError("clCreateBuffer(" + std::to_string(size) + " bytes)",
                       err);
  return toHandle(mem);
}

void OpenCLPlatform::release(uint64_t handle) {
  if (handle)
    clReleaseMemObject(toMem(handle));
}

llvm::Error OpenCLPlatform::write(uint64_t handle, const void *data,
                                  size_t bytes, size_t offset) {
  return checkCL(clEnqueueWriteBuffer(activeQueue, toMem(handle), CL_TRUE,
                                      offset, bytes, data, 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
}

llvm::Error OpenCLPlatform::read(uint64_t handle, void *data, size_t bytes,
                                 size_t offset) {
  return checkCL(clEnqueueReadBuffer(activeQueue, toMem(handle), CL_TRUE,
                                     offset, bytes, data, 0, nullptr, nullptr),
                 "clEnqueueReadBuffer");
}

llvm::Error OpenCLPlatform::fill(uint64_t handle, uint8_t byte, size_t bytes) {
  if (llvm::Error err =
          checkCL(clEnqueueFillBuffer(activeQueue, toMem(handle), &byte, 1, 0,
                                      bytes, 0, nullptr, nullptr),
                  "clEnqueueFillBuffer"))
    return err;
  return finish();
}

llvm::Error OpenCLPlatform::enqueueWrite(uint64_t handle, const void *data,
                                         size_t bytes, size_t offset) {
  return checkCL(clEnqueueWriteBuffer(activeQueue, toMem(handle), CL_FALSE,
                                      offset, bytes, data, 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
}

llvm::Error OpenCLPlatform::enqueueRead(uint64_t handle, void *data,
                                        size_t bytes, size_t offset) {
  return checkCL(clEnqueueReadBuffer(activeQueue, toMem(handle), CL_FALSE,
                                     offset, bytes, data, 0, nullptr, nullptr),
                 "clEnqueueReadBuffer");
}

Expected<uint64_t> OpenCLPlatform::wrapHostMemory(const void *data,
                                                  size_t bytes, bool writable,
                                                  size_t elementBytes) {
  size_t alignment =
      writable ? hostAlignment
               : std::min(hostAlignment, std::max<size_t>(elementBytes, 1));
  if (!hostAlignment || !data || bytes == 0 ||
      reinterpret_cast<uintptr_t>(data) % alignment)
    return 0;
  cl_int err = CL_SUCCESS;
  // An input is only read (CL_MEM_READ_ONLY: the host pointer is never
  // written through); an output is written in place.
  cl_mem_flags access = writable ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
  cl_mem mem = clCreateBuffer(context, access | CL_MEM_USE_HOST_PTR, bytes,
                              const_cast<void *>(data), &err);
  if (err)
    return makeCLError("clCreateBuffer(CL_MEM_USE_HOST_PTR)", err);
  return toHandle(mem);
}

/// Host memory of our own (aligned as the device asks) under a
/// CL_MEM_USE_HOST_PTR buffer: on a device whose memory is the host's the
/// kernels use it in place, so the host fills and reads it with memcpy
/// instead of queued copies. Freed when OpenCL destroys the buffer.
Expected<uint64_t> OpenCLPlatform::allocateHostVisible(size_t bytes,
                                                       void **host) {
  *host = nullptr;
  if (!hostAlignment)
    return allocate(bytes);
  size_t size = (std::max<size_t>(bytes, 1) + hostAlignment - 1) /
                hostAlignment * hostAlignment;
  void *memory = std::aligned_alloc(hostAlignment, size);
  if (!memory)
    return allocate(bytes);
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                              size, memory, &err);
  if (err) {
    std::free(memory);
    return makeCLError("clCreateBuffer(" + std::to_string(size) + " bytes)",
                       err);
  }
  err = clSetMemObjectDestructorCallback(
      mem, [](cl_mem, void *memory) { std::free(memory); }, memory);
  if (err) {
    clReleaseMemObject(mem);
    std::free(memory);
    return makeCLError("clSetMemObjectDestructorCallback", err);
  }
  *host = memory;
  return toHandle(mem);
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

llvm::Error OpenCLPlatform::loadAddressKernel() {
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  std::vector<uint32_t> words;
  if (!tools.Assemble(kAddressKernel, &words))
    return makeDeviceError("internal error: cannot assemble the address "
                           "kernel");
  ProgramOptions options;
  options.cacheDir = programCacheDir;
  auto program = buildOpenCLProgram(context, device, words, options);
  if (!program)
    return program.takeError();
  auto kernel = (*program)->getKernel("comprehend_address_of");
  if (!kernel)
    return kernel.takeError();
  auto result = allocate(sizeof(uint64_t));
  if (!result)
    return result.takeError();
  addressProgram = std::move(*program);
  addressKernel = static_cast<OpenCLKernel *>(&*kernel);
  addressResult = toMem(*result);
  return llvm::Error::success();
}

/// OpenCL 1.2 has no SVM and PoCL 3.1 offers neither SVM nor
/// cl_ext_buffer_device_address, so a one-work-item kernel stores
/// `(ulong)&buffer[0]` and the host reads it back. Valid because the buffer
/// never moves on devices whose memory is the host's (PoCL CPU); on discrete
/// devices an address taken this way is only valid while the buffer stays
/// resident.
Expected<uint64_t> OpenCLPlatform::getDeviceAddress(const Buffer &buffer) {
  if (!addressKernel)
    if (llvm::Error err = loadAddressKernel())
      return err;
  cl_mem args[] = {getMem(buffer), addressResult};
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
  // On the device's own queue whichever queue calls use: the address kernel
  // is built for that device alone.
  uint64_t address = 0;
  if (llvm::Error err = checkCL(
          clEnqueueReadBuffer(queue, addressResult, CL_TRUE, 0, sizeof(address),
                              &address, 0, nullptr, nullptr),
          "clEnqueueReadBuffer"))
    return err;
  return address;
}

//===----------------------------------------------------------------------===//
// Programs and launches
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Program>>
OpenCLPlatform::buildProgram(llvm::ArrayRef<uint32_t> spirv,
                             const ProgramOptions &options) {
  auto program = buildOpenCLProgram(context, device, spirv, options);
  if (!program)
    return program.takeError();
  return std::unique_ptr<Program>(std::move(*program));
}

/// The `cl_kernel` of `kernel` for `queue`: its own, or the one built for
/// the caller-thread device when `queue` is that device's.
static Expected<cl_kernel> getKernelFor(Kernel &kernel, bool callerThread) {
  auto &opencl = static_cast<OpenCLKernel &>(kernel);
  if (!callerThread)
    return opencl.get();
  return opencl.getCallerThreadKernel();
}

llvm::Error OpenCLPlatform::setArgument(Kernel &kernel, unsigned index,
                                        size_t size, const void *data) {
  auto handle = getKernelFor(kernel, activeQueue != queue);
  if (!handle)
    return handle.takeError();
  cl_int err = clSetKernelArg(*handle, index, size, data);
  if (err == CL_SUCCESS) // the message is built on failure only: calls are hot
    return llvm::Error::success();
  return makeCLError(
      ("clSetKernelArg(" + kernel.getName() + ", " + llvm::Twine(index) + ")")
          .str(),
      err);
}

llvm::Error OpenCLPlatform::setBufferArgument(Kernel &kernel, unsigned index,
                                              const Buffer &buffer) {
  cl_mem mem = getMem(buffer);
  return setArgument(kernel, index, sizeof(cl_mem), &mem);
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

llvm::Error OpenCLPlatform::enqueueKernel(Kernel &kernel,
                                          const LaunchConfig &config,
                                          cl_event *event) {
  std::array<size_t, 3> global;
  for (unsigned i = 0; i < 3; ++i)
    global[i] = config.grid[i] * config.workGroupSize[i];
  auto handle = getKernelFor(kernel, activeQueue != queue);
  if (!handle)
    return handle.takeError();
  cl_int err =
      clEnqueueNDRangeKernel(activeQueue, *handle, 3, nullptr, global.data(),
                             config.workGroupSize.data(), 0, nullptr, event);
  if (err == CL_SUCCESS)
    return llvm::Error::success();
  return makeCLError(("clEnqueueNDRangeKernel(" + kernel.getName() + ")").str(),
                     err);
}

llvm::Error OpenCLPlatform::enqueue(Kernel &kernel,
                                    const LaunchConfig &config) {
  return enqueueKernel(kernel, config, nullptr);
}

Expected<double> OpenCLPlatform::launch(Kernel &kernel,
                                        const LaunchConfig &config) {
  cl_event event = nullptr;
  if (llvm::Error err = enqueueKernel(kernel, config, &event))
    return err;
  cl_int err = clWaitForEvents(1, &event);
  if (err) {
    clReleaseEvent(event);
    return makeCLError(("clWaitForEvents(" + kernel.getName() + ")").str(),
                       err);
  }
  auto kernelMs = getKernelMs(event);
  clReleaseEvent(event);
  return kernelMs;
}

llvm::Error OpenCLPlatform::finish() {
  return checkCL(clFinish(activeQueue), "clFinish");
}

llvm::Error OpenCLPlatform::setCallerThread(bool callerThread) {
  cl_command_queue next = callerThread && callerQueue ? callerQueue : queue;
  if (next == activeQueue)
    return llvm::Error::success();
  // The queues are independent: what the one holds must be done before the
  // other's commands touch the same buffers.
  llvm::Error finished = finish();
  activeQueue = next;
  return finished;
}
