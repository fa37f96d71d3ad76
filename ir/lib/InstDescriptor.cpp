//===- InstDescriptor.cpp - The generated descriptor table ----------------===//
#include "comprehend/ir/InstDescriptor.h"

#include "llvm/ADT/StringSwitch.h"

using namespace comprehend::ir;

#include "comprehend/ir/InstDescriptors.cpp.inc"

static_assert(std::size(kDescriptors) == kNumInstKinds,
              "one descriptor per InstKind");

const InstDescriptor &comprehend::ir::getDescriptor(InstKind kind) {
  return kDescriptors[static_cast<unsigned>(kind)];
}

std::optional<InstKind> comprehend::ir::lookupMnemonic(llvm::StringRef name) {
  return lookupMnemonicImpl(name);
}

llvm::StringRef comprehend::ir::getMnemonic(InstKind kind) {
  return getDescriptor(kind).mnemonic;
}

bool comprehend::ir::hasTrait(InstKind kind, InstTrait trait) {
  return getDescriptor(kind).hasTrait(trait);
}

std::optional<unsigned>
InstDescriptor::findProperty(llvm::StringRef name) const {
  for (unsigned i = 0; i < properties.size(); ++i)
    if (properties[i].name == name)
      return i;
  return std::nullopt;
}

std::optional<unsigned>
InstDescriptor::findOperand(llvm::StringRef name) const {
  for (unsigned i = 0; i < operands.size(); ++i)
    if (operands[i].name == name)
      return i;
  return std::nullopt;
}
