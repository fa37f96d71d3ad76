//===- Arguments.h - Host-side descriptors of kernel arguments --*- C++ -*-===//
//
// A kernel parameter is a scalar, a memref or a group of memrefs. The host
// describes the value it binds to each parameter (a scalar's bytes, a device
// buffer with shape and strides, a set of buffers for a group); packing turns
// those into the clSetKernelArg calls of the calling convention (docs/design.md
// "Calling convention"):
//
//   scalar  -> its value
//   memref  -> global pointer, one i64 per '?' in the shape, then per '?' in
//              the stride (left to right)
//   group   -> global pointer to device addresses, one pointer to i64[size]
//              per '?' in the memref's shape/stride, the size if '?', the
//              offset if '?'
//
// Shapes and strides are in elements and column-major (stride 1 first) like
// the memrefs of the tensor language.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_ARGUMENTS_H
#define COMPREHEND_RUNTIME_ARGUMENTS_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/runtime/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace comprehend::runtime {

class Buffer;

/// Marks a '?' in a shape, stride, group size or offset (same value as the
/// IR's kDynamic).
inline constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// The packed column-major strides of `shape`.
llvm::SmallVector<int64_t, 4> getPackedStrides(llvm::ArrayRef<int64_t> shape);

/// A scalar's bytes as the kernel receives them (complex: real, imaginary).
struct ScalarArg {
  DType dtype = DType::I32;
  std::array<unsigned char, 16> bytes{};

  template <typename T> static ScalarArg make(DType dtype, T value) {
    static_assert(sizeof(T) <= 16, "scalar too large");
    ScalarArg arg;
    arg.dtype = dtype;
    std::memcpy(arg.bytes.data(), &value, sizeof(T));
    return arg;
  }
  static ScalarArg i8(int8_t v) { return make(DType::I8, v); }
  static ScalarArg i16(int16_t v) { return make(DType::I16, v); }
  static ScalarArg i32(int32_t v) { return make(DType::I32, v); }
  static ScalarArg i64(int64_t v) { return make(DType::I64, v); }
  static ScalarArg index(int64_t v) { return make(DType::Index, v); }
  static ScalarArg f32(float v) { return make(DType::F32, v); }
  static ScalarArg f64(double v) { return make(DType::F64, v); }
  static ScalarArg c32(std::complex<float> v) { return make(DType::C32, v); }
  static ScalarArg c64(std::complex<double> v) { return make(DType::C64, v); }
  /// f16/bf16 from their raw bit patterns.
  static ScalarArg f16Bits(uint16_t v) { return make(DType::F16, v); }
  static ScalarArg bf16Bits(uint16_t v) { return make(DType::BF16, v); }
  /// Parses a command-line value ("1.5", "-3", "2+1i" / "(2,1)" for complex)
  /// as `dtype`.
  static llvm::Expected<ScalarArg> parse(DType dtype, llvm::StringRef text);

  unsigned getSize() const { return getDTypeSize(dtype); }
};

/// A memref: a device buffer viewed with a shape and strides.
struct TensorArg {
  const Buffer *buffer = nullptr;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  /// Element strides; empty means packed column-major.
  llvm::SmallVector<int64_t, 4> strides;

  llvm::SmallVector<int64_t, 4> getStrides() const;
  /// Elements between the first and one past the last addressed element.
  int64_t getExtent() const;
};

/// A group of memrefs of one type: the members' buffers plus byte offsets
/// into them (a stacked array is one buffer with offsets i * slice bytes).
struct GroupArg {
  llvm::SmallVector<const Buffer *, 4> buffers;
  llvm::SmallVector<uint64_t, 4> byteOffsets;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> strides; ///< empty: packed
  int64_t offset = 0;

  /// `count` packed tensors of `shape` stored one after the other in
  /// `buffer`.
  static GroupArg stacked(const Buffer &buffer, DType dtype,
                          llvm::ArrayRef<int64_t> shape, int64_t count);
  int64_t getSize() const { return static_cast<int64_t>(buffers.size()); }
  llvm::SmallVector<int64_t, 4> getStrides() const;
};

using ArgValue = std::variant<ScalarArg, TensorArg, GroupArg>;

/// The type of one kernel parameter (what the IR function declares), used
/// to check bound values and to derive the argument layout.
struct ParamType {
  enum class Kind { Scalar, MemRef, Group };
  Kind kind = Kind::Scalar;
  std::string name;
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;   ///< kDynamic for '?'
  llvm::SmallVector<int64_t, 4> strides; ///< canonical, kDynamic for '?'
  int64_t groupSize = kDynamic;
  int64_t groupOffset = 0;

  static ParamType scalar(llvm::StringRef name, DType dtype);
  /// `strides` empty: packed (with '?' after the first dynamic mode).
  static ParamType memref(llvm::StringRef name, DType dtype,
                          llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<int64_t> strides = {});
  static ParamType group(llvm::StringRef name, DType dtype,
                         llvm::ArrayRef<int64_t> shape, int64_t size,
                         llvm::ArrayRef<int64_t> strides = {},
                         int64_t offset = 0);

  /// "memref<f32x?x8>", "group<memref<f64x4>x?>", "f32".
  std::string str() const;
};

/// The clSetKernelArg sequence of the calling convention for `params`.
std::vector<backend::KernelArg>
computeArgLayout(llvm::ArrayRef<ParamType> params);

/// Checks that `values` fit `params` (count, kinds, dtypes, static sizes and
/// strides, buffer sizes); input errors name the parameter and both types.
llvm::Error checkArguments(llvm::ArrayRef<ParamType> params,
                           llvm::ArrayRef<ArgValue> values);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_ARGUMENTS_H
