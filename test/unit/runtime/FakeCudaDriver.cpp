//===- FakeCudaDriver.cpp - A CUDA driver for tests without a GPU ---------===//
//
// A shared library with the entry points of the CUDA driver that the runtime
// loads (runtime/lib/CudaDriver.h), selected through COMPREHEND_CUDA_DRIVER.
// One device, "Fake GPU" of compute capability 8.0, whose memory is host
// memory: copies and fills really happen, so the CUDA platform's memory path
// is tested end to end. Modules keep their PTX text; cuLaunchKernel runs
// nothing but records the grid, the block and the bytes of each parameter,
// sized from the entry's `.param` list, for the test to compare with what
// the calling convention binds. PTX without an entry is refused with a JIT
// log, as the driver refuses invalid PTX.
//
//===----------------------------------------------------------------------===//
#include "CudaDriver.h"

#include "FakeCudaDriver.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace comprehend::runtime::cuda;

namespace {
struct FakeModule {
  std::string ptx;
};
struct FakeFunction {
  std::string name;
  std::vector<size_t> paramSizes;
};

FakeLaunch lastLaunch;
int liveAllocations = 0;
int pointerQueries = 0;
/// The live allocations by address, with their sizes.
std::map<CUdeviceptr, size_t> allocations;

/// The allocation that holds `pointer`, or end().
std::map<CUdeviceptr, size_t>::const_iterator
findAllocation(CUdeviceptr pointer) {
  auto next = allocations.upper_bound(pointer);
  if (next == allocations.begin())
    return allocations.end();
  auto holder = std::prev(next);
  return pointer < holder->first + holder->second ? holder : allocations.end();
}

/// The byte size of each `.param` of entry `name`: `.u64` 8, `.f32` 4,
/// `.u8` 1, `.align N .b8 x[K]` K.
bool parseEntry(const std::string &ptx, const std::string &name,
                std::vector<size_t> &sizes) {
  size_t at = ptx.find(".entry " + name + "(");
  if (at == std::string::npos)
    return false;
  size_t end = ptx.find(')', at);
  size_t param = ptx.find(".param", at);
  while (param != std::string::npos && param < end) {
    size_t type = ptx.find('.', param + 6);
    size_t bits = ptx.find_first_of("0123456789", type);
    size_t size = std::strtoul(ptx.c_str() + bits, nullptr, 10) / 8;
    if (ptx.compare(type, 6, ".align") == 0) {
      size_t open = ptx.find('[', type);
      size = std::strtoul(ptx.c_str() + open + 1, nullptr, 10);
    }
    sizes.push_back(size);
    param = ptx.find(".param", param + 6);
  }
  return true;
}
} // namespace

extern "C" {

const FakeLaunch *fakeCudaLastLaunch() { return &lastLaunch; }
int fakeCudaLiveAllocations() { return liveAllocations; }
int fakeCudaPointerQueries() { return pointerQueries; }

CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *version) {
  *version = 12040;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult, const char **name) {
  *name = "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : 101;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::snprintf(name, length, "Fake GPU");
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute,
                              CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 8;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *value = 48 * 1024;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *value = 1024;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *value = 64;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    *value = 65536;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 4;
    return CUDA_SUCCESS;
  default:
    return 1;
  }
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = size_t(1) << 30;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&lastLaunch);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (bytes > (size_t(1) << 30))
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  *pointer = reinterpret_cast<CUdeviceptr>(std::calloc(bytes, 1));
  allocations[*pointer] = bytes;
  ++liveAllocations;
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  allocations.erase(pointer);
  --liveAllocations;
  return CUDA_SUCCESS;
}
/// Memory of the fake device is what cuMemAlloc returned; anything else
/// reads as zeros, as the driver answers for pageable host memory.
CUresult cuPointerGetAttributes(unsigned count, CUpointer_attribute *attributes,
                                void **data, CUdeviceptr pointer) {
  ++pointerQueries;
  bool known = findAllocation(pointer) != allocations.end();
  for (unsigned i = 0; i < count; ++i) {
    if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
      *static_cast<unsigned *>(data[i]) = known ? CU_MEMORYTYPE_DEVICE : 0;
    else if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
      *static_cast<int *>(data[i]) = known ? 0 : -2;
    else
      return 1; // CUDA_ERROR_INVALID_VALUE
  }
  return CUDA_SUCCESS;
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *bytes,
                                 CUdeviceptr pointer) {
  auto holder = findAllocation(pointer);
  if (holder == allocations.end())
    return 1;
  *base = holder->first;
  *bytes = holder->second;
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source,
                         size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes) {
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value,
                       size_t count) {
  std::memset(reinterpret_cast<void *>(destination), value, count);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                            unsigned numOptions, CUjit_option *options,
                            void **values) {
  const char *ptx = static_cast<const char *>(image);
  if (std::strstr(ptx, ".entry ")) {
    *module = reinterpret_cast<CUmodule>(new FakeModule{ptx});
    return CUDA_SUCCESS;
  }
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
      std::snprintf(static_cast<char *>(values[i]), 64,
                    "ptxas fatal   : the module has no entry");
  return 218; // CUDA_ERROR_INVALID_PTX
}
CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<FakeModule *>(module);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  auto *fake = new FakeFunction{name, {}};
  if (!parseEntry(reinterpret_cast<FakeModule *>(module)->ptx, name,
                  fake->paramSizes)) {
    delete fake;
    return 500; // CUDA_ERROR_NOT_FOUND
  }
  // Functions live as long as the process, as tests need.
  *function = reinterpret_cast<CUfunction>(fake);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMemBytes,
                        CUstream stream, void **params, void **) {
  auto *fake = reinterpret_cast<FakeFunction *>(function);
  lastLaunch = FakeLaunch{fake->name,
                          {gridX, gridY, gridZ},
                          {blockX, blockY, blockZ},
                          sharedMemBytes,
                          reinterpret_cast<uint64_t>(stream),
                          {}};
  for (size_t i = 0; i < fake->paramSizes.size(); ++i) {
    const auto *bytes = static_cast<const uint8_t *>(params[i]);
    lastLaunch.params.emplace_back(bytes, bytes + fake->paramSizes[i]);
  }
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *milliseconds, CUevent, CUevent) {
  *milliseconds = 0.25f;
  return CUDA_SUCCESS;
}

} // extern "C"
