//===- ContextImpl.h - Uniquing tables of the Context -----------*- C++ -*-===//
#ifndef COMPREHEND_IR_LIB_CONTEXTIMPL_H
#define COMPREHEND_IR_LIB_CONTEXTIMPL_H

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Types.h"

#include "llvm/ADT/FoldingSet.h"

#include <array>

namespace comprehend::ir {

struct Context::Impl {
  explicit Impl(Context &ctx);

  const VoidType *voidType;
  const BoolType *boolType;
  std::array<const ScalarType *, kNumScalarKinds> scalarTypes;
  llvm::FoldingSet<MemRefType> memrefTypes;
  llvm::FoldingSet<GroupType> groupTypes;
  llvm::FoldingSet<CoopMatrixType> coopTypes;
  llvm::FoldingSet<VectorType> vectorTypes;

  const BoolAttr *boolAttrs[2];
  const DictionaryAttr *emptyDictionary = nullptr;
  llvm::FoldingSet<IntegerAttr> integerAttrs;
  llvm::FoldingSet<StringAttr> stringAttrs;
  llvm::FoldingSet<ArrayAttr> arrayAttrs;
  llvm::FoldingSet<DictionaryAttr> dictionaryAttrs;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_CONTEXTIMPL_H
