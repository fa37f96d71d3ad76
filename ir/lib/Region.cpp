//===- Region.cpp - An ordered list of instructions -----------------------===//
#include "comprehend/ir/Region.h"

#include "comprehend/ir/Function.h"

using namespace comprehend::ir;

Region::~Region() {
  // Drop every use first: instructions may use values defined later in the
  // list (in invalid IR) or inside sibling regions.
  for (Instruction &inst : *this)
    inst.dropAllReferences();
  while (!insts.empty())
    insts.pop_back();
}

Function *Region::getEnclosingFunction() const {
  const Region *region = this;
  while (region->parentInst) {
    region = region->parentInst->getParentRegion();
    if (!region)
      return nullptr;
  }
  return region->parentFunc;
}

Value *Region::addParameter(const Type *type, Location loc,
                            llvm::StringRef name) {
  auto value = std::make_unique<Value>(type, loc, name);
  value->ownerRegion = this;
  value->index = params.size();
  paramPtrs.push_back(value.get());
  params.push_back(std::move(value));
  return paramPtrs.back();
}

Instruction *Region::insert(iterator pos, std::unique_ptr<Instruction> inst) {
  inst->parent = this;
  return insts.insert(pos.getUnderlying(), std::move(inst))->get();
}

Instruction *Region::push_back(std::unique_ptr<Instruction> inst) {
  return insert(end(), std::move(inst));
}

Region::iterator Region::getIterator(const Instruction *inst) {
  for (auto it = insts.begin(), e = insts.end(); it != e; ++it)
    if (it->get() == inst)
      return iterator(it);
  return end();
}

std::unique_ptr<Instruction> Region::remove(Instruction *inst) {
  iterator it = getIterator(inst);
  assert(it != end() && "instruction is not in this region");
  std::unique_ptr<Instruction> owned = std::move(*it.getUnderlying());
  insts.erase(it.getUnderlying());
  owned->parent = nullptr;
  return owned;
}

void Region::erase(Instruction *inst) { remove(inst).reset(); }
