//===- SpirBridge.h - SPIR-V to SPIR 1.2 bitcode ----------------*- C++ -*-===//
//
// Devices without SPIR-V ingestion but with cl_khr_spir (PoCL 3.1) build
// SPIR 1.2 bitcode. This translates a SPIR-V module in-process with
// LLVMSPIRVLib's reverse translation: OpenCL 1.2 built-in names, typed
// pointers (PoCL links typed-pointer bitcode), one bitcode file.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_SPIRBRIDGE_H
#define COMPREHEND_RUNTIME_SPIRBRIDGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace comprehend::runtime {

/// The options with which the translated bitcode is built.
inline constexpr const char *kSpir12BuildOptions = "-x spir -spir-std=1.2";

/// Translates SPIR-V words to SPIR 1.2 (LLVM 15 bitcode) through the
/// backend's translateSpirvToSpir12; failures are device errors. The module
/// must be "OpenCL 1.2-shaped" (comprehend/backend/SpirBridge.h): no
/// Generic storage class, built-in variables imported through
/// LinkageAttributes.
llvm::Expected<std::string>
translateSpirvToSpir12(llvm::ArrayRef<uint32_t> words);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_SPIRBRIDGE_H
