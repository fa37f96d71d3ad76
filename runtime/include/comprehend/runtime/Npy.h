//===- Npy.h - NumPy .npy files <-> host tensors ----------------*- C++ -*-===//
//
// Tensors cross the command line as NumPy .npy files (format versions 1.0,
// 2.0 and 3.0). A HostTensor keeps its elements in column-major (Fortran)
// order, the layout of a packed memref: an array of shape (s1, ..., sn) is a
// memref<T x s1 x ... x sn> and array[i1, ..., in] is element [i1, ..., in].
// C-order files are transposed on reading; files are written in Fortran
// order. f16/bf16 are raw 2-byte data; complex is complex64/complex128.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_NPY_H
#define COMPREHEND_RUNTIME_NPY_H

#include "comprehend/runtime/DType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace comprehend::runtime {

/// A tensor in host memory, elements in column-major order.
struct HostTensor {
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<unsigned char> data;

  HostTensor() = default;
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  int64_t getNumElements() const;
  size_t getSizeInBytes() const { return data.size(); }
  /// Pointer to element `index` in column-major order.
  template <typename T> T *getData() {
    return reinterpret_cast<T *>(data.data());
  }
  template <typename T> const T *getData() const {
    return reinterpret_cast<const T *>(data.data());
  }
};

/// Parses the bytes of a .npy file. `expected` resolves raw 2-byte data
/// ("V2", "u2"), which NumPy uses for bf16, to f16 or bf16; it is not
/// otherwise enforced. `name` prefixes error messages (a file name). Errors
/// are input errors.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef name = "<npy>",
                                    std::optional<DType> expected = {});
llvm::Expected<HostTensor> readNpyFile(llvm::StringRef path,
                                       std::optional<DType> expected = {});

/// The bytes of a .npy file (version 1.0, Fortran order, little endian)
/// holding `tensor`.
std::string writeNpy(const HostTensor &tensor);
llvm::Error writeNpyFile(llvm::StringRef path, const HostTensor &tensor);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_NPY_H
