//===- CoreInfo.h - What the backend knows about a target core -*- C++ -*-===//
//
// The backend never asks OpenCL: everything it needs about a device is in a
// CoreInfo. Named presets serve offline compilation (`--target pocl-cpu`); the
// runtime builds one from a real device's queries.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_COREINFO_H
#define COMPREHEND_BACKEND_COREINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace comprehend::backend {

/// Optional capabilities of a core.
struct CoreFeatures {
  bool fp64 = false;
  bool fp16 = false;
  bool int64Atomics = false;
  bool floatAtomics = false; ///< atomic add/min/max on f32 (and f64 with fp64)
  bool subgroups = false;    ///< subgroup built-ins beyond size 1
  bool blockIO2d = false;    ///< 2D block loads/stores
};

/// How the SPIR-V for this core must look.
struct SpirvTarget {
  /// Highest SPIR-V version the consumer reads, as (major << 16 | minor << 8).
  uint32_t maxVersion = 0x00010400;
  /// The module reaches the device through LLVMSPIRVLib's reverse
  /// translation to SPIR 1.2 bitcode: no Generic storage class, typed
  /// pointers, imported built-in variables, no extensions it does not know.
  bool openCL12Shaped = true;
};

struct CoreInfo {
  std::string name;
  /// Supported subgroup sizes, ascending; {1} for a core without subgroups.
  llvm::SmallVector<unsigned, 4> subgroupSizes = {1};
  unsigned maxWorkGroupSize = 256;
  uint64_t localMemoryBytes = 32 * 1024;
  /// Whether local memory is on-chip memory of its own (OpenCL's
  /// CL_DEVICE_LOCAL_MEM_TYPE is CL_LOCAL). When it is carved out of global
  /// memory (CL_GLOBAL, e.g. PoCL on a CPU), staging data there only adds
  /// copies, so the lowerings keep temporaries in global memory by default.
  bool dedicatedLocalMemory = true;
  /// 32-bit registers a work-item may use before spilling hurts. On a CPU:
  /// its vector registers times their width (getCpuRegisterBudget).
  unsigned registerBudget = 128;
  /// Floats in one native SIMD vector of a work-item (OpenCL's
  /// CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT): 16 with AVX-512, 8 with AVX2; 1
  /// where subgroups are the vectors (GPUs).
  unsigned nativeVectorWidth = 1;
  /// Bytes of the data cache nearest to a work-item (L1d of a CPU core);
  /// 0 when unknown. The gemm lowering sizes its K blocks to it.
  uint64_t dataCacheBytes = 0;
  /// Streaming multiprocessors / compute units; 0 when unknown.
  unsigned computeUnits = 0;
  /// CUDA compute capability as major * 10 + minor (80 for sm_80); 0 for a
  /// core that is not an NVIDIA GPU. Such a core takes the SPIR-V through
  /// PTX (Ptx.h) instead of an OpenCL driver.
  unsigned cudaComputeCapability = 0;
  CoreFeatures features;
  SpirvTarget spirv;

  bool isNvidia() const { return cudaComputeCapability != 0; }
  bool supportsSubgroupSize(unsigned size) const;
  /// The size the backend picks when a function does not ask for one.
  unsigned defaultSubgroupSize() const;

  /// The register budget of a CPU core whose vectors hold
  /// \p nativeVectorWidth floats: 32 vector registers with 16-float vectors
  /// (AVX-512), else 16 (SSE, AVX, AVX2).
  static unsigned getCpuRegisterBudget(unsigned nativeVectorWidth);

  /// Looks up a named preset: pocl-cpu, generic-sg8, generic-sg16,
  /// generic-sg32, nvidia-sm80.
  static std::optional<CoreInfo> getPreset(llvm::StringRef name);
  static llvm::ArrayRef<llvm::StringRef> getPresetNames();

  void print(llvm::raw_ostream &os) const;
};

/// The core of an NVIDIA GPU of compute capability \p computeCapability
/// (major * 10 + minor) from what the CUDA driver reports: static shared
/// memory per block, threads per block, 32-bit registers per block and the
/// number of multiprocessors. The warp (32 lanes) is the subgroup.
CoreInfo makeNvidiaCoreInfo(unsigned computeCapability,
                            uint64_t sharedMemoryBytes,
                            unsigned maxThreadsPerBlock,
                            unsigned registersPerBlock,
                            unsigned multiprocessors);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_COREINFO_H
