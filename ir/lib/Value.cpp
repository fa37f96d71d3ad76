//===- Value.cpp - SSA values and their uses ------------------------------===//
#include "comprehend/ir/Value.h"

#include "comprehend/ir/Instruction.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend::ir;

Region *Value::getParentRegion() const {
  if (definingInst)
    return definingInst->getParentRegion();
  return ownerRegion;
}

void Value::removeUse(Use use) {
  auto *it = llvm::find(uses, use);
  if (it != uses.end())
    uses.erase(it);
}

void Value::replaceAllUsesWith(Value *other) {
  if (other == this)
    return;
  // setOperand edits `uses`, so walk a copy.
  llvm::SmallVector<Use, 4> oldUses(uses.begin(), uses.end());
  for (const Use &use : oldUses)
    use.user->setOperand(use.operandIndex, other);
}
