//===- CudaDevice.cpp - CUDA devices and their core info ------------------===//
//
// What the CUDA driver reports about each device, in the DeviceInfo that
// OpenCL devices fill, with the core from backend::makeNvidiaCoreInfo.
//
//===----------------------------------------------------------------------===//
#include "CudaDriver.h"

#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

using namespace comprehend;
using namespace comprehend::runtime;
using namespace comprehend::runtime::cuda;
using llvm::Expected;

/// "CUDA 12.4" from cuDriverGetVersion's 1000 * major + 10 * minor.
static std::string getDriverVersionText(const DriverApi &api) {
  int version = 0;
  if (api.cuDriverGetVersion(&version) != CUDA_SUCCESS)
    return "CUDA";
  return "CUDA " + std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

static Expected<DeviceInfo> queryCudaDevice(const DriverApi &api,
                                            CUdevice device,
                                            const std::string &driverVersion) {
  DeviceInfo info;
  char name[256] = {};
  if (CUresult code = api.cuDeviceGetName(name, sizeof(name) - 1, device))
    return makeCudaError("cuDeviceGetName", code);
  info.name = name;
  size_t totalMemory = 0;
  if (CUresult code = api.cuDeviceTotalMem(&totalMemory, device))
    return makeCudaError("cuDeviceTotalMem", code);
  auto attribute = [&](CUdevice_attribute which) -> Expected<unsigned> {
    int value = 0;
    if (CUresult code = api.cuDeviceGetAttribute(&value, which, device))
      return makeCudaError("cuDeviceGetAttribute(" + llvm::Twine(which) + ")",
                           code);
    return static_cast<unsigned>(value);
  };
  unsigned values[9];
  const CUdevice_attribute attributes[9] = {
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (unsigned i = 0; i < 9; ++i) {
    auto value = attribute(attributes[i]);
    if (!value)
      return value.takeError();
    values[i] = *value;
  }
  auto [major, minor, sharedMemory, maxThreads, registers, multiprocessors,
        blockX, blockY, blockZ] = values;
  info.platform = PlatformKind::Cuda;
  info.platformName = "NVIDIA CUDA";
  info.platformVersion = driverVersion;
  info.vendor = "NVIDIA Corporation";
  info.type = "gpu";
  info.deviceVersion = "sm_" + std::to_string(major) + std::to_string(minor);
  info.driverVersion = driverVersion;
  info.addressBits = 64;
  info.computeUnits = multiprocessors;
  info.globalMemoryBytes = totalMemory;
  // CUDA has no per-allocation limit below the device's memory.
  info.maxAllocationBytes = totalMemory;
  info.maxWorkItemSizes = {blockX, blockY, blockZ};
  info.format = ModuleFormat::Ptx;
  info.core = backend::makeNvidiaCoreInfo(
      major * 10 + minor, sharedMemory, maxThreads, registers, multiprocessors);
  return info;
}

Expected<std::vector<Device>> runtime::listCudaDevices() {
  auto api = getDriver();
  if (!api)
    return api.takeError();
  int count = 0;
  if (CUresult code = api->cuDeviceGetCount(&count))
    return makeCudaError("cuDeviceGetCount", code);
  std::string driverVersion = getDriverVersionText(*api);
  std::vector<Device> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    if (CUresult code = api->cuDeviceGet(&device, ordinal))
      return makeCudaError("cuDeviceGet", code);
    auto info = queryCudaDevice(*api, device, driverVersion);
    if (!info)
      return info.takeError();
    info->index = info->platformIndex = static_cast<unsigned>(ordinal);
    devices.emplace_back(ordinal, std::move(*info));
  }
  return devices;
}
