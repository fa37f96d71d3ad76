//===- Ptx.cpp - From SPIR-V to PTX for NVIDIA GPUs -----------------------===//
#include "comprehend/backend/Ptx.h"

using namespace comprehend::backend;

// Interface first, so that the CUDA platform can build against it; the
// translation follows in the next commits.
llvm::Expected<std::string>
comprehend::backend::emitPtx(llvm::ArrayRef<uint32_t>, const CoreInfo &,
                             const PtxOptions &) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "PTX emission is not implemented yet");
}
