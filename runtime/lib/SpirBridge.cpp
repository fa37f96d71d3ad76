//===- SpirBridge.cpp - SPIR-V to SPIR 1.2 bitcode ------------------------===//
#include "comprehend/runtime/SpirBridge.h"
#include "comprehend/runtime/Error.h"

#include "comprehend/backend/SpirBridge.h"

// The translation is the backend's (the PTX path shares it); here a failure
// is a device error like any other failure to build a program.
llvm::Expected<std::string>
comprehend::runtime::translateSpirvToSpir12(llvm::ArrayRef<uint32_t> words) {
  llvm::Expected<std::string> bitcode = backend::translateSpirvToSpir12(words);
  if (!bitcode)
    return makeDeviceError(llvm::toString(bitcode.takeError()));
  return bitcode;
}
