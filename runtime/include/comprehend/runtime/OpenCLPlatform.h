//===- OpenCLPlatform.h - Devices driven through OpenCL ---------*- C++ -*-===//
//
// The OpenCL platform: one context and one in-order, profiling command queue
// per device, and a second queue on the device's caller-thread device where
// it has one (Device.h), to which setCallerThread() sends a call's commands.
// Programs are built from SPIR-V through clCreateProgramWithIL where the device
// takes SPIR-V, through the in-process SPIR 1.2 bridge otherwise
// (SpirBridge.h), and cached on disk as program binaries. Exposed so that
// OpenCL libraries (CLBlast in bench/) can share the queue and buffers of a
// Runtime on an OpenCL device.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_OPENCLPLATFORM_H
#define COMPREHEND_RUNTIME_OPENCLPLATFORM_H

#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/OpenCL.h"
#include "comprehend/runtime/Platform.h"
#include "comprehend/runtime/Program.h"

namespace comprehend::runtime {

class OpenCLProgram;

/// Owns one `cl_kernel`, and the same kernel built for the device's
/// caller-thread device once a launch there asks for it.
class OpenCLKernel : public Kernel {
public:
  OpenCLKernel(cl_kernel kernel, std::string name, unsigned numArgs,
               OpenCLProgram *program = nullptr)
      : Kernel(std::move(name), numArgs), kernel(kernel), program(program) {}
  ~OpenCLKernel() override;

  cl_kernel get() const { return kernel; }
  /// The kernel for the caller-thread device, built on the first call (its
  /// program too: OpenCLProgram::getCallerThreadProgram).
  llvm::Expected<cl_kernel> getCallerThreadKernel();

private:
  cl_kernel kernel;
  /// The program this kernel came from; null for kernels made elsewhere.
  OpenCLProgram *program;
  cl_kernel callerThreadKernel = nullptr;
};

/// What a program is built from, kept to build it again for the device's
/// caller-thread device when a call first runs there (Device.h): building
/// for both at once would double every new shape's build (PoCL links each
/// device's program separately: 0.5 s more per program on the 2-core
/// machine).
struct CallerThreadBuild {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  /// SPIR 1.2 bitcode (clCreateProgramWithBinary) or SPIR-V words as bytes
  /// (clCreateProgramWithIL).
  bool isSpirv = false;
  std::string module;
  std::string buildOptions;
};

/// Owns one built `cl_program` and the kernels created from it.
class OpenCLProgram : public Program {
public:
  OpenCLProgram(cl_program program, ProgramOrigin origin)
      : Program(origin), program(program) {}
  ~OpenCLProgram() override;

  cl_program get() const { return program; }
  llvm::Expected<std::vector<std::string>> getKernelNames() const override;

  /// Keeps what the program is built from, for getCallerThreadProgram.
  void setCallerThreadBuild(CallerThreadBuild build) {
    callerThreadBuild = std::move(build);
  }
  /// The program built for the caller-thread device (on the first call); a
  /// device error where the device has none.
  llvm::Expected<cl_program> getCallerThreadProgram();

protected:
  llvm::Expected<std::unique_ptr<Kernel>>
  createKernel(llvm::StringRef name) override;

private:
  cl_program program;
  CallerThreadBuild callerThreadBuild;
  cl_program callerThreadProgram = nullptr;
};

/// Builds `spirv` for `device` in `context`, using and filling the on-disk
/// cache when `options.cacheDir` is set. Build failures are device errors
/// carrying the build log.
llvm::Expected<std::unique_ptr<OpenCLProgram>>
buildOpenCLProgram(cl_context context, const Device &device,
                   llvm::ArrayRef<uint32_t> spirv,
                   const ProgramOptions &options);

class OpenCLPlatform : public Platform {
public:
  /// Creates the context and queue of an OpenCL `device`; the runtime's own
  /// programs use the binary cache in `programCacheDir` (none if empty).
  static llvm::Expected<std::shared_ptr<OpenCLPlatform>>
  create(const Device &device, std::string programCacheDir = "");
  ~OpenCLPlatform() override;

  PlatformKind getKind() const override { return PlatformKind::OpenCL; }
  cl_context getContext() const { return context; }
  cl_command_queue getQueue() const { return queue; }
  /// The `cl_mem` of a buffer of this platform.
  static cl_mem getMem(const Buffer &buffer) {
    return reinterpret_cast<cl_mem>(static_cast<uintptr_t>(buffer.getHandle()));
  }

  llvm::Expected<uint64_t> allocate(size_t bytes) override;
  void release(uint64_t handle) override;
  llvm::Error write(uint64_t handle, const void *data, size_t bytes,
                    size_t offset) override;
  llvm::Error read(uint64_t handle, void *data, size_t bytes,
                   size_t offset) override;
  llvm::Error fill(uint64_t handle, uint8_t byte, size_t bytes) override;
  llvm::Expected<uint64_t> getDeviceAddress(const Buffer &buffer) override;
  llvm::Error enqueueWrite(uint64_t handle, const void *data, size_t bytes,
                           size_t offset) override;
  llvm::Error enqueueRead(uint64_t handle, void *data, size_t bytes,
                          size_t offset) override;
  llvm::Expected<uint64_t> wrapHostMemory(const void *data, size_t bytes,
                                          bool writable,
                                          size_t elementBytes) override;
  llvm::Expected<uint64_t> allocateHostVisible(size_t bytes,
                                               void **host) override;

  llvm::Expected<std::unique_ptr<Program>>
  buildProgram(llvm::ArrayRef<uint32_t> spirv,
               const ProgramOptions &options) override;

  llvm::Error setArgument(Kernel &kernel, unsigned index, size_t size,
                          const void *data) override;
  llvm::Error setBufferArgument(Kernel &kernel, unsigned index,
                                const Buffer &buffer) override;
  llvm::Expected<double> launch(Kernel &kernel,
                                const LaunchConfig &config) override;
  llvm::Error enqueue(Kernel &kernel, const LaunchConfig &config) override;
  llvm::Error finish() override;
  bool hasCallerThreadQueue() const override { return callerQueue != nullptr; }
  llvm::Error setCallerThread(bool callerThread) override;

private:
  OpenCLPlatform(Device device, cl_context context, cl_command_queue queue,
                 cl_command_queue callerQueue, std::string programCacheDir)
      : device(std::move(device)), context(context), queue(queue),
        callerQueue(callerQueue), activeQueue(queue),
        programCacheDir(std::move(programCacheDir)) {}
  llvm::Error loadAddressKernel();
  void queryHostMemory(cl_device_id id);
  llvm::Error enqueueKernel(Kernel &kernel, const LaunchConfig &config,
                            cl_event *event);

  Device device;
  cl_context context;
  /// The device's own queue, and the caller-thread device's (null where
  /// there is none).
  cl_command_queue queue;
  cl_command_queue callerQueue;
  /// The queue commands go to: `queue` unless setCallerThread(true).
  cl_command_queue activeQueue;
  std::string programCacheDir;
  /// `comprehend_address_of`, built on the first getDeviceAddress.
  std::unique_ptr<OpenCLProgram> addressProgram;
  OpenCLKernel *addressKernel = nullptr;
  cl_mem addressResult = nullptr;
  /// The alignment at which host memory that kernels write is used in
  /// place (wrapHostMemory); 0: no host memory is.
  size_t hostAlignment = 0;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_OPENCLPLATFORM_H
