//===- EmitBuiltins.cpp - Built-in values and subgroup operations ---------===//
//
// Subgroups are the consecutive runs of `S` work-items along x of the 2D
// work-group (what a required subgroup size gives on GPUs, and trivially
// true for S = 1), so subgroup ids follow from the local id:
//   subgroup_local_id = lid.x mod S, subgroup_id = (lid.x div S, lid.y).
// Subgroup collectives use the SPIR-V 1.0 group instructions with Subgroup
// scope (capability Groups); for S = 1 they are the identity.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

#include <limits>

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

Id FunctionEmitter::getSubgroupLocalId() {
  if (subgroupLocalId)
    return subgroupLocalId;
  if (shape.subgroupSize == 1)
    return subgroupLocalId = constI32(0);
  Id lid = loadBuiltin(::spv::BuiltInLocalInvocationId, 0);
  Id lane = newId();
  entryCode.emit(::spv::OpUMod, {types.getIndexType(), lane, lid,
                                 constI64(shape.subgroupSize)});
  subgroupLocalId = newId();
  entryCode.emit(::spv::OpUConvert,
                 {types.getI32Type(), subgroupLocalId, lane});
  return subgroupLocalId;
}

Id FunctionEmitter::getSubgroupIdX() {
  if (subgroupIdX)
    return subgroupIdX;
  if (shape.getNumSubgroupsX() == 1)
    return subgroupIdX = constI32(0);
  Id lid = loadBuiltin(::spv::BuiltInLocalInvocationId, 0);
  Id id = lid;
  if (shape.subgroupSize > 1) {
    id = newId();
    entryCode.emit(::spv::OpUDiv, {types.getIndexType(), id, lid,
                                   constI64(shape.subgroupSize)});
  }
  subgroupIdX = newId();
  entryCode.emit(::spv::OpUConvert, {types.getI32Type(), subgroupIdX, id});
  return subgroupIdX;
}

Id FunctionEmitter::getSubgroupIdY() {
  if (subgroupIdY)
    return subgroupIdY;
  if (shape.workGroupSize[1] == 1)
    return subgroupIdY = constI32(0);
  Id lid = loadBuiltin(::spv::BuiltInLocalInvocationId, 1);
  subgroupIdY = newId();
  entryCode.emit(::spv::OpUConvert, {types.getI32Type(), subgroupIdY, lid});
  return subgroupIdY;
}

Id FunctionEmitter::getReductionIdentity(InstKind combine, ScalarKind scalar) {
  if (combine == InstKind::Add)
    return types.getConstant(scalar, int64_t(0));
  bool isMax = combine == InstKind::Max;
  if (ir::isInteger(scalar)) {
    unsigned bits = 8 * ir::getSizeInBytes(scalar);
    int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                             : (int64_t(1) << (bits - 1)) - 1;
    return types.getConstant(scalar, isMax ? -max - 1 : max);
  }
  double inf = std::numeric_limits<double>::infinity();
  return types.getConstant(scalar, isMax ? -inf : inf);
}

Id FunctionEmitter::emitGroupOperation(InstKind kind, ScalarKind scalar,
                                       Id value) {
  bool exclusive = ir::hasTrait(kind, ir::InstTrait::ExclusiveScan);
  bool inclusive = ir::hasTrait(kind, ir::InstTrait::InclusiveScan);
  InstKind combine = *ir::getDescriptor(kind).combine;
  if (shape.subgroupSize == 1)
    return exclusive ? getReductionIdentity(combine, scalar) : value;
  Word operation = exclusive   ? ::spv::GroupOperationExclusiveScan
                   : inclusive ? ::spv::GroupOperationInclusiveScan
                               : ::spv::GroupOperationReduce;
  return emitGroupCombine(combine, operation, scalar, value);
}

