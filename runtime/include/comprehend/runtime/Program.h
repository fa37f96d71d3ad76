//===- Program.h - OpenCL programs built from SPIR-V ------------*- C++ -*-===//
//
// A Program is one SPIR-V module built for one device: through
// clCreateProgramWithIL where the device takes SPIR-V, through the in-process
// SPIR 1.2 bridge otherwise. Its kernels are created on first use.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_PROGRAM_H
#define COMPREHEND_RUNTIME_PROGRAM_H

#include "comprehend/runtime/OpenCL.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace comprehend::runtime {

class Device;

/// Owns one `cl_kernel`.
class Kernel {
public:
  Kernel(cl_kernel kernel, std::string name, unsigned numArgs)
      : kernel(kernel), name(std::move(name)), numArgs(numArgs) {}
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  ~Kernel();

  cl_kernel get() const { return kernel; }
  llvm::StringRef getName() const { return name; }
  /// CL_KERNEL_NUM_ARGS.
  unsigned getNumArgs() const { return numArgs; }

private:
  cl_kernel kernel;
  std::string name;
  unsigned numArgs;
};

/// Where a program came from, for statistics and tests.
enum class ProgramOrigin {
  Built,     ///< translated/built from the SPIR-V now
  DiskCache, ///< loaded from the on-disk binary cache
};

/// Owns one built `cl_program` and the kernels created from it.
class Program {
public:
  Program(cl_program program, ProgramOrigin origin)
      : program(program), origin(origin) {}
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program();

  cl_program get() const { return program; }
  ProgramOrigin getOrigin() const { return origin; }

  /// The kernel named `name`; an input error naming the kernels the program
  /// has if there is none.
  llvm::Expected<Kernel &> getKernel(llvm::StringRef name);
  /// Names of all kernels in the program.
  llvm::Expected<std::vector<std::string>> getKernelNames() const;

private:
  cl_program program;
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

/// Builds `spirv` for `device` in `context`, using and filling the on-disk
/// cache when `options.cacheDir` is set. Build failures are device errors
/// carrying the build log.
llvm::Expected<std::unique_ptr<Program>>
buildProgram(cl_context context, const Device &device,
             llvm::ArrayRef<uint32_t> spirv, const ProgramOptions &options);

/// The key of a module on a device (hex): module hash + device name + driver
/// version; used by the in-memory and on-disk caches.
std::string getProgramCacheKey(llvm::ArrayRef<uint32_t> spirv,
                               const Device &device);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_PROGRAM_H
