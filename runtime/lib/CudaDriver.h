//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The runtime never links the CUDA driver and includes no CUDA header (Debian
// ships none): the few types, enum values and entry points it uses are
// declared here. They follow the CUDA driver API's documented ABI (cuda.h of
// CUDA 12: opaque handle pointers, a 64-bit CUdeviceptr, int enums, and the
// `_v2` symbols that cuda.h maps the plain names to). The library is opened
// with dlopen on first use: libcuda.so.1, which every NVIDIA driver installs,
// or the file COMPREHEND_CUDA_DRIVER names.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_LIB_CUDADRIVER_H
#define COMPREHEND_RUNTIME_LIB_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>

namespace comprehend::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUpointer_attribute = int;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// CUdevice_attribute values.
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK =
    1;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT =
    16;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

// CUpointer_attribute values of cuPointerGetAttribute, and the CUmemorytype
// values its CU_POINTER_ATTRIBUTE_MEMORY_TYPE answers.
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
inline constexpr CUpointer_attribute CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;
inline constexpr unsigned CU_MEMORYTYPE_DEVICE = 2;
inline constexpr unsigned CU_MEMORYTYPE_UNIFIED = 4;

// CUjit_option values of cuModuleLoadDataEx.
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

/// The entry points the runtime calls, resolved from the driver library.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attribute,
                                   CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source,
                           size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *destination, CUdeviceptr source, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value,
                         size_t count);
  CUresult (*cuPointerGetAttributes)(unsigned count,
                                     CUpointer_attribute *attributes,
                                     void **data, CUdeviceptr pointer);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *base, size_t *bytes,
                                   CUdeviceptr pointer);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, CUjit_option *options,
                                 void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedMemBytes, CUstream stream,
                             void **kernelParams, void **extra);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);
};

/// The driver, loaded and initialized (cuInit) once per process; an error of
/// kind Device when the library is missing, lacks an entry point or cuInit
/// fails. The same error is returned on every later call.
llvm::Expected<const DriverApi &> getDriver();

/// The library getDriver loads: COMPREHEND_CUDA_DRIVER or libcuda.so.1.
std::string getDriverLibraryName();

/// "CUDA_ERROR_OUT_OF_MEMORY" for a CUresult: our table of the codes a user
/// can meet, else the driver's cuGetErrorName, else "unknown CUDA error".
std::string getCudaErrorName(CUresult code);

/// "cuMemAlloc(1024 bytes) failed with CUDA_ERROR_OUT_OF_MEMORY (2): <hint>",
/// a device error; `detail` (a JIT log) follows on its own lines.
llvm::Error makeCudaError(const llvm::Twine &call, CUresult code,
                          const llvm::Twine &detail = "");

/// Success for CUDA_SUCCESS, makeCudaError otherwise.
inline llvm::Error checkCuda(CUresult code, const llvm::Twine &call) {
  if (code == CUDA_SUCCESS)
    return llvm::Error::success();
  return makeCudaError(call, code);
}

} // namespace comprehend::runtime::cuda

#endif // COMPREHEND_RUNTIME_LIB_CUDADRIVER_H
