//===- SpirBridge.h - SPIR-V to SPIR 1.2 bitcode ----------------*- C++ -*-===//
//
// Devices without SPIR-V ingestion but with cl_khr_spir (PoCL 3.1) build
// SPIR 1.2 bitcode, and the PTX path (Ptx.h) starts from the same LLVM IR.
// This translates a SPIR-V module in-process with LLVMSPIRVLib's reverse
// translation: OpenCL 1.2 built-in names, typed pointers (PoCL links
// typed-pointer bitcode), one bitcode file.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_SPIRBRIDGE_H
#define COMPREHEND_BACKEND_SPIRBRIDGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace comprehend::backend {

/// Translates SPIR-V words to SPIR 1.2 (LLVM 15 bitcode). The module must be
/// "OpenCL 1.2-shaped" (CoreInfo's spirv.openCL12Shaped, docs/nvidia.md): no
/// Generic storage class, built-in variables imported through
/// LinkageAttributes.
llvm::Expected<std::string>
translateSpirvToSpir12(llvm::ArrayRef<uint32_t> words);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_SPIRBRIDGE_H
