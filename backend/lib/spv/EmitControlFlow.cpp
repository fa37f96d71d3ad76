//===- EmitControlFlow.cpp - for and if as structured SPIR-V --------------===//
//
// `for` becomes a structured loop (header with OpPhi per loop-carried value
// and OpLoopMerge, body, continue block); `if` a selection with OpPhi in the
// merge block for the yielded values (lower-coopmatrix has split carried
// coopmatrices into one number or vector per part).
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

#include "comprehend/ir/Attributes.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;

llvm::SmallVector<Id, 8>
FunctionEmitter::flatten(llvm::ArrayRef<ir::Value *> values) {
  llvm::SmallVector<Id, 8> ids;
  for (ir::Value *value : values)
    ids.push_back(getValue(value));
  return ids;
}

void FunctionEmitter::bindFlattened(llvm::ArrayRef<ir::Value *> values,
                                    llvm::ArrayRef<Id> ids) {
  assert(values.size() == ids.size() && "one id per value");
  for (auto [value, id] : llvm::zip(values, ids))
    setValue(value, id);
}

llvm::SmallVector<Id, 8>
FunctionEmitter::getYieldedIds(const ir::Region &region) {
  if (region.empty() || region.back().getKind() != ir::InstKind::Yield)
    return {};
  return flatten(region.back().getOperands());
}

llvm::SmallVector<Id, 8>
FunctionEmitter::flattenTypes(llvm::ArrayRef<ir::Value *> values) {
  llvm::SmallVector<Id, 8> result;
  for (ir::Value *value : values)
    result.push_back(getPartType(value->getType()));
  return result;
}

/// Loop control from the `unroll` attribute: true, false or a count.
static Word getLoopControl(const ir::DictionaryAttr *attrs) {
  if (!attrs)
    return ::spv::LoopControlMaskNone;
  const ir::Attribute *unroll = attrs->get("unroll");
  if (!unroll)
    return ::spv::LoopControlMaskNone;
  if (auto *flag = llvm::dyn_cast<ir::BoolAttr>(unroll))
    return flag->getValue() ? ::spv::LoopControlUnrollMask
                            : ::spv::LoopControlDontUnrollMask;
  // A partial count needs SPIR-V 1.4; ask for unrolling instead.
  return ::spv::LoopControlUnrollMask;
}

LogicalResult FunctionEmitter::emitFor(ir::ForInst inst) {
  const ir::Region &body = inst.getBody();
  ir::Value *from = inst.getFrom();
  ir::Value *to = inst.getTo();
  ir::Value *stepValue = inst.getStep();
  llvm::ArrayRef<ir::Value *> inits = inst.getInit();
  auto kind = llvm::cast<ir::ScalarType>(from->getType())->getScalarKind();
  Id ivType = types.getValueType(kind);
  Id step =
      stepValue ? getValue(stepValue) : types.getConstant(kind, int64_t(1));

  llvm::SmallVector<Id, 8> initIds = flatten(inits);
  llvm::SmallVector<Id, 8> carriedTypes = flattenTypes(inst->getResults());
  Id preheader = currentBlock;
  Id header = newId(), bodyLabel = newId(), continueLabel = newId(),
     merge = newId();
  Id iv = newId(), next = newId();
  llvm::SmallVector<Id, 8> phis;
  for (size_t i = 0; i < initIds.size(); ++i)
    phis.push_back(newId());
  branch(header);

  // The body goes into its own stream: the header's phis need the yielded
  // ids, which exist only once the body is emitted.
  InstructionStream bodyCode;
  InstructionStream *outer = code;
  code = &bodyCode;
  startBlock(bodyLabel);
  setValue(body.getParameter(0), iv);
  bindFlattened(body.getParameters().drop_front(), phis);
  LogicalResult result = emitRegion(body);
  llvm::SmallVector<Id, 8> yielded = getYieldedIds(body);
  branch(continueLabel);
  startBlock(continueLabel);
  code->emit(::spv::OpIAdd, {ivType, next, iv, step});
  branch(header);
  code = outer;
  if (failed(result))
    return failure();

  startBlock(header);
  code->emit(::spv::OpPhi,
             {ivType, iv, getValue(from), preheader, next, continueLabel});
  for (size_t i = 0; i < phis.size(); ++i)
    code->emit(::spv::OpPhi, {carriedTypes[i], phis[i], initIds[i], preheader,
                              yielded[i], continueLabel});
  Id condition =
      emitValue(::spv::OpSLessThan, types.getBoolType(), {iv, getValue(to)});
  const ir::DictionaryAttr *attrs = inst->getDictionary(0);
  code->emit(::spv::OpLoopMerge, {merge, continueLabel, getLoopControl(attrs)});
  code->emit(::spv::OpBranchConditional, {condition, bodyLabel, merge});
  code->append(bodyCode);
  startBlock(merge);
  // Only the header branches to the merge block, so the header's phis hold
  // the final values.
  bindFlattened(inst->getResults(), phis);
  return success();
}

LogicalResult FunctionEmitter::emitIf(ir::IfInst inst) {
  const ir::Region &thenRegion = inst.getThen();
  const ir::Region *elseRegion =
      inst->getNumRegions() > 1 ? &inst.getElse() : nullptr;
  Id thenLabel = newId(), elseLabel = newId(), merge = newId();
  bool hasElse = elseRegion && !elseRegion->empty();
  code->emit(::spv::OpSelectionMerge, {merge, ::spv::SelectionControlMaskNone});
  code->emit(
      ::spv::OpBranchConditional,
      {getValue(inst.getCondition()), thenLabel, hasElse ? elseLabel : merge});

  startBlock(thenLabel);
  LogicalResult result = emitRegion(thenRegion);
  llvm::SmallVector<Id, 8> thenIds = getYieldedIds(thenRegion);
  Id thenEnd = currentBlock;
  branch(merge);

  llvm::SmallVector<Id, 8> elseIds;
  Id elseEnd = 0;
  if (hasElse) {
    startBlock(elseLabel);
    if (failed(emitRegion(*elseRegion)))
      result = failure();
    elseIds = getYieldedIds(*elseRegion);
    elseEnd = currentBlock;
    branch(merge);
  }
  startBlock(merge);
  if (failed(result))
    return failure();
  if (inst->getNumResults() == 0)
    return success();
  llvm::SmallVector<Id, 8> resultTypes = flattenTypes(inst->getResults());
  llvm::SmallVector<Id, 8> merged;
  for (size_t i = 0; i < resultTypes.size(); ++i)
    merged.push_back(emitValue(::spv::OpPhi, resultTypes[i],
                               {thenIds[i], thenEnd, elseIds[i], elseEnd}));
  bindFlattened(inst->getResults(), merged);
  return success();
}
