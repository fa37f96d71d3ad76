//===- MemoryLimits.h - Whether tensors fit, before allocating -*- C++ -*-===//
//
// Every path that allocates tensors (the .tc and .ir kernels of `run` and
// `tune`, the Python package, the C++ API) asks checkTensorsFit() first, so a
// tensor too large for the device or the host is a runtime error naming it,
// its bytes and the limit, never a failed allocation deep in a driver or an
// out-of-memory abort of the host.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_MEMORYLIMITS_H
#define COMPREHEND_RUNTIME_MEMORYLIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace comprehend::runtime {

struct DeviceInfo;

/// The bytes one tensor needs; none when they do not fit in 64 bits.
struct TensorBytes {
  std::string name;
  std::optional<uint64_t> bytes;
};

/// What the tensors of one kernel must fit. A limit of 0 is unknown and
/// not checked.
struct MemoryLimits {
  /// The device's largest single allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
  uint64_t maxAllocationBytes = 0;
  /// The device's global memory, for all tensors together.
  uint64_t globalMemoryBytes = 0;
  /// The host's physical memory: every tensor is staged through the host
  /// (random or read inputs, downloaded outputs).
  uint64_t hostMemoryBytes = 0;

  /// The limits of \p device on this host.
  static MemoryLimits of(const DeviceInfo &device);
};

/// A device error (exit code 3) naming the first tensor that does not fit
/// in 64 bits, in one allocation, or together with the tensors before it in
/// global or host memory; success otherwise.
llvm::Error checkTensorsFit(llvm::ArrayRef<TensorBytes> tensors,
                            const MemoryLimits &limits);

/// The bytes of \p elements elements of \p elementBytes bytes each, none
/// past 64 bits.
std::optional<uint64_t> multiplyBytes(uint64_t elements, uint64_t elementBytes);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_MEMORYLIMITS_H
