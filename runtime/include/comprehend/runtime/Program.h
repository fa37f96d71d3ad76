//===- Program.h - Programs and kernels of a platform -----------*- C++ -*-===//
//
// A Program is one SPIR-V module built for one device by its platform
// (Platform.h): an OpenCL program, or a CUDA module loaded from the PTX the
// backend emits for it. Its kernels are created on first use.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_PROGRAM_H
#define COMPREHEND_RUNTIME_PROGRAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace comprehend::runtime {

class Device;

/// One kernel of a program; the platform's subclass holds its handle.
class Kernel {
public:
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  virtual ~Kernel();

  llvm::StringRef getName() const { return name; }
  /// The number of arguments of the calling convention the kernel takes.
  unsigned getNumArgs() const { return numArgs; }

protected:
  Kernel(std::string name, unsigned numArgs)
      : name(std::move(name)), numArgs(numArgs) {}

private:
  std::string name;
  unsigned numArgs;
};

/// Where a program came from, for statistics and tests.
enum class ProgramOrigin {
  Built,     ///< translated/built from the SPIR-V now
  DiskCache, ///< loaded from the on-disk binary cache
};

/// One built module and the kernels created from it.
class Program {
public:
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  virtual ~Program();

  ProgramOrigin getOrigin() const { return origin; }

  /// The kernel named `name`; an input error naming the kernels the program
  /// has if there is none.
  llvm::Expected<Kernel &> getKernel(llvm::StringRef name);
  /// Names of all kernels in the program.
  virtual llvm::Expected<std::vector<std::string>> getKernelNames() const = 0;

protected:
  explicit Program(ProgramOrigin origin) : origin(origin) {}
  /// Creates the kernel `name`; an error of kind Input with the message
  /// getMissingKernelError gives when the module has no such kernel.
  virtual llvm::Expected<std::unique_ptr<Kernel>>
  createKernel(llvm::StringRef name) = 0;
  /// "no kernel 'name' in the module; it has 'a', 'b'".
  llvm::Error getMissingKernelError(llvm::StringRef name) const;
  /// Destroys the kernels (before the subclass releases the module).
  void clearKernels() { kernels.clear(); }

private:
  ProgramOrigin origin;
  llvm::StringMap<std::unique_ptr<Kernel>> kernels;
};

/// Options for building programs.
struct ProgramOptions {
  /// Directory of the on-disk cache of program binaries; empty disables it.
  std::string cacheDir;
  /// Extra options passed to clBuildProgram.
  std::string buildOptions;
};

/// The key of a module on a device (hex): module hash + device name + driver
/// version; used by the in-memory and on-disk caches.
std::string getProgramCacheKey(llvm::ArrayRef<uint32_t> spirv,
                               const Device &device);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_PROGRAM_H
