//===- Device.cpp - Devices of every platform: listing, selection ---------===//
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

using namespace comprehend;
using namespace comprehend::runtime;
using llvm::Expected;
using llvm::StringRef;

StringRef runtime::getModuleFormatName(ModuleFormat format) {
  switch (format) {
  case ModuleFormat::Spirv:
    return "spirv";
  case ModuleFormat::Spir12:
    return "spir-1.2";
  case ModuleFormat::Ptx:
    return "ptx";
  case ModuleFormat::None:
    return "none";
  }
  return "none";
}

bool DeviceInfo::hasExtension(StringRef extension) const {
  return llvm::is_contained(extensions, extension);
}

std::string DeviceInfo::getFullName() const {
  return platformName + " / " + name;
}

Expected<std::vector<Device>> runtime::listDevices() {
  auto openCL = listOpenCLDevices();
  auto cuda = listCudaDevices();
  std::vector<Device> devices;
  if (openCL) {
    devices = std::move(*openCL);
  } else if (!cuda || cuda->empty()) {
    // Neither platform: the OpenCL error says what to install.
    if (!cuda)
      llvm::consumeError(cuda.takeError());
    return openCL.takeError();
  } else {
    llvm::consumeError(openCL.takeError());
  }
  // Without an NVIDIA driver there are just no CUDA devices.
  if (!cuda) {
    llvm::consumeError(cuda.takeError());
    return devices;
  }
  for (Device &device : *cuda) {
    device.setIndex(devices.size());
    devices.push_back(std::move(device));
  }
  return devices;
}

static std::string countDevices(size_t count, StringRef platform) {
  std::string noun = (platform.empty() ? "" : platform + " ").str() + "device";
  return count == 1 ? "there is 1 " + noun
                    : "there are " + std::to_string(count) + " " + noun + "s";
}

/// `cuda`, `cuda:N`, `opencl`, `opencl:N` (any case): the platform and the
/// index among its devices (0 without one); nullopt for other specs.
static std::optional<std::pair<PlatformKind, unsigned>>
parsePlatformSpec(StringRef spec) {
  auto [prefix, index] = StringRef(spec).split(':');
  std::optional<PlatformKind> kind;
  for (PlatformKind candidate : {PlatformKind::OpenCL, PlatformKind::Cuda})
    if (prefix.equals_insensitive(getPlatformKindName(candidate)))
      kind = candidate;
  unsigned number = 0;
  if (!kind || (spec.contains(':') && index.getAsInteger(10, number)))
    return std::nullopt;
  return std::make_pair(*kind, number);
}

/// Selection by `opencl:N` / `cuda:N`. The platform's own listing error wins
/// (e.g. "no CUDA driver (libcuda.so.1) on this machine").
static Expected<Device> selectOnPlatform(std::vector<Device> &devices,
                                         PlatformKind kind, unsigned index,
                                         StringRef origin, StringRef spec) {
  bool isCuda = kind == PlatformKind::Cuda;
  auto own = isCuda ? listCudaDevices() : listOpenCLDevices();
  if (!own)
    return own.takeError();
  StringRef name = isCuda ? "CUDA" : "OpenCL";
  if (own->empty())
    return makeDeviceError("no " + name + " device: the " +
                           (isCuda ? "driver" : "installed platforms") +
                           " offer none");
  for (Device &device : devices)
    if (device.getPlatformKind() == kind &&
        device.getInfo().platformIndex == index)
      return std::move(device);
  return makeInputError(
      llvm::Twine(origin) + " " + spec +
          " is out of range: " + countDevices(own->size(), name),
      InputSubject::Device);
}

