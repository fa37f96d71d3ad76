//===- EmitInterface.cpp - Kernel parameters: the calling convention ------===//
//
// docs/design.md "Calling convention": a scalar is one argument; a memref is a
// global pointer, then one i64 per `?` in its shape, then one per `?` in its
// stride; a group is a pointer to pointers, then per `?` in the memref's
// shape/stride a pointer to one i64 per group element, then the size if `?`,
// then the offset if `?`.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;

Id FunctionEmitter::addParameter(Id type, std::vector<KernelArg> &args,
                                 KernelArg arg) {
  Id id = newId();
  code->emit(::spv::OpFunctionParameter, {type, id});
  args.push_back(arg);
  return id;
}

/// The suffix of a hidden argument's name (`_shape1` of `A_shape1`).
static std::string hiddenSuffix(KernelArg::Kind kind, unsigned mode) {
  using Kind = KernelArg::Kind;
  switch (kind) {
  case Kind::DynamicShape:
  case Kind::GroupShape:
    return "_shape" + std::to_string(mode);
  case Kind::DynamicStride:
  case Kind::GroupStride:
    return "_stride" + std::to_string(mode);
  case Kind::GroupSize:
    return "_size";
  case Kind::GroupOffset:
    return "_offset";
  default:
    return "";
  }
}

Id FunctionEmitter::addNamedParameter(ParameterList &params, Id type,
                                      KernelArg arg) {
  params.types.push_back(type);
  Id id = addParameter(type, params.args, arg);
  // Hidden arguments are named after their parameter (`A_shape1`), so the
  // convention can be read off the disassembly.
  if (!params.name.empty())
    builder.addName(id, params.name.str() + hiddenSuffix(arg.kind, arg.mode));
  return id;
}

void FunctionEmitter::emitBoolParameter(ParameterList &params,
                                        const ir::Value *param,
                                        unsigned index) {
  // OpenCL forbids bool kernel arguments; pass an i8 and compare.
  Id id = addNamedParameter(params, builder.getIntType(8),
                            {KernelArg::Kind::Scalar, index, 0, 1});
  builder.addCapability(::spv::CapabilityInt8);
  Id boolValue = newId();
  entryCode.emit(::spv::OpINotEqual,
                 {types.getBoolType(), boolValue, id,
                  builder.getConstantInt(builder.getIntType(8), 0)});
  setValue(param, boolValue);
}

void FunctionEmitter::emitMemRefParameter(ParameterList &params,
                                          const ir::Value *param,
                                          unsigned index) {
  using Kind = KernelArg::Kind;
  const auto *memrefType = llvm::cast<ir::MemRefType>(param->getType());
  Id i64 = types.getIndexType();
  MemRefDesc desc;
  desc.type = memrefType;
  desc.pointer = addNamedParameter(
      params,
      types.getElementPointerType(memrefType->getElementKind(),
                                  memrefType->getAddressSpace()),
      {Kind::Pointer, index, 0, 8});
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.shape.push_back(
        memrefType->isDynamicShape(mode)
            ? addNamedParameter(params, i64,
                                {Kind::DynamicShape, index, mode, 8})
            : constI64(memrefType->getShape(mode)));
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.stride.push_back(
        memrefType->isDynamicStride(mode)
            ? addNamedParameter(params, i64,
                                {Kind::DynamicStride, index, mode, 8})
            : constI64(memrefType->getStride(mode)));
  memrefs[param] = std::move(desc);
}

void FunctionEmitter::emitGroupParameter(ParameterList &params,
                                         const ir::Value *param,
                                         unsigned index) {
  using Kind = KernelArg::Kind;
  const auto *groupType = llvm::cast<ir::GroupType>(param->getType());
  const ir::MemRefType *memrefType = groupType->getMemRefType();
  Id i64 = types.getIndexType();
  GroupDesc desc;
  desc.type = groupType;
  Id elementPointer = types.getElementPointerType(
      memrefType->getElementKind(), memrefType->getAddressSpace());
  Id globalI64 = builder.getPointerType(::spv::StorageClassCrossWorkgroup, i64);
  desc.pointer = addNamedParameter(
      params,
      builder.getPointerType(::spv::StorageClassCrossWorkgroup, elementPointer),
      {Kind::GroupPointer, index, 0, 8});
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.shapeArrays.push_back(
        memrefType->isDynamicShape(mode)
            ? addNamedParameter(params, globalI64,
                                {Kind::GroupShape, index, mode, 8})
            : 0);
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.strideArrays.push_back(
        memrefType->isDynamicStride(mode)
            ? addNamedParameter(params, globalI64,
                                {Kind::GroupStride, index, mode, 8})
            : 0);
  desc.size =
      ir::isDynamic(groupType->getSize())
          ? addNamedParameter(params, i64, {Kind::GroupSize, index, 0, 8})
          : constI64(groupType->getSize());
  desc.offset =
      ir::isDynamic(groupType->getOffset())
          ? addNamedParameter(params, i64, {Kind::GroupOffset, index, 0, 8})
          : constI64(groupType->getOffset());
  groups[param] = std::move(desc);
}

void FunctionEmitter::emitParameters(llvm::SmallVectorImpl<Id> &paramTypes,
                                     std::vector<KernelArg> &args) {
  ParameterList params{paramTypes, args, {}};
  for (unsigned i = 0, e = function.getNumParameters(); i < e; ++i) {
    const ir::Value *param = function.getParameter(i);
    const ir::Type *type = param->getType();
    params.name = param->getName();
    if (auto *scalar = llvm::dyn_cast<ir::ScalarType>(type)) {
      ir::ScalarKind kind = scalar->getScalarKind();
      setValue(param, addNamedParameter(params, types.getValueType(kind),
                                        {KernelArg::Kind::Scalar, i, 0,
                                         ir::getSizeInBytes(kind)}));
    } else if (llvm::isa<ir::BoolType>(type)) {
      emitBoolParameter(params, param, i);
    } else if (llvm::isa<ir::MemRefType>(type)) {
      emitMemRefParameter(params, param, i);
    } else {
      emitGroupParameter(params, param, i);
    }
  }
}
