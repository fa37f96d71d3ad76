//===- Runtime.h - The C++ API of the Comprehend runtime --------*- C++ -*-===//
//
// One Runtime is one device driven through its platform (Platform.h): an
// OpenCL context with an in-order, profiling command queue, or a CUDA context.
// It builds SPIR-V modules into programs (cached in memory per module and,
// optionally, on disk), allocates and copies tensors, binds arguments per the
// calling convention and launches kernels timed by the device's events.
//
//   auto rt = Runtime::create();                 // default device
//   auto program = (*rt)->loadProgram(spirvWords);
//   auto kernel = (*program)->getKernel("axpy");
//   auto x = (*rt)->upload(hostX.data(), bytes);
//   auto packed = (*rt)->bindArguments(*kernel, layout, {TensorArg{...}, ...});
//   auto time = (*rt)->launch(*kernel, {grid, workGroupSize});
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_RUNTIME_H
#define COMPREHEND_RUNTIME_RUNTIME_H

#include "comprehend/runtime/Arguments.h"
#include "comprehend/runtime/Buffer.h"
#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Platform.h"
#include "comprehend/runtime/Program.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace comprehend::runtime {

/// Options of a Runtime.
struct RuntimeOptions {
  /// Directory of the on-disk program binary cache. Empty: the
  /// COMPREHEND_PROGRAM_CACHE environment variable, and none if that is unset.
  std::string programCacheDir;
};

/// Times of repeated launches, in milliseconds.
struct Timing {
  /// Kernel execution from profiling events (end - start), one per launch.
  std::vector<double> kernelMs;
  /// Host wall-clock time from enqueue to completion, one per launch.
  std::vector<double> wallMs;

  double getMedianKernelMs() const;
  double getMedianWallMs() const;
};

/// Device memory that must outlive the launches using a set of bound
/// arguments (the address tables and dynamic shape arrays of groups).
class BoundArguments {
public:
  BoundArguments() = default;
  BoundArguments(BoundArguments &&) = default;
  BoundArguments &operator=(BoundArguments &&) = default;

private:
  friend class Runtime;
  std::vector<Buffer> temporaries;
};

/// One launch whose arguments were checked and laid out once
/// (Runtime::planLaunch): a call at a compiled shape replays it giving only
/// the buffers of its memref parameters, with no checks, allocations or
/// waits.
struct LaunchPlan {
  Kernel *kernel = nullptr;
  LaunchConfig config;
  struct Arg {
    unsigned index = 0;
    /// The parameter whose buffer this argument is; -1: `bytes` is the
    /// value.
    int param = -1;
    unsigned size = 0;
    std::array<unsigned char, 16> bytes{};
  };
  llvm::SmallVector<Arg, 8> args;
};

class Runtime {
public:
  /// Opens the device selected by `deviceSpec` (see selectDevice).
  static llvm::Expected<std::unique_ptr<Runtime>>
  create(llvm::StringRef deviceSpec = "", RuntimeOptions options = {});
  /// Opens `device`.
  static llvm::Expected<std::unique_ptr<Runtime>>
  create(Device device, RuntimeOptions options = {});

  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;
  ~Runtime();

  const Device &getDevice() const { return device; }
  const backend::CoreInfo &getCoreInfo() const { return device.getCoreInfo(); }
  /// The platform that drives the device (OpenCLPlatform on OpenCL
  /// devices, for libraries that need its queue).
  Platform &getPlatform() const { return *platform; }

  //===--------------------------------------------------------------------===//
  // Programs
  //===--------------------------------------------------------------------===//

