//===- CudaPlatform.cpp - Devices driven through the CUDA driver ----------===//
#include "CudaPlatform.h"
#include "CudaDriver.h"

#include "comprehend/backend/Ptx.h"
#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Program.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <climits>
#include <cstring>

using namespace comprehend;
using namespace comprehend::runtime;
using namespace comprehend::runtime::cuda;
using llvm::Expected;
using llvm::StringRef;

std::vector<std::pair<std::string, unsigned>>
runtime::listPtxEntries(StringRef ptx) {
  std::vector<std::pair<std::string, unsigned>> entries;
  size_t at = 0;
  while ((at = ptx.find(".entry ", at)) != StringRef::npos) {
    StringRef rest = ptx.substr(at + strlen(".entry ")).ltrim();
    size_t open = rest.find('(');
    size_t close = rest.find(')', open);
    if (open == StringRef::npos || close == StringRef::npos)
      break;
    StringRef name = rest.take_front(open).trim();
    StringRef params = rest.slice(open + 1, close);
    entries.emplace_back(name.str(), params.count(".param"));
    at = ptx.size() - rest.size() + close;
  }
  return entries;
}

namespace {

/// A CUfunction with the bytes of each argument set so far: cuLaunchKernel
/// takes the arguments at the launch, as pointers to their values.
class CudaKernel : public Kernel {
public:
  CudaKernel(CUfunction function, std::string name, unsigned numArgs)
      : Kernel(std::move(name), numArgs), function(function),
        arguments(numArgs) {}

  CUfunction function;
  /// One value per argument; empty until set.
  std::vector<std::vector<uint8_t>> arguments;
};

class CudaProgram : public Program {
public:
  CudaProgram(const DriverApi &api, CUmodule module, StringRef ptx)
      : Program(ProgramOrigin::Built), api(api), module(module),
        entries(listPtxEntries(ptx)) {}
  ~CudaProgram() override {
    clearKernels();
    api.cuModuleUnload(module);
  }

  Expected<std::vector<std::string>> getKernelNames() const override {
    std::vector<std::string> names;
    for (const auto &entry : entries)
      names.push_back(entry.first);
    return names;
  }

protected:
  Expected<std::unique_ptr<Kernel>> createKernel(StringRef name) override {
    auto entry = llvm::find_if(
        entries, [&](const auto &entry) { return entry.first == name; });
    if (entry == entries.end())
      return getMissingKernelError(name);
    CUfunction function = nullptr;
    if (CUresult code =
            api.cuModuleGetFunction(&function, module, entry->first.c_str()))
      return makeCudaError("cuModuleGetFunction('" + name + "')", code);
    return std::make_unique<CudaKernel>(function, entry->first, entry->second);
  }

private:
  const DriverApi &api;
  CUmodule module;
  std::vector<std::pair<std::string, unsigned>> entries;
};

class CudaPlatform : public Platform {
public:
  CudaPlatform(const DriverApi &api, Device device, CUdevice id,
               CUcontext context)
      : api(api), device(std::move(device)), id(id), context(context) {}
  ~CudaPlatform() override;
  llvm::Error initEvents();

  PlatformKind getKind() const override { return PlatformKind::Cuda; }

  Expected<uint64_t> allocate(size_t bytes) override;
  void release(uint64_t handle) override;
  llvm::Error write(uint64_t handle, const void *data, size_t bytes,
                    size_t offset) override;
  llvm::Error read(uint64_t handle, void *data, size_t bytes,
                   size_t offset) override;
  llvm::Error fill(uint64_t handle, uint8_t byte, size_t bytes) override;
  Expected<uint64_t> wrapDeviceMemory(uint64_t address, size_t bytes) override;
  void setStream(uint64_t handle) override {
    stream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(handle));
  }
  Expected<uint64_t> getDeviceAddress(const Buffer &buffer) override {
    return buffer.getHandle();
  }

  Expected<std::unique_ptr<Program>>
  buildProgram(llvm::ArrayRef<uint32_t> spirv,
               const ProgramOptions &options) override;

  llvm::Error setArgument(Kernel &kernel, unsigned index, size_t size,
                          const void *data) override;
  llvm::Error setBufferArgument(Kernel &kernel, unsigned index,
                                const Buffer &buffer) override {
    CUdeviceptr pointer = buffer.getHandle();
    return setArgument(kernel, index, sizeof(pointer), &pointer);
  }
  Expected<double> launch(Kernel &kernel, const LaunchConfig &config) override;
  llvm::Error enqueue(Kernel &kernel, const LaunchConfig &config) override;
  llvm::Error finish() override {
    if (llvm::Error err = makeCurrent())
      return err;
    return checkCuda(api.cuCtxSynchronize(), "cuCtxSynchronize");
  }

private:
  /// The driver's context is per thread: every call makes ours current
  /// first, so that any thread may use the Runtime.
  llvm::Error makeCurrent() {
    return checkCuda(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }
  llvm::Error checkLaunchShape(const Kernel &kernel,
                               const LaunchConfig &config) const;

  const DriverApi &api;
  Device device;
  CUdevice id;
  CUcontext context;
  CUevent start = nullptr, stop = nullptr;
  CUstream stream = nullptr;
};

} // namespace

