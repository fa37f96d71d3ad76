//===- Context.h - Owner of uniqued types and attributes --------*- C++ -*-===//
//
// One Context per compilation. It owns every type and attribute; they live
// as long as the Context and are compared by pointer.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_CONTEXT_H
#define COMPREHEND_IR_CONTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <memory>

namespace comprehend::ir {

/// Owns and uniques types and attributes (FoldingSets over a bump
/// allocator). Not thread-safe; not copyable.
class Context {
public:
  Context();
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// Copies \p values into storage that lives as long as the Context.
  template <typename T>
  llvm::ArrayRef<T> allocateCopy(llvm::ArrayRef<T> values) {
    if (values.empty())
      return {};
    T *storage = allocator.Allocate<T>(values.size());
    std::uninitialized_copy(values.begin(), values.end(), storage);
    return llvm::ArrayRef<T>(storage, values.size());
  }
  /// Copies \p text into storage that lives as long as the Context.
  llvm::StringRef allocateCopy(llvm::StringRef text);

  /// Implementation storage (uniquing tables); defined in Context.cpp.
  struct Impl;
  Impl &getImpl() { return *impl; }
  llvm::BumpPtrAllocator &getAllocator() { return allocator; }

private:
  llvm::BumpPtrAllocator allocator;
  std::unique_ptr<Impl> impl;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_CONTEXT_H
