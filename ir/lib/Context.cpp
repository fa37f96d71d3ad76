//===- Context.cpp - Owner of uniqued types and attributes ----------------===//
#include "ContextImpl.h"

using namespace comprehend::ir;

Context::Impl::Impl(Context &ctx) {
  llvm::BumpPtrAllocator &alloc = ctx.getAllocator();
  voidType = new (alloc.Allocate<VoidType>()) VoidType(ctx);
  boolType = new (alloc.Allocate<BoolType>()) BoolType(ctx);
  for (unsigned i = 0; i < kNumScalarKinds; ++i)
    scalarTypes[i] = new (alloc.Allocate<ScalarType>())
        ScalarType(ctx, static_cast<ScalarKind>(i));
  for (unsigned i = 0; i < 2; ++i)
    boolAttrs[i] = new (alloc.Allocate<BoolAttr>()) BoolAttr(i != 0);
}

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
