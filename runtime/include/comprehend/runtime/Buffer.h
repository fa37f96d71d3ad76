//===- Buffer.h - Device memory with RAII -----------------------*- C++ -*-===//
#ifndef COMPREHEND_RUNTIME_BUFFER_H
#define COMPREHEND_RUNTIME_BUFFER_H

#include "comprehend/runtime/OpenCL.h"

#include <cstddef>
#include <utility>

namespace comprehend::runtime {

/// Owns one `cl_mem` (released on destruction); move-only. Made by
/// Runtime::allocate.
class Buffer {
public:
  Buffer() = default;
  Buffer(cl_mem mem, size_t sizeInBytes) : mem(mem), size(sizeInBytes) {}
  Buffer(Buffer &&other) noexcept
      : mem(std::exchange(other.mem, nullptr)),
        size(std::exchange(other.size, 0)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      reset();
      mem = std::exchange(other.mem, nullptr);
      size = std::exchange(other.size, 0);
    }
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { reset(); }

  cl_mem get() const { return mem; }
  size_t getSize() const { return size; }
  explicit operator bool() const { return mem != nullptr; }

  void reset() {
    if (mem)
      clReleaseMemObject(mem);
    mem = nullptr;
    size = 0;
  }

private:
  cl_mem mem = nullptr;
  size_t size = 0;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_BUFFER_H
