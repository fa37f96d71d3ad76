//===- Platform.h - The device layer under Runtime --------------*- C++ -*-===//
//
// A Runtime drives its device through one Platform: the API that runs it.
// OpenCL (OpenCLPlatform.h) builds SPIR-V (or SPIR 1.2 translated from it)
// with the ICD loader; CUDA (lib/CudaPlatform.cpp) turns the SPIR-V into PTX
// and drives the NVIDIA driver, loaded at run time. Everything above the
// platform (argument binding per the calling convention, group address
// tables, timing statistics, program caches) is shared.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_PLATFORM_H
#define COMPREHEND_RUNTIME_PLATFORM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace comprehend::runtime {

class Buffer;
class Kernel;
class Program;
struct ProgramOptions;

/// The API a device is driven through.
enum class PlatformKind {
  OpenCL,
  Cuda,
};

/// "opencl" or "cuda": the prefix of device specs such as `cuda:0`.
llvm::StringRef getPlatformKindName(PlatformKind kind);

/// Launch geometry: `grid` work-groups of `workGroupSize` work-items; the
/// global size is their product per dimension. On CUDA the grid is the grid
/// of blocks and the work-group is the block.
struct LaunchConfig {
  std::array<size_t, 3> grid = {1, 1, 1};
  std::array<size_t, 3> workGroupSize = {1, 1, 1};
};

/// One opened device. Buffers are named by a 64-bit handle whose meaning is
/// the platform's (a cl_mem, a CUdeviceptr). Implementations report failures
/// as RuntimeErrors (Error.h).
class Platform : public std::enable_shared_from_this<Platform> {
public:
  virtual ~Platform();

  virtual PlatformKind getKind() const = 0;

  /// Memory. `allocate` gets at least one byte.
  virtual llvm::Expected<uint64_t> allocate(size_t bytes) = 0;
  /// Frees a handle from allocate; never fails (errors are dropped, as a
  /// destructor would).
  virtual void release(uint64_t handle) = 0;
  virtual llvm::Error write(uint64_t handle, const void *data, size_t bytes,
                            size_t offset) = 0;
  virtual llvm::Error read(uint64_t handle, void *data, size_t bytes,
                           size_t offset) = 0;
  virtual llvm::Error fill(uint64_t handle, uint8_t byte, size_t bytes) = 0;
  /// Copies that may still be pending when they return (queued behind the
  /// commands before them): the host memory must stay as it is (write) or
  /// unused (read) until finish(). By default the blocking copies.
  virtual llvm::Error enqueueWrite(uint64_t handle, const void *data,
                                   size_t bytes, size_t offset) {
    return write(handle, data, bytes, offset);
  }
  virtual llvm::Error enqueueRead(uint64_t handle, void *data, size_t bytes,
                                  size_t offset) {
    return read(handle, data, bytes, offset);
  }
  /// A buffer whose contents the host reads and writes at `*host` while no
  /// command that uses it is pending, where the device's memory is the
  /// host's; elsewhere (`*host` null) an ordinary buffer.
  virtual llvm::Expected<uint64_t> allocateHostVisible(size_t bytes,
                                                       void **host) {
    *host = nullptr;
    return allocate(bytes);
  }
  /// Zero-copy: a handle whose kernels read (and, where `writable`, write)
  /// `bytes` of host memory at `data` in place (released with release()
  /// once the commands using it are finished), or 0 where the device cannot
  /// (its memory is not the host's, or `data` is not aligned as it
  /// requires). `elementBytes`: the size of the elements the kernels read
  /// it by, all the alignment memory they only read needs. The host must
  /// not touch the memory until finish().
  virtual llvm::Expected<uint64_t> wrapHostMemory(const void *data,
                                                  size_t bytes, bool writable,
                                                  size_t elementBytes) {
    (void)data;
    (void)bytes;
    (void)writable;
    (void)elementBytes;
    return 0;
  }
  /// The handle of `bytes` of device memory at device address `address`
  /// that another library allocated (a PyTorch CUDA tensor, say), for
  /// kernels to read and write in place; nothing is copied and release()
  /// is never called on it. An input error where the address is not memory
  /// of this device that holds `bytes`; a device error on platforms without
  /// device addresses (OpenCL).
  virtual llvm::Expected<uint64_t> wrapDeviceMemory(uint64_t address,
                                                    size_t bytes);
  /// The queue later launches go to: a CUstream on CUDA (0: the legacy
  /// default stream, the initial one), so that kernels order with another
  /// library's work on that stream. Ignored by platforms with one queue.
  virtual void setStream(uint64_t stream) { (void)stream; }
  /// The address kernels see for the first byte of the buffer.
  virtual llvm::Expected<uint64_t> getDeviceAddress(const Buffer &buffer) = 0;

  /// Builds a SPIR-V module of the backend for this device.
  virtual llvm::Expected<std::unique_ptr<Program>>
  buildProgram(llvm::ArrayRef<uint32_t> spirv,
               const ProgramOptions &options) = 0;

  /// Sets argument `index` of `kernel` to `size` bytes at `data` (a scalar
  /// in the calling convention's layout).
  virtual llvm::Error setArgument(Kernel &kernel, unsigned index, size_t size,
                                  const void *data) = 0;
  /// Sets argument `index` of `kernel` to the global pointer of `buffer`.
  virtual llvm::Error setBufferArgument(Kernel &kernel, unsigned index,
                                        const Buffer &buffer) = 0;
  /// Launches `kernel` with the arguments set so far and waits for it;
  /// returns the kernel time in milliseconds from the device's events.
  virtual llvm::Expected<double> launch(Kernel &kernel,
                                        const LaunchConfig &config) = 0;
  /// Launches `kernel` with the arguments set so far without waiting for it
  /// or timing it; a failure of the kernel itself surfaces at finish().
  virtual llvm::Error enqueue(Kernel &kernel, const LaunchConfig &config) = 0;
  /// Waits for every queued command.
  virtual llvm::Error finish() = 0;

  /// Whether the device has a second queue whose commands run on the thread
  /// that queues them (PoCL's `basic` device beside `pthread`): no hand-off
  /// to worker threads and back, one core.
  virtual bool hasCallerThreadQueue() const { return false; }
  /// Sends later commands (copies, launches, finish) to the caller-thread
  /// queue (true) or back to the device's own (false), after waiting for
  /// what the other queue holds. Nothing where there is no such queue.
  virtual llvm::Error setCallerThread(bool callerThread) {
    (void)callerThread;
    return llvm::Error::success();
  }
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_PLATFORM_H
