//===- OpenCLDevice.cpp - OpenCL devices and their core info --------------===//
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/TimeProfiler.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

static Expected<std::string>
getDeviceString(cl_device_id device, cl_device_info param, StringRef what) {
  size_t size = 0;
  if (cl_int err = clGetDeviceInfo(device, param, 0, nullptr, &size))
    return makeCLError(("clGetDeviceInfo(" + what + ")").str(), err);
  std::string value(size, '\0');
  if (cl_int err = clGetDeviceInfo(device, param, size, value.data(), nullptr))
    return makeCLError(("clGetDeviceInfo(" + what + ")").str(), err);
  // Drop the terminating NUL (and any padding drivers add).
  value.resize(StringRef(value.c_str()).size());
  return StringRef(value).trim().str();
}

static Expected<std::string> getPlatformString(cl_platform_id platform,
                                               cl_platform_info param,
                                               StringRef what) {
  size_t size = 0;
  if (cl_int err = clGetPlatformInfo(platform, param, 0, nullptr, &size))
    return makeCLError(("clGetPlatformInfo(" + what + ")").str(), err);
  std::string value(size, '\0');
  if (cl_int err =
          clGetPlatformInfo(platform, param, size, value.data(), nullptr))
    return makeCLError(("clGetPlatformInfo(" + what + ")").str(), err);
  value.resize(StringRef(value.c_str()).size());
  return StringRef(value).trim().str();
}

template <typename T>
static Expected<T> getDeviceValue(cl_device_id device, cl_device_info param,
                                  StringRef what) {
  T value{};
  if (cl_int err = clGetDeviceInfo(device, param, sizeof(T), &value, nullptr))
    return makeCLError(("clGetDeviceInfo(" + what + ")").str(), err);
  return value;
}

/// The highest "SPIR-V_major.minor" in an IL version string, as
/// (major << 16 | minor << 8); 0 if there is none.
static uint32_t getMaxSpirvVersion(StringRef ilVersions) {
  uint32_t best = 0;
  llvm::SmallVector<StringRef, 8> words;
  ilVersions.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef word : words) {
    if (!word.consume_front("SPIR-V_"))
      continue;
    auto [majorText, minorText] = word.split('.');
    unsigned major = 0, minor = 0;
    if (majorText.getAsInteger(10, major) || minorText.getAsInteger(10, minor))
      continue;
    best = std::max(best, (major << 16) | (minor << 8));
  }
  return best;
}

/// Sub-group sizes: the Intel query lists them; cl_khr_subgroups alone
/// gives no list without a kernel, so such devices (and all others) get {1}
/// and the backend does not rely on sub-groups there.
static llvm::SmallVector<unsigned, 4>
querySubgroupSizes(cl_device_id device, const DeviceInfo &info) {
  llvm::SmallVector<unsigned, 4> sizes;
  if (info.hasExtension("cl_intel_required_subgroup_size")) {
    size_t bytes = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr,
                        &bytes) == CL_SUCCESS &&
        bytes > 0) {
      std::vector<size_t> values(bytes / sizeof(size_t));
      if (clGetDeviceInfo(device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, bytes,
                          values.data(), nullptr) == CL_SUCCESS)
        for (size_t value : values)
          sizes.push_back(static_cast<unsigned>(value));
    }
  }
  llvm::sort(sizes);
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.empty())
    sizes.push_back(1);
  return sizes;
}

namespace {
/// The device limits that only the core info keeps.
struct DeviceLimits {
  size_t maxWorkGroupSize = 0;
  cl_ulong localMemory = 0;
  cl_device_local_mem_type localMemoryType = 0;
  cl_device_fp_config doubleConfig = 0;
  cl_uint vectorWidth = 0;
};
} // namespace