Expected<Device> runtime::selectDevice(StringRef spec) {
  std::string origin = "device";
  std::string specText = spec.trim().str();
  if (specText.empty()) {
    if (const char *env = std::getenv("COMPREHEND_DEVICE")) {
      specText = StringRef(env).trim().str();
      origin = "COMPREHEND_DEVICE";
    }
  }
  auto devices = listDevices();
  auto platformSpec = parsePlatformSpec(specText);
  if (platformSpec) {
    // A CUDA device needs no OpenCL platform.
    std::vector<Device> none;
    if (!devices)
      llvm::consumeError(devices.takeError());
    return selectOnPlatform(devices ? *devices : none, platformSpec->first,
                            platformSpec->second, origin, specText);
  }
  if (!devices)
    return devices.takeError();
  if (devices->empty())
    return makeDeviceError("no OpenCL device found: the installed platforms "
                           "offer no devices");

  if (specText.empty()) {
    for (Device &device : *devices)
      if (device.getInfo().canRunKernels())
        return std::move(device);
    return makeDeviceError(
        "no OpenCL device can run SPIR-V: none offers SPIR-V IL or "
        "cl_khr_spir with 64-bit addresses");
  }

  unsigned index = 0;
  if (!StringRef(specText).getAsInteger(10, index)) {
    if (index >= devices->size())
      return makeInputError(
          llvm::Twine(origin) + " " + specText +
              " is out of range: " + countDevices(devices->size(), ""),
          InputSubject::Device);
    return std::move((*devices)[index]);
  }
  std::string needle = StringRef(specText).lower();
  for (Device &device : *devices)
    if (StringRef(device.getInfo().getFullName()).lower().find(needle) !=
        std::string::npos)
      return std::move(device);
  return makeInputError(llvm::Twine(origin) + " '" + specText +
                            "' matches no device",
                        InputSubject::Device);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

void runtime::writeDeviceJson(llvm::json::OStream &json,
                              const DeviceInfo &info) {
  const backend::CoreInfo &core = info.core;
  json.object([&] {
    json.attribute("index", static_cast<int64_t>(info.index));
    json.attribute("api", getPlatformKindName(info.platform));
    json.attribute("api_index", static_cast<int64_t>(info.platformIndex));
    json.attribute("platform", info.platformName);
    json.attribute("platform_version", info.platformVersion);
    json.attribute("name", info.name);
    json.attribute("vendor", info.vendor);
    json.attribute("type", info.type);
    json.attribute("version", info.deviceVersion);
    json.attribute("driver_version", info.driverVersion);
    json.attribute("opencl_c_version", info.openCLCVersion);
    json.attribute("module_format", getModuleFormatName(info.format));
    json.attribute("il_versions", info.ilVersions);
    json.attribute("compute_units", static_cast<int64_t>(info.computeUnits));
    json.attribute("global_memory_bytes",
                   static_cast<int64_t>(info.globalMemoryBytes));
    json.attribute("max_allocation_bytes",
                   static_cast<int64_t>(info.maxAllocationBytes));
    json.attributeArray("max_work_item_sizes", [&] {
      for (uint64_t size : info.maxWorkItemSizes)
        json.value(static_cast<int64_t>(size));
    });
    json.attributeArray("extensions", [&] {
      for (const std::string &extension : info.extensions)
        json.value(extension);
    });
    json.attributeObject("core", [&] {
      json.attribute("name", core.name);
      json.attributeArray("subgroup_sizes", [&] {
        for (unsigned size : core.subgroupSizes)
          json.value(static_cast<int64_t>(size));
      });
      json.attribute("max_work_group_size",
                     static_cast<int64_t>(core.maxWorkGroupSize));
      json.attribute("local_memory_bytes",
                     static_cast<int64_t>(core.localMemoryBytes));
      json.attribute("dedicated_local_memory", core.dedicatedLocalMemory);
      json.attribute("register_budget",
                     static_cast<int64_t>(core.registerBudget));
      json.attribute("native_vector_width",
                     static_cast<int64_t>(core.nativeVectorWidth));
      json.attribute("data_cache_bytes",
                     static_cast<int64_t>(core.dataCacheBytes));
      json.attribute("fp64", core.features.fp64);
      json.attribute("fp16", core.features.fp16);
      json.attribute("int64_atomics", core.features.int64Atomics);
      json.attribute("float_atomics", core.features.floatAtomics);
      json.attribute("subgroups", core.features.subgroups);
      json.attribute("block_io_2d", core.features.blockIO2d);
      json.attribute("spirv_max_version",
                     (llvm::Twine(core.spirv.maxVersion >> 16) + "." +
                      llvm::Twine((core.spirv.maxVersion >> 8) & 0xff))
                         .str());
      json.attribute("opencl12_shaped", core.spirv.openCL12Shaped);
      json.attribute("cuda_compute_capability",
                     static_cast<int64_t>(core.cudaComputeCapability));
    });
  });
}

void runtime::printDevice(llvm::raw_ostream &os, const DeviceInfo &info) {
  const backend::CoreInfo &core = info.core;
  os << "device " << info.index << ": " << info.name << " (" << info.type
     << ")\n";
  os << "  platform:       " << info.platformName << " ("
     << info.platformVersion << "), select as "
     << getPlatformKindName(info.platform) << ":" << info.platformIndex << "\n";
  os << "  driver:         " << info.driverVersion << ", " << info.deviceVersion
     << "\n";
  os << "  kernels from:   " << getModuleFormatName(info.format);
  if (info.format == ModuleFormat::Spir12)
    os << " (SPIR-V translated in-process)";
  if (info.format == ModuleFormat::Ptx)
    os << " (SPIR-V translated in-process, compute capability "
       << core.cudaComputeCapability / 10 << "."
       << core.cudaComputeCapability % 10 << ", " << core.computeUnits
       << " multiprocessors)";
  if (!info.ilVersions.empty())
    os << ", IL " << info.ilVersions;
  os << "\n";
  os << "  subgroup sizes:";
  for (unsigned size : core.subgroupSizes)
    os << ' ' << size;
  os << "\n  work-group:     max " << core.maxWorkGroupSize << " work-items\n";
  os << "  local memory:   " << core.localMemoryBytes << " bytes"
     << (core.dedicatedLocalMemory ? "" : " (in global memory)") << "\n";
  os << "  vectors:        " << core.nativeVectorWidth << " floats, "
     << core.registerBudget << " register values per work-item\n";
  os << "  data cache:     ";
  if (core.dataCacheBytes)
    os << core.dataCacheBytes << " bytes\n";
  else
    os << "unknown\n";
  os << "  features:      ";
  auto feature = [&](StringRef name, bool on) {
    if (on)
      os << ' ' << name;
  };
  feature("fp64", core.features.fp64);
  feature("fp16", core.features.fp16);
  feature("int64-atomics", core.features.int64Atomics);
  feature("float-atomics", core.features.floatAtomics);
  feature("subgroups", core.features.subgroups);
  feature("block-io-2d", core.features.blockIO2d);
  os << "\n";
}
