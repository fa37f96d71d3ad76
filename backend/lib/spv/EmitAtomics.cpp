//===- EmitAtomics.cpp - Atomic loads, stores and updates -----------------===//
//
// Integer atomics map to OpAtomic* directly. Floating-point values go
// through their bit pattern (loads and stores) or a compare-exchange loop
// (add, min, max), which needs no extension and so also reaches PoCL through
// LLVMSPIRVLib. Complex values are updated per component (pseudo-atomic, as
// the spec allows).
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

Id FunctionEmitter::getScope(ir::MemoryScope scope) {
  switch (scope) {
  case ir::MemoryScope::CrossDevice:
    return constI32(::spv::ScopeCrossDevice);
  case ir::MemoryScope::Device:
    return constI32(::spv::ScopeDevice);
  case ir::MemoryScope::WorkGroup:
    return constI32(::spv::ScopeWorkgroup);
  case ir::MemoryScope::Subgroup:
    return constI32(::spv::ScopeSubgroup);
  }
  llvm_unreachable("unknown memory scope");
}

Id FunctionEmitter::getSemantics(ir::MemorySemantics semantics,
                                 ir::AddressSpace space) {
  Word order = 0;
  switch (semantics) {
  case ir::MemorySemantics::Relaxed:
    return constI32(0);
  case ir::MemorySemantics::Acquire:
    order = ::spv::MemorySemanticsAcquireMask;
    break;
  case ir::MemorySemantics::Release:
    order = ::spv::MemorySemanticsReleaseMask;
    break;
  case ir::MemorySemantics::AcquireRelease:
    order = ::spv::MemorySemanticsAcquireReleaseMask;
    break;
  case ir::MemorySemantics::SequentiallyConsistent:
    order = ::spv::MemorySemanticsSequentiallyConsistentMask;
    break;
  }
  Word storage = space == ir::AddressSpace::Local
                     ? ::spv::MemorySemanticsWorkgroupMemoryMask
                     : ::spv::MemorySemanticsCrossWorkgroupMemoryMask;
  return constI32(order | storage);
}

/// SPIR-V forbids release ordering on reads (loads, a failed
/// compare-exchange) and acquire ordering on writes; keep what remains.
static ir::MemorySemantics forRead(ir::MemorySemantics semantics) {
  switch (semantics) {
  case ir::MemorySemantics::Release:
    return ir::MemorySemantics::Relaxed;
  case ir::MemorySemantics::AcquireRelease:
    return ir::MemorySemantics::Acquire;
  default:
    return semantics;
  }
}

static ir::MemorySemantics forWrite(ir::MemorySemantics semantics) {
  switch (semantics) {
  case ir::MemorySemantics::Acquire:
    return ir::MemorySemantics::Relaxed;
  case ir::MemorySemantics::AcquireRelease:
    return ir::MemorySemantics::Release;
  default:
    return semantics;
  }
}

/// The integer type with the bit width of \p kind's (component) type.
static Id getBitsType(ModuleBuilder &builder, TypeMapper &types,
                      ScalarKind kind) {
  return builder.getIntType(
      builder.getTypeInfo(types.getComponentValueType(kind)).width);
}

