//===- Buffer.h - Device memory with RAII -----------------------*- C++ -*-===//
#ifndef COMPREHEND_RUNTIME_BUFFER_H
#define COMPREHEND_RUNTIME_BUFFER_H

#include "comprehend/runtime/Platform.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace comprehend::runtime {

/// Owns one allocation of a platform (a cl_mem, a CUdeviceptr), released on
/// destruction; move-only. Made by Runtime::allocate. It keeps its platform
/// alive, so a buffer may outlive the Runtime that made it.
class Buffer {
public:
  Buffer() = default;
  Buffer(std::shared_ptr<Platform> owner, uint64_t handle, size_t sizeInBytes)
      : owner(std::move(owner)), handle(handle), size(sizeInBytes) {}
  Buffer(Buffer &&other) noexcept
      : owner(std::move(other.owner)), handle(std::exchange(other.handle, 0)),
        size(std::exchange(other.size, 0)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      reset();
      owner = std::move(other.owner);
      handle = std::exchange(other.handle, 0);
      size = std::exchange(other.size, 0);
    }
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { reset(); }

  /// The platform's name of the allocation (see Platform).
  uint64_t getHandle() const { return handle; }
  size_t getSize() const { return size; }
  explicit operator bool() const { return owner != nullptr; }

  void reset() {
    if (owner)
      owner->release(handle);
    owner.reset();
    handle = 0;
    size = 0;
  }

private:
  std::shared_ptr<Platform> owner;
  uint64_t handle = 0;
  size_t size = 0;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_BUFFER_H
