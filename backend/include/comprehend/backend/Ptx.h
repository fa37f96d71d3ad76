//===- Ptx.h - From SPIR-V to PTX for NVIDIA GPUs ---------------*- C++ -*-===//
//
// NVIDIA's drivers take no SPIR-V. A module emitted for an NVIDIA core is
// translated back to LLVM IR (LLVMSPIRVLib), retargeted to NVPTX, linked with
// libclc's OpenCL built-ins for nvptx64, optimized and printed as PTX by
// LLVM's NVPTX target, all in process. The CUDA driver loads the PTX
// (cuModuleLoadData) and JIT-compiles it for the GPU it runs on.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PTX_H
#define COMPREHEND_BACKEND_PTX_H

#include "comprehend/backend/CoreInfo.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace comprehend::backend {

struct PtxOptions {
  /// libclc's bitcode for nvptx64 (nvptx64--nvidiacl.bc). Empty: the
  /// COMPREHEND_LIBCLC_NVPTX environment variable, else the installed default
  /// (Debian libclc-15: /usr/lib/clc/nvptx64--nvidiacl.bc).
  std::string libclcPath;
};

/// Translates a SPIR-V module emitted for an NVIDIA core (core.isNvidia())
/// into PTX text for core's compute capability (clamped to what LLVM 15
/// knows, sm_86 / PTX 7.5; the driver JIT-compiles PTX for newer GPUs).
llvm::Expected<std::string> emitPtx(llvm::ArrayRef<uint32_t> spirv,
                                    const CoreInfo &core,
                                    const PtxOptions &options = {});

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PTX_H
