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
/// alive, so a buffer may outlive the Runtime that made it. A borrowed
/// buffer (Runtime::wrapDeviceMemory) names memory that someone else
/// allocated and frees: it releases nothing.
class Buffer {
public:
  Buffer() = default;
  Buffer(std::shared_ptr<Platform> owner, uint64_t handle, size_t sizeInBytes)
      : owner(std::move(owner)), handle(handle), size(sizeInBytes) {}
  static Buffer borrow(std::shared_ptr<Platform> owner, uint64_t handle,
                       size_t sizeInBytes) {
    Buffer buffer(std::move(owner), handle, sizeInBytes);
    buffer.owned = false;
    return buffer;
  }
  Buffer(Buffer &&other) noexcept
      : owner(std::move(other.owner)), handle(std::exchange(other.handle, 0)),
        size(std::exchange(other.size, 0)),
        owned(std::exchange(other.owned, true)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      reset();
      owner = std::move(other.owner);
      handle = std::exchange(other.handle, 0);
      size = std::exchange(other.size, 0);
      owned = std::exchange(other.owned, true);
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

  bool isBorrowed() const { return !owned; }

  void reset() {
    if (owner && owned)
      owner->release(handle);
    owner.reset();
    handle = 0;
    size = 0;
    owned = true;
  }

private:
  std::shared_ptr<Platform> owner;
  uint64_t handle = 0;
  size_t size = 0;
  bool owned = true;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_BUFFER_H
