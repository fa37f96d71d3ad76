//===- Device.h - Devices of every platform and their core info -*- C++ -*-===//
//
// Enumerates the OpenCL devices the ICD loader offers, then the CUDA devices
// of the NVIDIA driver when one is installed, derives from each the
// backend::CoreInfo the compiler targets, and picks one by index, platform
// and index (`cuda:0`), name or the COMPREHEND_DEVICE environment variable.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_DEVICE_H
#define COMPREHEND_RUNTIME_DEVICE_H

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/runtime/OpenCL.h"
#include "comprehend/runtime/Platform.h"

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
  /// PTX from the backend's NVPTX path (backend/Ptx.h), loaded by the CUDA
  /// driver.
  Ptx,
  /// None of these: the device cannot run our kernels.
  None,
};

llvm::StringRef getModuleFormatName(ModuleFormat format);

/// Everything the runtime queried from one device.
struct DeviceInfo {
  /// Position in the list of all devices of all platforms.
  unsigned index = 0;
  /// The API that runs the device, and the position among its devices (the
  /// N of `opencl:N`, `cuda:N`).
  PlatformKind platform = PlatformKind::OpenCL;
  unsigned platformIndex = 0;
  std::string platformName;
  std::string platformVersion;
  std::string name;
  std::string vendor;
  std::string type; ///< "cpu", "gpu", "accelerator" or "other"
  std::string deviceVersion;
  /// CL_DRIVER_VERSION; "CUDA major.minor" from cuDriverGetVersion, so that
  /// caches keyed by name and driver tell the platforms apart.
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

/// One device: its platform's handles plus what was queried from it.
class Device {
public:
  /// An OpenCL device.
  Device(cl_platform_id platform, cl_device_id id, DeviceInfo info)
      : clPlatform(platform), clDevice(id), info(std::move(info)) {}
  /// A CUDA device by its driver ordinal.
  Device(int cudaOrdinal, DeviceInfo info)
      : cudaOrdinal(cudaOrdinal), info(std::move(info)) {}

  PlatformKind getPlatformKind() const { return info.platform; }
  /// The OpenCL handles; null for devices of other platforms.
  cl_platform_id getCLPlatform() const { return clPlatform; }
  cl_device_id getCLDevice() const { return clDevice; }
  /// The CUdevice ordinal; -1 for devices of other platforms.
  int getCudaOrdinal() const { return cudaOrdinal; }
  /// A second OpenCL device of the same platform and memory that runs each
  /// kernel on the thread that queues it (PoCL's `basic` beside its
  /// `pthread`, see listOpenCLDevices); null where there is none. Calls of
  /// small kernels run there, without the hand-off to worker threads
  /// (OpenCLPlatform, CallPlacement.h).
  cl_device_id getCallerThreadDevice() const { return callerThreadDevice; }
  void setCallerThreadDevice(cl_device_id id) { callerThreadDevice = id; }
  const DeviceInfo &getInfo() const { return info; }
  const backend::CoreInfo &getCoreInfo() const { return info.core; }
  /// Sets DeviceInfo::index (the position in listDevices()).
  void setIndex(unsigned index) { info.index = index; }
  /// Sets DeviceInfo::platformIndex (the N of `opencl:N`, `cuda:N`).
  void setPlatformIndex(unsigned index) { info.platformIndex = index; }

private:
  cl_platform_id clPlatform = nullptr;
  cl_device_id clDevice = nullptr;
  cl_device_id callerThreadDevice = nullptr;
  int cudaOrdinal = -1;
  DeviceInfo info;
};

/// Every device of every platform: the OpenCL devices in ICD order (PoCL's
/// `basic` device hidden behind its `pthread` one where the runtime asked
/// PoCL for it, as the caller-thread device of that one), then the
/// CUDA devices when the NVIDIA driver is installed (none, silently, when it
/// is not). An error (exit code 3) if there is neither an OpenCL platform nor
/// a CUDA device; an empty list if the platforms have no devices.
llvm::Expected<std::vector<Device>> listDevices();

/// The OpenCL devices alone; an error if there is no OpenCL platform.
llvm::Expected<std::vector<Device>> listOpenCLDevices();

/// The CUDA devices alone; an error (exit code 3) when the driver library
/// cannot be loaded ("no CUDA driver (libcuda.so.1) on this machine"), lacks
/// an entry point, or cuInit fails. COMPREHEND_CUDA_DRIVER names another
/// library to load instead of libcuda.so.1.
llvm::Expected<std::vector<Device>> listCudaDevices();

/// Queries one device (exposed for tests and for devices found otherwise).
llvm::Expected<DeviceInfo> queryDeviceInfo(cl_platform_id platform,
                                           cl_device_id device);

/// Picks a device. `spec` is a decimal index into listDevices(), a platform
/// with an optional index among its devices (`cuda`, `cuda:0`, `opencl:1`),
/// or a case-insensitive substring of "platform / device"; empty means the
/// COMPREHEND_DEVICE environment variable, else the first device that can run
/// our kernels.
llvm::Expected<Device> selectDevice(llvm::StringRef spec = "");

/// Writes `info` as a JSON object.
void writeDeviceJson(llvm::json::OStream &json, const DeviceInfo &info);

/// Prints `info` for humans (several indented lines).
void printDevice(llvm::raw_ostream &os, const DeviceInfo &info);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_DEVICE_H