Expected<std::shared_ptr<Platform>>
runtime::createCudaPlatform(const Device &device) {
  auto api = getDriver();
  if (!api)
    return api.takeError();
  CUdevice id = 0;
  if (CUresult code = api->cuDeviceGet(&id, device.getCudaOrdinal()))
    return makeCudaError("cuDeviceGet", code);
  CUcontext context = nullptr;
  if (CUresult code = api->cuDevicePrimaryCtxRetain(&context, id))
    return makeCudaError("cuDevicePrimaryCtxRetain", code);
  auto platform = std::make_shared<CudaPlatform>(*api, device, id, context);
  if (llvm::Error err = platform->initEvents())
    return err;
  return platform;
}

llvm::Error CudaPlatform::initEvents() {
  if (llvm::Error err = makeCurrent())
    return err;
  if (CUresult code = api.cuEventCreate(&start, 0))
    return makeCudaError("cuEventCreate", code);
  return checkCuda(api.cuEventCreate(&stop, 0), "cuEventCreate");
}

CudaPlatform::~CudaPlatform() {
  if (api.cuCtxSetCurrent(context) == CUDA_SUCCESS) {
    api.cuCtxSynchronize();
    if (start)
      api.cuEventDestroy(start);
    if (stop)
      api.cuEventDestroy(stop);
  }
  api.cuDevicePrimaryCtxRelease(id);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Expected<uint64_t> CudaPlatform::allocate(size_t bytes) {
  if (llvm::Error err = makeCurrent())
    return err;
  CUdeviceptr pointer = 0;
  if (CUresult code = api.cuMemAlloc(&pointer, bytes))
    return makeCudaError("cuMemAlloc(" + llvm::Twine(bytes) + " bytes)", code);
  return pointer;
}

void CudaPlatform::release(uint64_t handle) {
  if (handle && api.cuCtxSetCurrent(context) == CUDA_SUCCESS)
    api.cuMemFree(handle);
}

llvm::Error CudaPlatform::write(uint64_t handle, const void *data, size_t bytes,
                                size_t offset) {
  if (llvm::Error err = makeCurrent())
    return err;
  return checkCuda(api.cuMemcpyHtoD(handle + offset, data, bytes),
                   "cuMemcpyHtoD");
}

llvm::Error CudaPlatform::read(uint64_t handle, void *data, size_t bytes,
                               size_t offset) {
  if (llvm::Error err = makeCurrent())
    return err;
  return checkCuda(api.cuMemcpyDtoH(data, handle + offset, bytes),
                   "cuMemcpyDtoH");
}

llvm::Error CudaPlatform::fill(uint64_t handle, uint8_t byte, size_t bytes) {
  if (llvm::Error err = makeCurrent())
    return err;
  if (CUresult code = api.cuMemsetD8(handle, byte, bytes))
    return makeCudaError("cuMemsetD8", code);
  return checkCuda(api.cuCtxSynchronize(), "cuCtxSynchronize");
}

Expected<uint64_t> CudaPlatform::wrapDeviceMemory(uint64_t address,
                                                  size_t bytes) {
  if (llvm::Error err = makeCurrent())
    return err;
  auto where = [&] { return "device address 0x" + llvm::utohexstr(address); };
  // One query for both: pointers the driver does not know read as zeros.
  unsigned memoryType = 0;
  int ordinal = -1;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *values[] = {&memoryType, &ordinal};
  if (api.cuPointerGetAttributes(2, attributes, values, address) !=
          CUDA_SUCCESS ||
      (memoryType != CU_MEMORYTYPE_DEVICE &&
       memoryType != CU_MEMORYTYPE_UNIFIED))
    return makeInputError(where() + " is not CUDA device memory");
  // Managed memory belongs to no one device.
  if (memoryType == CU_MEMORYTYPE_DEVICE && ordinal != device.getCudaOrdinal())
    return makeInputError(
        where() + " is memory of cuda:" + llvm::Twine(ordinal) + ", not of " +
        device.getInfo().getFullName() +
        " (cuda:" + llvm::Twine(device.getCudaOrdinal()) + ")");
  // Memory mapped by other means may have no range to ask about; where it
  // has one, the tensor must lie inside it.
  CUdeviceptr base = 0;
  size_t size = 0;
  if (api.cuMemGetAddressRange(&base, &size, address) == CUDA_SUCCESS &&
      address - base + bytes > size)
    return makeInputError(
        where() + " holds " + llvm::Twine(base + size - address) +
        " bytes, fewer than the " + llvm::Twine(bytes) + " the tensor needs");
  return address;
}

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<Program>>
CudaPlatform::buildProgram(llvm::ArrayRef<uint32_t> spirv,
                           const ProgramOptions &) {
  auto ptx = backend::emitPtx(spirv, device.getCoreInfo());
  if (!ptx)
    return makeDeviceError("cannot translate the module to PTX for " +
                           device.getInfo().getFullName() + ": " +
                           llvm::toString(ptx.takeError()));
  if (llvm::Error err = makeCurrent())
    return err;
  std::string errorLog(16384, '\0'), infoLog(16384, '\0');
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      errorLog.data(), reinterpret_cast<void *>(uintptr_t(errorLog.size())),
      infoLog.data(), reinterpret_cast<void *>(uintptr_t(infoLog.size()))};
  CUmodule module = nullptr;
  CUresult code =
      api.cuModuleLoadDataEx(&module, ptx->c_str(), 4, options, values);
  if (code != CUDA_SUCCESS) {
    StringRef log = StringRef(errorLog.c_str()).trim();
    return makeCudaError("cuModuleLoadDataEx", code,
                         log.empty() ? llvm::Twine("(the JIT log is empty)")
                                     : llvm::Twine("JIT log:\n") + log);
  }
  return std::make_unique<CudaProgram>(api, module, *ptx);
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

llvm::Error CudaPlatform::setArgument(Kernel &kernel, unsigned index,
                                      size_t size, const void *data) {
  auto &arguments = static_cast<CudaKernel &>(kernel).arguments;
  if (index >= arguments.size())
    return makeInputError("kernel '" + kernel.getName() + "' has no argument " +
                          llvm::Twine(index) + " (it takes " +
                          llvm::Twine(arguments.size()) + ")");
  const auto *bytes = static_cast<const uint8_t *>(data);
  arguments[index].assign(bytes, bytes + size);
  return llvm::Error::success();
}

llvm::Error CudaPlatform::checkLaunchShape(const Kernel &kernel,
                                           const LaunchConfig &config) const {
  size_t threads = config.workGroupSize[0] * config.workGroupSize[1] *
                   config.workGroupSize[2];
  unsigned maxThreads = device.getCoreInfo().maxWorkGroupSize;
  if (threads > maxThreads)
    return makeDeviceError("cuLaunchKernel(" + kernel.getName() +
                           "): a work-group of " + llvm::Twine(threads) +
                           " work-items exceeds the device's " +
                           llvm::Twine(maxThreads) +
                           " threads per block; try a smaller work-group size");
  // CUDA's grid limits on every compute capability from 3.0 on: the
  // driver would refuse a larger grid with an unnamed invalid value.
  static const size_t maxGrid[3] = {(size_t(1) << 31) - 1, 65535, 65535};
  for (unsigned i = 0; i < 3; ++i)
    if (config.grid[i] > maxGrid[i])
      return makeDeviceError("cuLaunchKernel(" + kernel.getName() +
                             "): " + llvm::Twine(config.grid[i]) +
                             " work-groups in dimension " + llvm::Twine(i) +
                             " exceed CUDA's limit of " +
                             llvm::Twine(maxGrid[i]));
  return llvm::Error::success();
}

llvm::Error CudaPlatform::enqueue(Kernel &kernel, const LaunchConfig &config) {
  auto &cudaKernel = static_cast<CudaKernel &>(kernel);
  std::vector<void *> params;
  for (auto &value : cudaKernel.arguments) {
    if (value.empty())
      return makeDeviceError("cuLaunchKernel(" + kernel.getName() +
                             "): argument " + llvm::Twine(params.size()) +
                             " was not set; pass every parameter");
    params.push_back(value.data());
  }
  if (llvm::Error err = checkLaunchShape(kernel, config))
    return err;
  if (llvm::Error err = makeCurrent())
    return err;
  // Our local memory is static shared memory: no dynamic shared memory.
  if (CUresult code = api.cuLaunchKernel(
          cudaKernel.function, unsigned(config.grid[0]),
          unsigned(config.grid[1]), unsigned(config.grid[2]),
          unsigned(config.workGroupSize[0]), unsigned(config.workGroupSize[1]),
          unsigned(config.workGroupSize[2]), 0, stream, params.data(), nullptr))
    return makeCudaError(("cuLaunchKernel(" + kernel.getName() + ")").str(),
                         code);
  return llvm::Error::success();
}

Expected<double> CudaPlatform::launch(Kernel &kernel,
                                      const LaunchConfig &config) {
  if (llvm::Error err = makeCurrent())
    return err;
  std::string call = ("cuLaunchKernel(" + kernel.getName() + ")").str();
  if (CUresult code = api.cuEventRecord(start, stream))
    return makeCudaError("cuEventRecord", code);
  if (llvm::Error err = enqueue(kernel, config))
    return err;
  if (CUresult code = api.cuEventRecord(stop, stream))
    return makeCudaError("cuEventRecord", code);
  // Faults of the kernel surface here.
  if (CUresult code = api.cuEventSynchronize(stop))
    return makeCudaError(call, code);
  float ms = 0;
  if (CUresult code = api.cuEventElapsedTime(&ms, start, stop))
    return makeCudaError("cuEventElapsedTime", code);
  return static_cast<double>(ms);
}
