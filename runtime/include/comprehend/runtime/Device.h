//===- Device.h - OpenCL devices and their core info ------------*- C++ -*-===//
//
// Enumerates the OpenCL devices the ICD loader offers, derives from each the
// backend::CoreInfo the compiler targets, and picks one by index, name or the
// COMPREHEND_DEVICE environment variable.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_DEVICE_H
#define COMPREHEND_RUNTIME_DEVICE_H

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/runtime/OpenCL.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm::json {
class OStream;
}

namespace comprehend::runtime {

/// How a device consumes the SPIR-V modules of the backend.
enum class ModuleFormat {
  /// `clCreateProgramWithIL` (OpenCL 2.1+ or cl_khr_il_program).
  Spirv,
  /// SPIR 1.2 bitcode through `clCreateProgramWithBinary` (cl_khr_spir); the
  /// runtime translates the SPIR-V in-process with LLVMSPIRVLib.
  Spir12,
  /// Neither: the device cannot run our kernels.
  None,
};

llvm::StringRef getModuleFormatName(ModuleFormat format);

/// Everything the runtime queried from one device.
struct DeviceInfo {
  /// Position in the list of all devices of all platforms.
  unsigned index = 0;
  std::string platformName;
  std::string platformVersion;
  std::string name;
  std::string vendor;
  std::string type; ///< "cpu", "gpu", "accelerator" or "other"
  std::string deviceVersion;
  std::string driverVersion;
  std::string openCLCVersion;
  /// CL_DEVICE_IL_VERSION, e.g. "SPIR-V_1.0 SPIR-V_1.2"; empty if none.
  std::string ilVersions;
  llvm::SmallVector<std::string, 32> extensions;
  unsigned addressBits = 64;
  unsigned computeUnits = 1;
  uint64_t globalMemoryBytes = 0;
  uint64_t maxAllocationBytes = 0;
  llvm::SmallVector<uint64_t, 3> maxWorkItemSizes;
  ModuleFormat format = ModuleFormat::None;
  /// The target description the backend compiles for.
  backend::CoreInfo core;

  bool hasExtension(llvm::StringRef extension) const;
  bool canRunKernels() const { return format != ModuleFormat::None; }
  /// "platform / device", used for selection by name and in messages.
  std::string getFullName() const;
};

/// One OpenCL device: handles plus what was queried from it.
class Device {
public:
  Device(cl_platform_id platform, cl_device_id id, DeviceInfo info)
      : platform(platform), id(id), info(std::move(info)) {}

  cl_platform_id getPlatform() const { return platform; }
  cl_device_id getId() const { return id; }
  const DeviceInfo &getInfo() const { return info; }
  const backend::CoreInfo &getCoreInfo() const { return info.core; }

private:
  cl_platform_id platform;
  cl_device_id id;
  DeviceInfo info;
};

/// Every device of every platform, in ICD order. An error (exit code 3) if
/// there is no OpenCL platform at all; an empty list if platforms have no
/// devices.
llvm::Expected<std::vector<Device>> listDevices();

/// Queries one device (exposed for tests and for devices found otherwise).
llvm::Expected<DeviceInfo> queryDeviceInfo(cl_platform_id platform,
                                           cl_device_id device);

/// Picks a device. `spec` is a decimal index into listDevices() or a
/// case-insensitive substring of "platform / device"; empty means the
/// COMPREHEND_DEVICE environment variable, else the first device that can run
/// our kernels.
llvm::Expected<Device> selectDevice(llvm::StringRef spec = "");

/// Writes `info` as a JSON object.
void writeDeviceJson(llvm::json::OStream &json, const DeviceInfo &info);

/// Prints `info` for humans (several indented lines).
void printDevice(llvm::raw_ostream &os, const DeviceInfo &info);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_DEVICE_H
