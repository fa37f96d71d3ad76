//===- Context.cpp - Owner of uniqued types and attributes ----------------===//
#include "ContextImpl.h"

using namespace comprehend::ir;

Context::Context() : impl(std::make_unique<Impl>(*this)) {}

// Types and attributes live in the bump allocator and have trivial
// destructors, so nothing but the tables needs freeing.
Context::~Context() = default;

llvm::StringRef Context::allocateCopy(llvm::StringRef text) {
  if (text.empty())
    return {};
  char *storage = allocator.Allocate<char>(text.size());
  std::copy(text.begin(), text.end(), storage);
  return llvm::StringRef(storage, text.size());
}
