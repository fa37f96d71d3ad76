//===- Instruction.cpp - The generic instruction --------------------------===//
#include "comprehend/ir/Instruction.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Region.h"

#include <numeric>

using namespace comprehend;
using namespace comprehend::ir;

/// The default value of a property as its descriptor declares it.
static Property defaultProperty(const PropertyDescriptor &desc) {
  switch (desc.kind) {
  case PropertyKind::Flag:
    return desc.defaultValue != 0;
  case PropertyKind::Enum:
  case PropertyKind::Integer:
    return desc.defaultValue;
  case PropertyKind::IntegerList:
    return IntegerList();
  case PropertyKind::Constant:
    return ConstantValue(int64_t(0));
  case PropertyKind::Dictionary:
    return static_cast<const DictionaryAttr *>(nullptr);
  }
  return std::monostate();
}

Instruction::Instruction(InstKind kind, Location loc) : kind(kind), loc(loc) {
  const InstDescriptor &desc = getDescriptor();
  for (const PropertyDescriptor &prop : desc.properties)
    properties.push_back(defaultProperty(prop));
  for (const RegionDescriptor &region : desc.regions)
    regions.push_back(std::make_unique<Region>(region.kind, this));
  segmentSizes.assign(desc.operands.size(), 0);
}

std::unique_ptr<Instruction> Instruction::create(InstKind kind, Location loc) {
  return std::unique_ptr<Instruction>(new Instruction(kind, loc));
}

Instruction::~Instruction() {
  // Regions first: their instructions use values defined here and above.
  regions.clear();
  dropAllReferences();
}

void Instruction::setOperand(unsigned i, Value *value) {
  if (operands[i])
    operands[i]->removeUse({this, i});
  operands[i] = value;
  if (value)
    value->addUse({this, i});
}

void Instruction::setOperands(llvm::ArrayRef<Value *> newOperands,
                              llvm::ArrayRef<unsigned> newSegmentSizes) {
  assert(std::accumulate(newSegmentSizes.begin(), newSegmentSizes.end(), 0u) ==
             newOperands.size() &&
         "segment sizes must add up to the operand count");
  dropAllReferences();
  operands.assign(newOperands.begin(), newOperands.end());
  segmentSizes.assign(newSegmentSizes.begin(), newSegmentSizes.end());
  for (unsigned i = 0, e = operands.size(); i != e; ++i)
    if (operands[i])
      operands[i]->addUse({this, i});
}

llvm::ArrayRef<Value *> Instruction::getOperandGroup(unsigned group) const {
  if (group >= segmentSizes.size())
    return {};
  unsigned start = 0;
  for (unsigned g = 0; g < group; ++g)
    start += segmentSizes[g];
  return llvm::ArrayRef<Value *>(operands).slice(start, segmentSizes[group]);
}

Location Instruction::getOperandLoc(unsigned i) const {
  if (i < operandLocs.size() && operandLocs[i].isValid())
    return operandLocs[i];
  return loc;
}

void Instruction::setOperandLocs(llvm::ArrayRef<Location> locs) {
  operandLocs.assign(locs.begin(), locs.end());
}

Value *Instruction::addResult(const Type *type, Location valueLoc,
                              llvm::StringRef name) {
  auto value = std::make_unique<Value>(type, valueLoc, name);
  value->definingInst = this;
  value->index = results.size();
  resultPtrs.push_back(value.get());
  results.push_back(std::move(value));
  return resultPtrs.back();
}

llvm::SmallVector<Region *, 2> Instruction::getRegions() const {
  llvm::SmallVector<Region *, 2> list;
  for (const std::unique_ptr<Region> &region : regions)
    list.push_back(region.get());
  return list;
}

Instruction *Instruction::getParentInstruction() const {
  return parent ? parent->getParentInstruction() : nullptr;
}

void Instruction::setProperty(unsigned i, Property value) {
  properties[i] = std::move(value);
}

void Instruction::dropAllReferences() {
  for (unsigned i = 0, e = operands.size(); i != e; ++i)
    if (operands[i]) {
      operands[i]->removeUse({this, i});
      operands[i] = nullptr;
    }
}
