//===- CudaPlatform.h - Devices driven through the CUDA driver --*- C++ -*-===//
//
// The CUDA platform: the primary context of one device, modules loaded from
// the PTX the backend emits for the SPIR-V (backend/Ptx.h), launches on the
// legacy default stream timed by a pair of CUDA events. The driver is loaded
// at run time (CudaDriver.h); nothing here links against CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_LIB_CUDAPLATFORM_H
#define COMPREHEND_RUNTIME_LIB_CUDAPLATFORM_H

#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Platform.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace comprehend::runtime {

/// Opens a CUDA device (one of listCudaDevices()).
llvm::Expected<std::shared_ptr<Platform>>
createCudaPlatform(const Device &device);

/// The kernels of a PTX module with their number of parameters, in order of
/// appearance (`.entry name(.param ..., .param ...)`).
std::vector<std::pair<std::string, unsigned>>
listPtxEntries(llvm::StringRef ptx);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_LIB_CUDAPLATFORM_H