Id FunctionEmitter::emitAtomicUpdate(InstKind combine, ScalarKind elem,
                                     ir::AddressSpace space, Id pointer,
                                     Id value, ir::MemoryScope memoryScope,
                                     ir::MemorySemantics memorySemantics) {
  Id scope = getScope(memoryScope);
  Id semantics = getSemantics(memorySemantics, space);
  Id valueType = types.getValueType(elem);
  if (ir::isInteger(elem)) {
    ::spv::Op op = combine == InstKind::Add   ? ::spv::OpAtomicIAdd
                   : combine == InstKind::Min ? ::spv::OpAtomicSMin
                                              : ::spv::OpAtomicSMax;
    return emitValue(op, valueType, {pointer, scope, semantics, value});
  }
  ::spv::StorageClass storage = TypeMapper::getStorageClass(space);
  Id componentType = types.getComponentValueType(elem);
  Id bitsType = getBitsType(builder, types, elem);
  Id bitsPointerType = builder.getPointerType(storage, bitsType);
  if (ir::isComplex(elem)) {
    // Pseudo-atomic: real and imaginary part separately.
    Id componentPointerType = builder.getPointerType(storage, componentType);
    Id base = emitValue(::spv::OpBitcast, componentPointerType, {pointer});
    Id parts[2];
    for (unsigned part = 0; part < 2; ++part) {
      Id partPointer =
          part == 0 ? base
                    : emitValue(::spv::OpInBoundsPtrAccessChain,
                                componentPointerType, {base, constI64(1)});
      Id partValue =
          emitValue(::spv::OpCompositeExtract, componentType, {value, part});
      parts[part] = emitAtomicUpdate(combine, ir::getComponentKind(elem), space,
                                     partPointer, partValue, memoryScope,
                                     memorySemantics);
    }
    return makeComplex(elem, parts[0], parts[1]);
  }

  // Compare-exchange loop on the bit pattern.
  Id readSemantics = getSemantics(forRead(memorySemantics), space);
  Id bitsPointer = emitValue(::spv::OpBitcast, bitsPointerType, {pointer});
  Id initial = emitValue(::spv::OpAtomicLoad, bitsType,
                         {bitsPointer, scope, readSemantics});
  Id preheader = currentBlock;
  Id header = newId(), continueLabel = newId(), merge = newId();
  Id expected = newId(), observed = newId();
  branch(header);
  startBlock(header);
  code->emit(::spv::OpPhi,
             {bitsType, expected, initial, preheader, observed, continueLabel});
  Id old = emitValue(::spv::OpBitcast, valueType, {expected});
  Id updated = emitScalarBinary(combine, elem, old, value);
  Id updatedBits = emitValue(::spv::OpBitcast, bitsType, {updated});
  code->emit(::spv::OpAtomicCompareExchange,
             {bitsType, observed, bitsPointer, scope, semantics, readSemantics,
              updatedBits, expected});
  Id done =
      emitValue(::spv::OpIEqual, types.getBoolType(), {observed, expected});
  code->emit(::spv::OpLoopMerge,
             {merge, continueLabel, ::spv::LoopControlMaskNone});
  code->emit(::spv::OpBranchConditional, {done, merge, continueLabel});
  startBlock(continueLabel);
  branch(header);
  startBlock(merge);
  return old;
}

Id FunctionEmitter::emitAtomicLoad(ScalarKind elem, ir::AddressSpace space,
                                   Id pointer, ir::MemoryScope scope,
                                   ir::MemorySemantics semantics) {
  Id scopeId = getScope(scope);
  Id semanticsId = getSemantics(forRead(semantics), space);
  if (ir::isInteger(elem))
    return emitValue(::spv::OpAtomicLoad, types.getValueType(elem),
                     {pointer, scopeId, semanticsId});
  Id bitsType = getBitsType(builder, types, elem);
  Id componentType = types.getComponentValueType(elem);
  Id partPointerType =
      builder.getPointerType(TypeMapper::getStorageClass(space), bitsType);
  Id base = emitValue(::spv::OpBitcast, partPointerType, {pointer});
  Id parts[2] = {0, 0};
  for (unsigned part = 0; part < (ir::isComplex(elem) ? 2u : 1u); ++part) {
    Id partPointer = part == 0
                         ? base
                         : emitValue(::spv::OpInBoundsPtrAccessChain,
                                     partPointerType, {base, constI64(1)});
    Id bits = emitValue(::spv::OpAtomicLoad, bitsType,
                        {partPointer, scopeId, semanticsId});
    parts[part] = emitValue(::spv::OpBitcast, componentType, {bits});
  }
  return ir::isComplex(elem) ? makeComplex(elem, parts[0], parts[1]) : parts[0];
}

