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

void FunctionEmitter::emitParameters(llvm::SmallVectorImpl<Id> &paramTypes,
                                     std::vector<KernelArg> &args) {
  using Kind = KernelArg::Kind;
  Id i64 = types.getIndexType();
  // Hidden arguments are named after their parameter (`A_shape1`), so the
  // convention can be read off the disassembly.
  llvm::StringRef paramName;
  auto add = [&](Id type, Kind kind, unsigned index, unsigned mode,
                 unsigned size) {
    paramTypes.push_back(type);
    Id id = addParameter(type, args, KernelArg{kind, index, mode, size});
    if (paramName.empty())
      return id;
    std::string name = paramName.str();
    switch (kind) {
    case Kind::DynamicShape:
    case Kind::GroupShape:
      name += "_shape" + std::to_string(mode);
      break;
    case Kind::DynamicStride:
    case Kind::GroupStride:
      name += "_stride" + std::to_string(mode);
      break;
    case Kind::GroupSize:
      name += "_size";
      break;
    case Kind::GroupOffset:
      name += "_offset";
      break;
    default:
      break;
    }
    builder.addName(id, name);
    return id;
  };

  for (unsigned i = 0, e = function.getNumParameters(); i < e; ++i) {
    const ir::Value *param = function.getParameter(i);
    const ir::Type *type = param->getType();
    paramName = param->getName();
    if (auto *scalar = llvm::dyn_cast<ir::ScalarType>(type)) {
      ir::ScalarKind kind = scalar->getScalarKind();
      Id id = add(types.getValueType(kind), Kind::Scalar, i, 0,
                  ir::getSizeInBytes(kind));
      setValue(param, id);
      continue;
    }
    if (llvm::isa<ir::BoolType>(type)) {
      // OpenCL forbids bool kernel arguments; pass an i8 and compare.
      Id id = add(builder.getIntType(8), Kind::Scalar, i, 0, 1);
      builder.addCapability(::spv::CapabilityInt8);
      Id boolValue = newId();
      entryCode.emit(::spv::OpINotEqual,
                     {types.getBoolType(), boolValue, id,
                      builder.getConstantInt(builder.getIntType(8), 0)});
      setValue(param, boolValue);
      continue;
    }
    if (auto *memrefType = llvm::dyn_cast<ir::MemRefType>(type)) {
      MemRefDesc desc;
      desc.type = memrefType;
      desc.pointer =
          add(types.getElementPointerType(memrefType->getElementKind(),
                                          memrefType->getAddressSpace()),
              Kind::Pointer, i, 0, 8);
      for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
        desc.shape.push_back(memrefType->isDynamicShape(mode)
                                 ? add(i64, Kind::DynamicShape, i, mode, 8)
                                 : constI64(memrefType->getShape(mode)));
      for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
        desc.stride.push_back(memrefType->isDynamicStride(mode)
                                  ? add(i64, Kind::DynamicStride, i, mode, 8)
                                  : constI64(memrefType->getStride(mode)));
      memrefs[param] = std::move(desc);
      continue;
    }
    auto *groupType = llvm::cast<ir::GroupType>(type);
    const ir::MemRefType *memrefType = groupType->getMemRefType();
    GroupDesc desc;
    desc.type = groupType;
    Id elementPointer = types.getElementPointerType(
        memrefType->getElementKind(), memrefType->getAddressSpace());
    Id globalI64 =
        builder.getPointerType(::spv::StorageClassCrossWorkgroup, i64);
    desc.pointer = add(builder.getPointerType(::spv::StorageClassCrossWorkgroup,
                                              elementPointer),
                       Kind::GroupPointer, i, 0, 8);
    for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
      desc.shapeArrays.push_back(
          memrefType->isDynamicShape(mode)
              ? add(globalI64, Kind::GroupShape, i, mode, 8)
              : 0);
    for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
      desc.strideArrays.push_back(
          memrefType->isDynamicStride(mode)
              ? add(globalI64, Kind::GroupStride, i, mode, 8)
              : 0);
    desc.size = ir::isDynamic(groupType->getSize())
                    ? add(i64, Kind::GroupSize, i, 0, 8)
                    : constI64(groupType->getSize());
    desc.offset = ir::isDynamic(groupType->getOffset())
                      ? add(i64, Kind::GroupOffset, i, 0, 8)
                      : constI64(groupType->getOffset());
    groups[param] = std::move(desc);
  }
}
