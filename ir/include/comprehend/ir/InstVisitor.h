//===- InstVisitor.h - Dispatch on the instruction kind ---------*- C++ -*-===//
//
// CRTP visitor with one `visitX(XInst)` per instruction (`visitGemm`), from
// the generated kind list. Unhandled kinds fall back to
// `visitInstruction(Instruction &)`:
//
//   struct CountGemms : InstVisitor<CountGemms> {
//     void visitGemm(GemmInst) { ++count; }
//     void visitInstruction(Instruction &) {}
//     unsigned count = 0;
//   };
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_INSTVISITOR_H
#define COMPREHEND_IR_INSTVISITOR_H

#include "comprehend/ir/Instructions.h"

#include "llvm/Support/ErrorHandling.h"

namespace comprehend::ir {

template <typename Derived, typename RetT = void> class InstVisitor {
public:
  /// Calls `visitX` for the kind X of \p inst.
  RetT dispatch(Instruction &inst) {
    Derived &self = static_cast<Derived &>(*this);
    switch (inst.getKind()) {
#define COMPREHEND_INST(Name, Mnemonic)                                        \
  case InstKind::Name:                                                         \
    return self.visit##Name(Name##Inst(&inst));
#include "comprehend/ir/InstKinds.inc"
    }
    llvm_unreachable("unknown instruction kind");
  }

  /// Fallback for kinds without a dedicated `visitX` method.
  RetT visitInstruction(Instruction &inst) { return RetT(); }

#define COMPREHEND_INST(Name, Mnemonic)                                        \
  RetT visit##Name(Name##Inst view) {                                          \
    return static_cast<Derived &>(*this).visitInstruction(*view);              \
  }
#include "comprehend/ir/InstKinds.inc"
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_INSTVISITOR_H
