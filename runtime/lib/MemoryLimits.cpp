//===- MemoryLimits.cpp - Whether tensors fit before they are allocated ---===//
#include "comprehend/runtime/MemoryLimits.h"

#include "comprehend/runtime/Device.h"
#include "comprehend/runtime/Error.h"

#include <unistd.h>

using namespace comprehend::runtime;

/// The host's physical memory in bytes, 0 when the system does not say.
static uint64_t getHostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return multiplyBytes(pages, pageSize).value_or(0);
}

MemoryLimits MemoryLimits::of(const DeviceInfo &device) {
  MemoryLimits limits;
  limits.maxAllocationBytes = device.maxAllocationBytes;
  limits.globalMemoryBytes = device.globalMemoryBytes;
  limits.hostMemoryBytes = getHostMemoryBytes();
  return limits;
}

std::optional<uint64_t>
comprehend::runtime::multiplyBytes(uint64_t elements, uint64_t elementBytes) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, elementBytes, &bytes))
    return std::nullopt;
  return bytes;
}

llvm::Error
comprehend::runtime::checkTensorsFit(llvm::ArrayRef<TensorBytes> tensors,
                                     const MemoryLimits &limits) {
  uint64_t total = 0;
  for (const TensorBytes &tensor : tensors) {
    std::string what = "tensor '" + tensor.name + "'";
    if (!tensor.bytes)
      return makeDeviceError(what + " needs more than 2^64 bytes");
    std::string needs =
        what + " needs " + std::to_string(*tensor.bytes) + " bytes, more than ";
    if (limits.maxAllocationBytes && *tensor.bytes > limits.maxAllocationBytes)
      return makeDeviceError(needs + "the device's maximum allocation of " +
                             std::to_string(limits.maxAllocationBytes) +
                             " bytes");
    bool overflow = __builtin_add_overflow(total, *tensor.bytes, &total);
    std::string together =
        what + " needs " + std::to_string(*tensor.bytes) +
        " bytes; the tensors up to it need " +
        (overflow ? "more than 2^64" : std::to_string(total)) +
        " bytes, more than ";
    if (limits.globalMemoryBytes &&
        (overflow || total > limits.globalMemoryBytes))
      return makeDeviceError(together + "the device's global memory of " +
                             std::to_string(limits.globalMemoryBytes) +
                             " bytes");
    if (limits.hostMemoryBytes && (overflow || total > limits.hostMemoryBytes))
      return makeDeviceError(together + "the host's memory of " +
                             std::to_string(limits.hostMemoryBytes) +
                             " bytes, through which it is staged");
  }
  return llvm::Error::success();
}
