//===- TypeMapper.cpp - Tensor-language types as SPIR-V types -------------===//
#include "spv/TypeMapper.h"

#include "llvm/Support/ErrorHandling.h"

using namespace comprehend;
using namespace comprehend::backend::spv;
using ir::ScalarKind;

Id TypeMapper::getComponentValueType(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::I8:
    builder.addCapability(::spv::CapabilityInt8);
    return builder.getIntType(8);
  case ScalarKind::I16:
    builder.addCapability(::spv::CapabilityInt16);
    return builder.getIntType(16);
  case ScalarKind::I32:
    return builder.getIntType(32);
  case ScalarKind::I64:
  case ScalarKind::Index:
    return builder.getIntType(64);
  case ScalarKind::BF16:
  case ScalarKind::F16:
  case ScalarKind::F32:
  case ScalarKind::C32:
    return builder.getFloatType(32);
  case ScalarKind::F64:
  case ScalarKind::C64:
    builder.addCapability(::spv::CapabilityFloat64);
    return builder.getFloatType(64);
  }
  llvm_unreachable("unknown scalar kind");
}

Id TypeMapper::getValueType(ScalarKind kind) {
  Id component = getComponentValueType(kind);
  return ir::isComplex(kind) ? builder.getVectorType(component, 2) : component;
}

Id TypeMapper::getStorageType(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::BF16:
    builder.addCapability(::spv::CapabilityInt16);
    return builder.getIntType(16);
  case ScalarKind::F16:
    // Half in memory only: accessed with vload_half/vstore_half.
    builder.addCapability(::spv::CapabilityFloat16Buffer);
    return builder.getFloatType(16);
  default:
    return getValueType(kind);
  }
}

::spv::StorageClass TypeMapper::getStorageClass(ir::AddressSpace space) {
  return space == ir::AddressSpace::Local ? ::spv::StorageClassWorkgroup
                                          : ::spv::StorageClassCrossWorkgroup;
}

Id TypeMapper::getElementPointerType(ScalarKind kind, ir::AddressSpace space) {
  return builder.getPointerType(getStorageClass(space), getStorageType(kind));
}

Id TypeMapper::getConstant(ScalarKind kind, int64_t value) {
  if (ir::isInteger(kind))
    return builder.getConstantInt(getValueType(kind),
                                  static_cast<uint64_t>(value));
  return getConstant(kind, static_cast<double>(value));
}

Id TypeMapper::getConstant(ScalarKind kind, double value) {
  if (ir::isInteger(kind))
    return getConstant(kind, static_cast<int64_t>(value));
  if (ir::isComplex(kind))
    return getConstant(kind, value, 0.0);
  return builder.getConstantFloat(getValueType(kind), value);
}

Id TypeMapper::getConstant(ScalarKind kind, double re, double im) {
  if (!ir::isComplex(kind))
    return getConstant(kind, re);
  Id component = getComponentValueType(kind);
  return builder.getConstantComposite(
      getValueType(kind), {builder.getConstantFloat(component, re),
                           builder.getConstantFloat(component, im)});
}