/// The names, versions, extensions, IL versions and type of `device`.
static llvm::Error queryDescription(cl_platform_id platform,
                                    cl_device_id device, DeviceInfo &info) {
#define QUERY_STRING(FIELD, PARAM)                                             \
  if (auto value = getDeviceString(device, PARAM, #PARAM))                     \
    info.FIELD = std::move(*value);                                            \
  else                                                                         \
    return value.takeError();
  QUERY_STRING(name, CL_DEVICE_NAME)
  QUERY_STRING(vendor, CL_DEVICE_VENDOR)
  QUERY_STRING(deviceVersion, CL_DEVICE_VERSION)
  QUERY_STRING(driverVersion, CL_DRIVER_VERSION)
  QUERY_STRING(openCLCVersion, CL_DEVICE_OPENCL_C_VERSION)
#undef QUERY_STRING
  if (auto value =
          getPlatformString(platform, CL_PLATFORM_NAME, "CL_PLATFORM_NAME"))
    info.platformName = std::move(*value);
  else
    return value.takeError();
  if (auto value = getPlatformString(platform, CL_PLATFORM_VERSION,
                                     "CL_PLATFORM_VERSION"))
    info.platformVersion = std::move(*value);
  else
    return value.takeError();
  auto extensions =
      getDeviceString(device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS");
  if (!extensions)
    return extensions.takeError();
  llvm::SmallVector<StringRef, 32> words;
  StringRef(*extensions).split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef word : words)
    info.extensions.push_back(word.str());

  // CL_DEVICE_IL_VERSION exists from OpenCL 2.1; older drivers reject the
  // query, which just means "no IL".
  if (auto il =
          getDeviceString(device, CL_DEVICE_IL_VERSION, "CL_DEVICE_IL_VERSION"))
    info.ilVersions = std::move(*il);
  else
    llvm::consumeError(il.takeError());

  auto type =
      getDeviceValue<cl_device_type>(device, CL_DEVICE_TYPE, "CL_DEVICE_TYPE");
  if (!type)
    return type.takeError();
  info.type = (*type & CL_DEVICE_TYPE_GPU)           ? "gpu"
              : (*type & CL_DEVICE_TYPE_CPU)         ? "cpu"
              : (*type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                     : "other";
  return llvm::Error::success();
}

/// The sizes and limits of `device`: into `info`, and those only the core
/// info keeps into `limits`.
static llvm::Error queryLimits(cl_device_id device, DeviceInfo &info,
                               DeviceLimits &limits) {
#define QUERY_VALUE(VAR, TYPE, PARAM)                                          \
  auto VAR = getDeviceValue<TYPE>(device, PARAM, #PARAM);                      \
  if (!VAR)                                                                    \
    return VAR.takeError();
  QUERY_VALUE(addressBits, cl_uint, CL_DEVICE_ADDRESS_BITS)
  QUERY_VALUE(computeUnits, cl_uint, CL_DEVICE_MAX_COMPUTE_UNITS)
  QUERY_VALUE(globalMemory, cl_ulong, CL_DEVICE_GLOBAL_MEM_SIZE)
  QUERY_VALUE(maxAllocation, cl_ulong, CL_DEVICE_MAX_MEM_ALLOC_SIZE)
  QUERY_VALUE(maxWorkGroupSize, size_t, CL_DEVICE_MAX_WORK_GROUP_SIZE)
  QUERY_VALUE(localMemory, cl_ulong, CL_DEVICE_LOCAL_MEM_SIZE)
  QUERY_VALUE(localMemoryType, cl_device_local_mem_type,
              CL_DEVICE_LOCAL_MEM_TYPE)
  QUERY_VALUE(doubleConfig, cl_device_fp_config, CL_DEVICE_DOUBLE_FP_CONFIG)
  QUERY_VALUE(dimensions, cl_uint, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)
  QUERY_VALUE(vectorWidth, cl_uint, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT)
#undef QUERY_VALUE
  info.addressBits = *addressBits;
  limits.maxWorkGroupSize = *maxWorkGroupSize;
  limits.localMemory = *localMemory;
  limits.localMemoryType = *localMemoryType;
  limits.doubleConfig = *doubleConfig;
  limits.vectorWidth = *vectorWidth;
  info.computeUnits = *computeUnits;
  info.globalMemoryBytes = *globalMemory;
  info.maxAllocationBytes = *maxAllocation;
  std::vector<size_t> itemSizes(*dimensions);
  if (cl_int err = clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                                   itemSizes.size() * sizeof(size_t),
                                   itemSizes.data(), nullptr))
    return makeCLError("clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)", err);
  for (size_t size : itemSizes)
    info.maxWorkItemSizes.push_back(size);
  return llvm::Error::success();
}

/// The module format `device` takes and the core info the backend compiles
/// for, from what queryDescription and queryLimits found.
static void deriveCoreInfo(cl_device_id device, DeviceInfo &info,
                           const DeviceLimits &limits) {
  uint32_t spirvVersion = getMaxSpirvVersion(info.ilVersions);
  if (spirvVersion != 0)
    info.format = ModuleFormat::Spirv;
  else if (info.hasExtension("cl_khr_spir"))
    info.format = ModuleFormat::Spir12;
  // Devices whose pointers are not 64 bits wide cannot run our Addresses
  // (Physical64) modules.
  if (info.addressBits != 64)
    info.format = ModuleFormat::None;

  backend::CoreInfo &core = info.core;
  core.name = info.name;
  // A module read through SPIR 1.2 can neither ask for a subgroup size nor
  // use the Groups capability (OpenCL 1.2), so such a device compiles as one
  // without subgroups, whatever sizes it offers (PoCL 5 offers 1 to 512).
  if (info.format == ModuleFormat::Spirv)
    core.subgroupSizes = querySubgroupSizes(device, info);
  else
    core.subgroupSizes = {1};
  core.maxWorkGroupSize = static_cast<unsigned>(limits.maxWorkGroupSize);
  core.localMemoryBytes = limits.localMemory;
  core.dedicatedLocalMemory = limits.localMemoryType == CL_LOCAL;
  // A CPU work-item holds its values in the core's vector registers, and
  // the device is the host, whose L1 data cache the C library knows
  // (OpenCL's CL_DEVICE_GLOBAL_MEM_CACHE_SIZE is the last level, or 0 on
  // PoCL). GPUs spill early and vectorise across a subgroup.
  if (info.type == "cpu") {
    core.nativeVectorWidth = std::max<cl_uint>(limits.vectorWidth, 1);
    core.registerBudget =
        backend::CoreInfo::getCpuRegisterBudget(core.nativeVectorWidth);
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    core.dataCacheBytes = l1 > 0 ? static_cast<uint64_t>(l1) : 0;
  } else {
    core.nativeVectorWidth = 1;
    core.registerBudget = 128;
  }
  core.features.fp64 =
      limits.doubleConfig != 0 || info.hasExtension("cl_khr_fp64");
  core.features.fp16 = info.hasExtension("cl_khr_fp16");
  core.features.int64Atomics =
      info.hasExtension("cl_khr_int64_base_atomics") &&
      info.hasExtension("cl_khr_int64_extended_atomics");
  core.features.floatAtomics = info.hasExtension("cl_ext_float_atomics");
  core.features.subgroups = core.subgroupSizes.back() > 1 &&
                            (info.hasExtension("cl_khr_subgroups") ||
                             info.hasExtension("cl_intel_subgroups"));
  core.features.blockIO2d = info.hasExtension("cl_intel_subgroup_2d_block_io");
  core.spirv.maxVersion = spirvVersion != 0 ? spirvVersion : 0x00010000;
  core.spirv.openCL12Shaped = info.format != ModuleFormat::Spirv;
}

Expected<DeviceInfo> runtime::queryDeviceInfo(cl_platform_id platform,
                                              cl_device_id device) {
  DeviceInfo info;
  if (llvm::Error error = queryDescription(platform, device, info))
    return error;
  DeviceLimits limits;
  if (llvm::Error error = queryLimits(device, info, limits))
    return error;
  deriveCoreInfo(device, info, limits);
  return info;
}

namespace {
/// What the runtime asked of PoCL before PoCL listed its devices.
struct PoclSetup {
  /// POCL_DEVICES was ours: PoCL lists `basic` beside `pthread`.
  bool askedForBasic = false;
};
} // namespace

/// PoCL reads its environment once, when its devices are first listed, so
/// the runtime sets it before its own first listing; a value already in the
/// environment wins.
///
/// POCL_AFFINITY: PoCL's CPU device leaves its worker threads to the OS
/// scheduler, which on a 2-core machine often runs both on one core for short
/// kernels: softmax 256x1024 took 0.15-0.25 ms unpinned against
/// 0.08-0.11 ms pinned, long kernels the same either way.
///
/// POCL_DEVICES: PoCL's `pthread` device hands each launch to its worker
/// threads and is woken by them when it is done, 26-65 us per launch and
/// wait on a 2-core machine, far more than a small kernel runs; its `basic`
/// device runs the kernel on the thread that queues it, in about 1 us, on one
/// core (bench/results/call-overhead.md). With "pthread basic" one context
/// holds both over the same memory, and the runtime runs each call where it
/// measures faster (CallPlacement.h). PoCL itself then lists `basic` first;
/// the runtime lists it nowhere, as the caller-thread device of `pthread`
/// (pairCallerThreadDevices). The variable is removed again once PoCL has
/// read it, so that child processes start from the user's environment.
static const PoclSetup &setPoclDefaults() {
  static const PoclSetup setup = [] {
    ::setenv("POCL_AFFINITY", "1", /*overwrite=*/0);
    PoclSetup result;
    if (!std::getenv("POCL_DEVICES")) {
      ::setenv("POCL_DEVICES", "pthread basic", /*overwrite=*/1);
      result.askedForBasic = true;
    }
    return result;
  }();
  return setup;
}

/// Undoes setPoclDefaults' POCL_DEVICES after the first listing.
static void restorePoclDevices(const PoclSetup &setup) {
  static const bool once = [&] {
    if (setup.askedForBasic)
      ::unsetenv("POCL_DEVICES");
    return true;
  }();
  (void)once;
}

/// The platform name PoCL reports (CL_PLATFORM_NAME).
constexpr StringRef kPoclPlatformName = "Portable Computing Language";

/// Where the runtime asked PoCL for its `basic` device, hides it from
/// `devices` (the devices of one platform) and makes it the caller-thread
/// device of PoCL's `pthread` device; nothing where either is missing.
static void pairCallerThreadDevices(const PoclSetup &setup,
                                    std::vector<Device> &devices) {
  if (!setup.askedForBasic || devices.empty() ||
      devices.front().getInfo().platformName != kPoclPlatformName)
    return;
  auto named = [&](StringRef prefix) {
    return llvm::find_if(devices, [&](const Device &device) {
      return StringRef(device.getInfo().name).startswith(prefix);
    });
  };
  auto basic = named("basic-"), pthread = named("pthread-");
  if (basic == devices.end() || pthread == devices.end())
    return;
  pthread->setCallerThreadDevice(basic->getCLDevice());
  devices.erase(basic);
}

/// The devices of one OpenCL platform, queried.
static Expected<std::vector<Device>>
listPlatformDevices(cl_platform_id platform) {
  std::vector<Device> devices;
  cl_uint numDevices = 0;
  cl_int err =
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &numDevices);
  if (err == CL_DEVICE_NOT_FOUND || numDevices == 0)
    return devices;
  if (err)
    return makeCLError("clGetDeviceIDs", err);
  std::vector<cl_device_id> ids(numDevices);
  if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, numDevices,
                            ids.data(), nullptr)))
    return makeCLError("clGetDeviceIDs", err);
  for (cl_device_id id : ids) {
    auto info = queryDeviceInfo(platform, id);
    if (!info)
      return info.takeError();
    devices.emplace_back(platform, id, std::move(*info));
  }
  return devices;
}

Expected<std::vector<Device>> runtime::listOpenCLDevices() {
  llvm::TimeTraceScope scope("list OpenCL devices");
  const PoclSetup &setup = setPoclDefaults();
  auto restore = llvm::make_scope_exit([&] { restorePoclDevices(setup); });
  cl_uint numPlatforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &numPlatforms);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && !numPlatforms))
    return makeDeviceError(
        "no OpenCL platform found: install an OpenCL driver (e.g. Debian "
        "'pocl-opencl-icd') or check OCL_ICD_VENDORS");
  if (err)
    return makeCLError("clGetPlatformIDs", err);
  std::vector<cl_platform_id> platforms(numPlatforms);
  if ((err = clGetPlatformIDs(numPlatforms, platforms.data(), nullptr)))
    return makeCLError("clGetPlatformIDs", err);

  std::vector<Device> devices;
  for (cl_platform_id platform : platforms) {
    auto found = listPlatformDevices(platform);
    if (!found)
      return found.takeError();
    pairCallerThreadDevices(setup, *found);
    for (Device &device : *found) {
      device.setIndex(devices.size());
      device.setPlatformIndex(devices.size());
      devices.push_back(std::move(device));
    }
  }
  return devices;
}