Id FunctionEmitter::emitGroupCombine(InstKind combine, Word operation,
                                     ScalarKind scalar, Id value) {
  bool isAdd = combine == InstKind::Add;
  bool isMax = combine == InstKind::Max;
  builder.addCapability(::spv::CapabilityGroups);
  Id scope = constI32(::spv::ScopeSubgroup);

  if (ir::isComplex(scalar)) {
    ScalarKind component = ir::getComponentKind(scalar);
    Id componentType = types.getValueType(component);
    Id re = emitValue(::spv::OpCompositeExtract, componentType, {value, 0});
    Id im = emitValue(::spv::OpCompositeExtract, componentType, {value, 1});
    return makeComplex(scalar,
                       emitGroupCombine(combine, operation, component, re),
                       emitGroupCombine(combine, operation, component, im));
  }
  if (ir::isInteger(scalar)) {
    // OpenCL defines subgroup collectives for 32- and 64-bit integers only.
    bool narrow = ir::getSizeInBytes(scalar) < 4;
    Id type = narrow ? types.getI32Type() : types.getValueType(scalar);
    Id operand = narrow ? emitValue(::spv::OpSConvert, type, {value}) : value;
    ::spv::Op op = isAdd   ? ::spv::OpGroupIAdd
                   : isMax ? ::spv::OpGroupSMax
                           : ::spv::OpGroupSMin;
    Id result = emitValue(op, type, {scope, operation, operand});
    return narrow ? emitValue(::spv::OpSConvert, types.getValueType(scalar),
                              {result})
                  : result;
  }
  ::spv::Op op = isAdd   ? ::spv::OpGroupFAdd
                 : isMax ? ::spv::OpGroupFMax
                         : ::spv::OpGroupFMin;
  return emitValue(op, types.getValueType(scalar), {scope, operation, value});
}

Id FunctionEmitter::emitBroadcast(ScalarKind scalar, Id value, Id lane) {
  if (shape.subgroupSize == 1)
    return value;
  builder.addCapability(::spv::CapabilityGroups);
  Id scope = constI32(::spv::ScopeSubgroup);
  if (ir::isInteger(scalar) && ir::getSizeInBytes(scalar) < 4) {
    Id i32 = types.getI32Type();
    Id wide = emitValue(::spv::OpSConvert, i32, {value});
    Id result = emitValue(::spv::OpGroupBroadcast, i32, {scope, wide, lane});
    return emitValue(::spv::OpSConvert, types.getValueType(scalar), {result});
  }
  return emitValue(::spv::OpGroupBroadcast, types.getValueType(scalar),
                   {scope, value, lane});
}

LogicalResult FunctionEmitter::emitBuiltinInst(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  ir::Value *result = inst.getResult(0);
  // Built-ins returning a fixed type may be declared with any integer type.
  auto castTo = [&](Id i64Value, bool fromI32) {
    auto target =
        llvm::cast<ir::ScalarType>(result->getType())->getScalarKind();
    return emitCast(fromI32 ? ScalarKind::I32 : ScalarKind::I64, target,
                    i64Value);
  };
  // group_id, num_groups, num_subgroups, subgroup_id: the component.
  auto mode = [&] {
    return static_cast<unsigned>(llvm::cast<ir::Builtin3View>(&inst).getMode());
  };
  switch (kind) {
  case InstKind::GroupId:
    setValue(result,
             castTo(loadBuiltin(::spv::BuiltInWorkgroupId, mode()), false));
    return success();
  case InstKind::NumGroups:
    setValue(result,
             castTo(loadBuiltin(::spv::BuiltInNumWorkgroups, mode()), false));
    return success();
  case InstKind::NumSubgroups: {
    unsigned counts[3] = {shape.getNumSubgroupsX(), shape.workGroupSize[1], 1};
    setValue(result, castTo(constI32(counts[mode()]), true));
    return success();
  }
  case InstKind::SubgroupSize:
    setValue(result, castTo(constI32(shape.subgroupSize), true));
    return success();
  case InstKind::SubgroupId: {
    Id ids[3] = {getSubgroupIdX(), getSubgroupIdY(), constI32(0)};
    setValue(result, castTo(ids[mode()], true));
    return success();
  }
  case InstKind::SubgroupLinearId: {
    Id i32 = types.getI32Type();
    Id linear = getSubgroupIdX();
    if (shape.workGroupSize[1] > 1) {
      Id y = emitValue(::spv::OpIMul, i32,
                       {getSubgroupIdY(), constI32(shape.getNumSubgroupsX())});
      linear = emitValue(::spv::OpIAdd, i32, {linear, y});
    }
    setValue(result, castTo(linear, true));
    return success();
  }
  case InstKind::SubgroupLocalId:
    setValue(result, castTo(getSubgroupLocalId(), true));
    return success();
  case InstKind::SubgroupBroadcast: {
    ir::SubgroupBroadcastInst broadcast(&inst);
    auto scalar = *ir::getScalarOrComponentKind(broadcast.getA()->getType());
    setValue(result, emitBroadcast(scalar, getValue(broadcast.getA()),
                                   getValue(broadcast.getIdx())));
    return success();
  }
  default: {
    auto operation = llvm::cast<ir::SubgroupOperationView>(&inst);
    auto scalar = *ir::getScalarOrComponentKind(operation.getA()->getType());
    setValue(result,
             emitGroupOperation(kind, scalar, getValue(operation.getA())));
    return success();
  }
  }
}
