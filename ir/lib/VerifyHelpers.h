//===- VerifyHelpers.h - Small helpers of the verify hooks ------*- C++ -*-===//
#ifndef COMPREHEND_IR_LIB_VERIFYHELPERS_H
#define COMPREHEND_IR_LIB_VERIFYHELPERS_H

#include "VerifyContext.h"

#include "comprehend/ir/Instructions.h"

#include <string>

namespace comprehend::ir::detail {

#include "comprehend/ir/InstVerifyHooks.h.inc"

/// The view \p View of \p inst (hooks only read through it).
template <typename View> View viewOf(const Instruction &inst) {
  return View(const_cast<Instruction *>(&inst));
}

/// A mode size or stride as text (`?` for dynamic).
std::string dimText(int64_t value);
/// Whether two mode sizes can be equal (equal, or one is dynamic).
inline bool compatibleDims(int64_t a, int64_t b) {
  return isDynamic(a) || isDynamic(b) || a == b;
}
/// The memref type of \p value (null if it has none).
inline const MemRefType *memrefOf(const Value *value) {
  return llvm::dyn_cast_or_null<MemRefType>(value->getType());
}
/// Shape of op(X) for a memref X (transposed when \p t and order 2).
llvm::SmallVector<int64_t, 2> opShape(const MemRefType *type, Transpose t);
/// Reports that \p what (rows(C)) = \p a must equal \p otherWhat = \p b.
void checkDimsEqual(const Instruction &inst, VerifyContext &vc,
                    unsigned operand, llvm::StringRef what, int64_t a,
                    llvm::StringRef otherWhat, int64_t b);
/// For `.atomic` BLAS instructions: beta must be a constant 0 or 1.
void checkAtomicBeta(const Instruction &inst, VerifyContext &vc, bool atomic,
                     Value *beta, unsigned betaIndex);

} // namespace comprehend::ir::detail

#endif // COMPREHEND_IR_LIB_VERIFYHELPERS_H