void FunctionEmitter::emitAtomicStore(ScalarKind elem, ir::AddressSpace space,
                                      Id pointer, Id value,
                                      ir::MemoryScope scope,
                                      ir::MemorySemantics semantics) {
  Id scopeId = getScope(scope);
  Id semanticsId = getSemantics(forWrite(semantics), space);
  if (ir::isInteger(elem)) {
    emitOp(::spv::OpAtomicStore, {pointer, scopeId, semanticsId, value});
    return;
  }
  Id bitsType = getBitsType(builder, types, elem);
  Id componentType = types.getComponentValueType(elem);
  Id partPointerType =
      builder.getPointerType(TypeMapper::getStorageClass(space), bitsType);
  Id base = emitValue(::spv::OpBitcast, partPointerType, {pointer});
  for (unsigned part = 0; part < (ir::isComplex(elem) ? 2u : 1u); ++part) {
    Id partPointer = part == 0
                         ? base
                         : emitValue(::spv::OpInBoundsPtrAccessChain,
                                     partPointerType, {base, constI64(1)});
    Id partValue = ir::isComplex(elem) ? emitValue(::spv::OpCompositeExtract,
                                                   componentType, {value, part})
                                       : value;
    Id bits = emitValue(::spv::OpBitcast, bitsType, {partValue});
    emitOp(::spv::OpAtomicStore, {partPointer, scopeId, semanticsId, bits});
  }
}

LogicalResult FunctionEmitter::checkAtomicElement(const ir::Instruction &inst,
                                                  ScalarKind elem) {
  unsigned bytes = ir::getSizeInBytes(ir::getComponentKind(elem));
  if (TypeMapper::isConvertedOnAccess(elem) || bytes < 4)
    return emitUnsupported(inst, "atomics need 32- or 64-bit elements, but "
                                 "the memref holds " +
                                     ir::stringify(elem));
  if (bytes == 8 && !module.core.features.int64Atomics)
    return emitUnsupported(inst, "the target has no 64-bit atomics");
  if (bytes == 8)
    builder.addCapability(::spv::CapabilityInt64Atomics);
  return success();
}

LogicalResult FunctionEmitter::emitAtomic(ir::Instruction &inst) {
  // Every atomic names its memref `tensor`, then `indices`, `scope` and
  // `semantics`; stores and updates take a `value`.
  ir::Value *tensor = nullptr, *value = nullptr;
  llvm::ArrayRef<ir::Value *> indexValues;
  auto scope = ir::MemoryScope::WorkGroup;
  auto semantics = ir::MemorySemantics::Relaxed;
  auto read = [&](auto atomic) {
    tensor = atomic.getTensor();
    indexValues = atomic.getIndices();
    scope = atomic.getScope();
    semantics = atomic.getSemantics();
  };
  if (auto load = llvm::dyn_cast<ir::AtomicLoadInst>(&inst)) {
    read(load);
  } else if (auto store = llvm::dyn_cast<ir::AtomicStoreInst>(&inst)) {
    read(store);
    value = store.getValue();
  } else {
    auto update = llvm::cast<ir::AtomicUpdateView>(&inst);
    read(update);
    value = update.getValue();
  }
  const MemRefDesc &memref = getMemRef(tensor);
  ScalarKind elem = memref.type->getElementKind();
  ir::AddressSpace space = memref.type->getAddressSpace();
  if (failed(checkAtomicElement(inst, elem)))
    return failure();
  llvm::SmallVector<Id, 4> indices;
  for (const ir::Value *index : indexValues)
    indices.push_back(getValue(index));
  Id pointer = getElementPointer(memref, indices);
  if (!value) {
    setValue(inst.getResult(0),
             emitAtomicLoad(elem, space, pointer, scope, semantics));
  } else if (inst.getNumResults() == 0) {
    emitAtomicStore(elem, space, pointer, getValue(value), scope, semantics);
  } else {
    setValue(inst.getResult(0),
             emitAtomicUpdate(*inst.getDescriptor().combine, elem, space,
                              pointer, getValue(value), scope, semantics));
  }
  return success();
}