  /// Builds (or finds in the caches) the program of a SPIR-V module. The
  /// program lives as long as the Runtime, or until every caller that loaded
  /// it has released it and kMaxIdlePrograms programs were released after it.
  llvm::Expected<Program *> loadProgram(llvm::ArrayRef<uint32_t> spirv);
  /// Gives back a program of loadProgram() that the caller no longer uses.
  void releaseProgram(Program *program);
  /// Released programs kept for a later load of the same module (LRU), so
  /// that a long-lived process that compiles ever new kernels stays bounded.
  static constexpr unsigned kMaxIdlePrograms = 32;
  /// Number of modules built from SPIR-V (not found in a cache) so far.
  unsigned getNumProgramBuilds() const { return numBuilds; }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// A device buffer of `bytes` bytes (at least one byte is allocated).
  llvm::Expected<Buffer> allocate(size_t bytes);
  /// A device buffer whose contents the host may read and write at
  /// `*host` (memcpy, no queued copy) while no command using it is pending;
  /// `*host` is null where the device's memory is not the host's.
  llvm::Expected<Buffer> allocateHostVisible(size_t bytes, void **host);
  /// A device buffer holding a copy of `data`.
  llvm::Expected<Buffer> upload(const void *data, size_t bytes);
  /// Blocking copy host -> device at `offset` bytes into `buffer`.
  llvm::Error write(const Buffer &buffer, const void *data, size_t bytes,
                    size_t offset = 0);
  /// Blocking copy device -> host.
  llvm::Error read(const Buffer &buffer, void *data, size_t bytes,
                   size_t offset = 0);
  /// Copies queued behind the commands before them, not waited for: the
  /// host memory must stay as it is (write) or unused (read) until finish().
  llvm::Error enqueueWrite(const Buffer &buffer, const void *data,
                           size_t bytes);
  llvm::Error enqueueRead(const Buffer &buffer, void *data, size_t bytes);
  /// A buffer that kernels read (and, where `writable`, write) `bytes` of
  /// host memory at `data` through in place (no copy), or an empty Buffer
  /// where the device cannot (Platform::wrapHostMemory; `elementBytes`: the
  /// size of the elements kernels access it by). Keep it until the launches
  /// using it finish.
  llvm::Expected<Buffer> wrapHostMemory(const void *data, size_t bytes,
                                        bool writable, size_t elementBytes);
  /// A borrowed buffer naming `bytes` of device memory at `address` that
  /// another library owns (Platform::wrapDeviceMemory): kernels read and
  /// write it in place, and it frees nothing.
  llvm::Expected<Buffer> wrapDeviceMemory(uint64_t address, size_t bytes);
  /// The queue later launches go to (Platform::setStream); 0 is the
  /// platform's own.
  void setStream(uint64_t stream) { platform->setStream(stream); }
  /// Whether the device can run commands on the calling thread, and the
  /// switch to that queue and back (Platform::setCallerThread).
  bool hasCallerThreadQueue() const { return platform->hasCallerThreadQueue(); }
  llvm::Error setCallerThread(bool callerThread) {
    return platform->setCallerThread(callerThread);
  }
  /// Fills the buffer with a repeated byte (e.g. poison before a launch).
  llvm::Error fill(const Buffer &buffer, uint8_t byte);
  /// The device address of the first byte of `buffer`, as kernels see it
  /// (the CUdeviceptr on CUDA; read back by a one-work-item kernel on OpenCL,
  /// see OpenCLPlatform::getDeviceAddress).
  llvm::Expected<uint64_t> getDeviceAddress(const Buffer &buffer);

  //===--------------------------------------------------------------------===//
  // Launches
  //===--------------------------------------------------------------------===//

  /// Sets the arguments of `kernel` from `values` (one per IR parameter) in
  /// the order of `layout` (the calling convention, from the backend or from
  /// computeArgLayout). Keep the result until the launches using it finish.
  llvm::Expected<BoundArguments>
  bindArguments(Kernel &kernel, llvm::ArrayRef<backend::KernelArg> layout,
                llvm::ArrayRef<ArgValue> values);

  /// Lays out the arguments of `values` (checked by the caller, see
  /// checkArguments) for replays of `enqueue`: memref parameters by their
  /// index, every other argument by value. Input error for a kernel that
  /// takes a group (its address tables are bound per launch).
  llvm::Expected<LaunchPlan>
  planLaunch(Kernel &kernel, llvm::ArrayRef<backend::KernelArg> layout,
             llvm::ArrayRef<ArgValue> values, const LaunchConfig &config);
  /// Sets the arguments of `plan` (`buffers[p]`: the buffer of memref
  /// parameter p) and queues its launch without waiting or timing.
  llvm::Error enqueue(const LaunchPlan &plan,
                      llvm::ArrayRef<const Buffer *> buffers);

  /// Launches once and waits; returns the kernel time in milliseconds.
  llvm::Expected<double> launch(Kernel &kernel, const LaunchConfig &config);
  /// Launches `repeat` times (each waited for) and collects the times.
  llvm::Expected<Timing> time(Kernel &kernel, const LaunchConfig &config,
                              unsigned repeat);
  /// Waits for every queued command.
  llvm::Error finish();

private:
  Runtime(Device device, std::shared_ptr<Platform> platform,
          RuntimeOptions options);
  llvm::Expected<Buffer> makeAddressTable(const GroupArg &group);
  llvm::Error bindArgument(Kernel &kernel, unsigned index,
                           const backend::KernelArg &arg,
                           llvm::ArrayRef<ArgValue> values,
                           BoundArguments &bound,
                           llvm::DenseMap<unsigned, size_t> &tables);

  Device device;
  std::shared_ptr<Platform> platform;
  RuntimeOptions options;
  llvm::StringMap<std::unique_ptr<Program>> programs;
  /// Per loaded program: its key in `programs` and how many callers use it.
  struct ProgramUse {
    std::string key;
    unsigned users = 0;
  };
  llvm::DenseMap<const Program *, ProgramUse> programUses;
  /// Programs without users, least recently released first.
  std::vector<const Program *> idlePrograms;
  std::mutex programsMutex; // releases may come from other threads (GC)
  unsigned numBuilds = 0;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_RUNTIME_H
