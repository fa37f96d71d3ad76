//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
#include "CudaDriver.h"

#include "comprehend/runtime/Error.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace comprehend::runtime;
using namespace comprehend::runtime::cuda;
using llvm::StringRef;

namespace {
struct CudaErrorEntry {
  CUresult code;
  StringRef name;
  StringRef hint;
};
} // namespace

// The codes a user can meet through this runtime, named without asking the
// driver (which may be the one that failed to load).
static const CudaErrorEntry cudaErrors[] = {
    {1, "CUDA_ERROR_INVALID_VALUE", "an argument of the call is out of range"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY",
     "the tensors do not fit into device memory; use smaller sizes"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "the driver was not initialized"},
    {4, "CUDA_ERROR_DEINITIALIZED", "the driver is shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "the loaded libcuda is the toolkit's stub, not the driver; check the "
     "library path"},
    {100, "CUDA_ERROR_NO_DEVICE", "the driver finds no CUDA device"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "no device of that ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "the driver rejects the module"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "no current context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "the module has no code for this GPU"},
    {218, "CUDA_ERROR_INVALID_PTX",
     "the driver's JIT compiler rejects the PTX; see the JIT log"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "the driver has no PTX JIT compiler"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the driver is older than the PTX version; update the NVIDIA driver"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "an object of the call is invalid"},
    {500, "CUDA_ERROR_NOT_FOUND", "no kernel of that name is in the module"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "a kernel accessed memory out of bounds; the context is lost"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "the kernel needs more registers or threads than a block has; try a "
     "smaller work-group size"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the kernel ran into the watchdog"},
    {719, "CUDA_ERROR_LAUNCH_FAILED",
     "the kernel failed on the device; the context is lost"},
    {999, "CUDA_ERROR_UNKNOWN", "the driver failed for an unknown reason"},
};

static const CudaErrorEntry *lookup(CUresult code) {
  for (const CudaErrorEntry &entry : cudaErrors)
    if (entry.code == code)
      return &entry;
  return nullptr;
}

/// The name of `code` from our table, else from the driver's cuGetErrorName
/// (documented to work before cuInit), when `api` has it.
static std::string nameCudaError(CUresult code, const DriverApi &api) {
  if (const CudaErrorEntry *entry = lookup(code))
    return entry->name.str();
  const char *name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(code, &name) == CUDA_SUCCESS &&
      name)
    return name;
  return "unknown CUDA error";
}

static std::string formatCudaError(const llvm::Twine &call, CUresult code,
                                   StringRef name, const llvm::Twine &detail) {
  std::string message;
  llvm::raw_string_ostream os(message);
  const CudaErrorEntry *entry = lookup(code);
  os << call << " failed with " << name << " (" << code << "): "
     << (entry ? entry->hint
               : StringRef("check the arguments and the device (see "
                           "nvidia-smi)"));
  std::string extra = detail.str();
  if (!extra.empty())
    os << "\n" << StringRef(extra).rtrim();
  return message;
}

std::string cuda::getDriverLibraryName() {
  const char *name = std::getenv("COMPREHEND_CUDA_DRIVER");
  return name && *name ? name : "libcuda.so.1";
}

namespace {
/// The loaded driver, or why there is none.
struct LoadedDriver {
  DriverApi api{};
  std::string error;
};
} // namespace

/// Resolves every entry point of `api` from `library`; the name of the first
/// missing one, or empty.
static std::string resolve(void *library, DriverApi &api) {
  auto bind = [&](auto &slot, const char *symbol) {
    void *address = dlsym(library, symbol);
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
    return address != nullptr;
  };
#define BIND(FIELD, SYMBOL)                                                    \
  if (!bind(api.FIELD, SYMBOL))                                                \
    return SYMBOL;
  BIND(cuInit, "cuInit")
  BIND(cuDriverGetVersion, "cuDriverGetVersion")
  BIND(cuGetErrorName, "cuGetErrorName")
  BIND(cuDeviceGetCount, "cuDeviceGetCount")
  BIND(cuDeviceGet, "cuDeviceGet")
  BIND(cuDeviceGetName, "cuDeviceGetName")
  BIND(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  BIND(cuDeviceTotalMem, "cuDeviceTotalMem_v2")
  BIND(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  BIND(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
  BIND(cuCtxSetCurrent, "cuCtxSetCurrent")
  BIND(cuCtxSynchronize, "cuCtxSynchronize")
  BIND(cuMemAlloc, "cuMemAlloc_v2")
  BIND(cuMemFree, "cuMemFree_v2")
  BIND(cuMemcpyHtoD, "cuMemcpyHtoD_v2")
  BIND(cuMemcpyDtoH, "cuMemcpyDtoH_v2")
  BIND(cuMemsetD8, "cuMemsetD8_v2")
  BIND(cuPointerGetAttributes, "cuPointerGetAttributes")
  BIND(cuMemGetAddressRange, "cuMemGetAddressRange_v2")
  BIND(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  BIND(cuModuleUnload, "cuModuleUnload")
  BIND(cuModuleGetFunction, "cuModuleGetFunction")
  BIND(cuLaunchKernel, "cuLaunchKernel")
  BIND(cuEventCreate, "cuEventCreate")
  BIND(cuEventDestroy, "cuEventDestroy_v2")
  BIND(cuEventRecord, "cuEventRecord")
  BIND(cuEventSynchronize, "cuEventSynchronize")
  BIND(cuEventElapsedTime, "cuEventElapsedTime")
#undef BIND
  return "";
}

static LoadedDriver loadDriver() {
  LoadedDriver driver;
  std::string name = getDriverLibraryName();
  // The library stays loaded for the life of the process: the driver's
  // contexts and threads outlive any object of ours.
  void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    driver.error = "no CUDA driver (" + name + ") on this machine";
    if (name != "libcuda.so.1" && reason)
      driver.error += std::string(": ") + reason;
    return driver;
  }
  std::string missing = resolve(library, driver.api);
  if (!missing.empty()) {
    driver.error = "the CUDA driver library '" + name + "' has no " + missing +
                   ": it is not an NVIDIA driver (or one too old for CUDA 12 "
                   "entry points)";
    return driver;
  }
  if (CUresult code = driver.api.cuInit(0))
    driver.error =
        formatCudaError("cuInit", code, nameCudaError(code, driver.api), "");
  return driver;
}

static const LoadedDriver &getLoadedDriver() {
  static const LoadedDriver driver = loadDriver();
  return driver;
}

llvm::Expected<const DriverApi &> cuda::getDriver() {
  const LoadedDriver &driver = getLoadedDriver();
  if (!driver.error.empty())
    return makeDeviceError(driver.error);
  return driver.api;
}

std::string cuda::getCudaErrorName(CUresult code) {
  const LoadedDriver &driver = getLoadedDriver();
  return nameCudaError(code, driver.api);
}

llvm::Error cuda::makeCudaError(const llvm::Twine &call, CUresult code,
                                const llvm::Twine &detail) {
  return makeDeviceError(
      formatCudaError(call, code, getCudaErrorName(code), detail));
}
