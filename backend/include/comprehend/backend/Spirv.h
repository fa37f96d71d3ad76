//===- Spirv.h - Validating and printing SPIR-V modules ---------*- C++ -*-===//
//
// Thin wrappers over SPIRV-Tools, so that callers (driver, runtime, tests)
// need neither its headers nor the choice of target environment.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_SPIRV_H
#define COMPREHEND_BACKEND_SPIRV_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace comprehend::backend {

struct CoreInfo;

/// The SPIRV-Tools target environment that validates module \p words for
/// \p core: OpenCL 1.2 for OpenCL 1.2-shaped cores, OpenCL 2.2 otherwise;
/// plain SPIR-V 1.0/1.2 for modules with 64-bit atomics, which the OpenCL
/// environments of SPIRV-Tools reject. Returned as the name
/// `spirv-val --target-env` accepts ("opencl1.2", "spv1.0", ...).
llvm::StringRef getSpirvTargetEnvName(llvm::ArrayRef<uint32_t> words,
                                      const CoreInfo &core);

/// Validates \p words with SPIRV-Tools in the environment of \p core.
/// Returns an error carrying every validator message (one per line).
llvm::Error validateSpirv(llvm::ArrayRef<uint32_t> words, const CoreInfo &core);

/// Returns the SPIR-V assembly of \p words (friendly names, no colour, with
/// the header comment that `spirv-dis` prints).
llvm::Expected<std::string> disassembleSpirv(llvm::ArrayRef<uint32_t> words);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_SPIRV_H
