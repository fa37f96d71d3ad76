//===- EmitMemory.cpp - Loads, stores, views, alloca, atomics, barrier ----===//
#include "spv/FunctionEmitter.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

//===----------------------------------------------------------------------===//
// Addressing
//===----------------------------------------------------------------------===//

Id FunctionEmitter::linearOffset(const MemRefDesc &memref,
                                 llvm::ArrayRef<Id> indices) {
  Id offset = constI64(0);
  for (auto [index, stride] : llvm::zip(indices, memref.stride))
    offset = addI64(offset, mulI64(index, stride));
  return offset;
}

Id FunctionEmitter::getElementPointer(const MemRefDesc &memref,
                                      Id linearOffset) {
  if (linearOffset == constI64(0))
    return memref.pointer;
  Id pointerType = types.getElementPointerType(memref.type->getElementKind(),
                                               memref.type->getAddressSpace());
  return emitValue(::spv::OpInBoundsPtrAccessChain, pointerType,
                   {memref.pointer, linearOffset});
}

Id FunctionEmitter::getElementPointer(const MemRefDesc &memref,
                                      llvm::ArrayRef<Id> indices) {
  return getElementPointer(memref, linearOffset(memref, indices));
}

Id FunctionEmitter::loadElement(const MemRefDesc &memref, Id offset) {
  ScalarKind kind = memref.type->getElementKind();
  Id valueType = types.getValueType(kind);
  if (kind == ScalarKind::F16)
    return emitExt(OpenCLLIB::Vload_half, valueType, {offset, memref.pointer});
  Id pointer = getElementPointer(memref, offset);
  if (kind != ScalarKind::BF16)
    return emitValue(::spv::OpLoad, valueType, {pointer});
  // bf16 is the upper half of an f32.
  Id bits = emitValue(::spv::OpLoad, builder.getIntType(16), {pointer});
  Id i32 = types.getI32Type();
  Id wide = emitValue(::spv::OpUConvert, i32, {bits});
  Id shifted = emitValue(::spv::OpShiftLeftLogical, i32, {wide, constI32(16)});
  return emitValue(::spv::OpBitcast, valueType, {shifted});
}

void FunctionEmitter::storeElement(const MemRefDesc &memref, Id offset,
                                   Id value) {
  ScalarKind kind = memref.type->getElementKind();
  if (kind == ScalarKind::F16) {
    emitExt(OpenCLLIB::Vstore_half, builder.getVoidType(),
            {value, offset, memref.pointer});
    return;
  }
  Id pointer = getElementPointer(memref, offset);
  if (kind == ScalarKind::BF16) {
    // Round to nearest even: add 0x7fff plus the lowest kept bit.
    Id i32 = types.getI32Type();
    Id bits = emitValue(::spv::OpBitcast, i32, {value});
    Id high = emitValue(::spv::OpShiftRightLogical, i32, {bits, constI32(16)});
    Id lsb = emitValue(::spv::OpBitwiseAnd, i32, {high, constI32(1)});
    Id bias = emitValue(::spv::OpIAdd, i32, {lsb, constI32(0x7fff)});
    Id rounded = emitValue(::spv::OpIAdd, i32, {bits, bias});
    Id top =
        emitValue(::spv::OpShiftRightLogical, i32, {rounded, constI32(16)});
    value = emitValue(::spv::OpUConvert, builder.getIntType(16), {top});
  }
  emitOp(::spv::OpStore, {pointer, value});
}

MemRefDesc FunctionEmitter::loadFromGroup(const GroupDesc &group, Id index) {
  const ir::MemRefType *memrefType = group.type->getMemRefType();
  Id i64 = types.getIndexType();
  Id elementPointer = types.getElementPointerType(
      memrefType->getElementKind(), memrefType->getAddressSpace());
  Id slot = emitValue(
      ::spv::OpInBoundsPtrAccessChain,
      builder.getPointerType(::spv::StorageClassCrossWorkgroup, elementPointer),
      {group.pointer, index});
  MemRefDesc desc;
  desc.type = memrefType;
  desc.pointer = emitValue(::spv::OpLoad, elementPointer, {slot});
  if (group.offset != constI64(0))
    desc.pointer = emitValue(::spv::OpInBoundsPtrAccessChain, elementPointer,
                             {desc.pointer, group.offset});
  Id globalI64 = builder.getPointerType(::spv::StorageClassCrossWorkgroup, i64);
  auto loadMode = [&](Id array, int64_t known) {
    if (!array)
      return constI64(known);
    Id pointer =
        emitValue(::spv::OpInBoundsPtrAccessChain, globalI64, {array, index});
    return emitValue(::spv::OpLoad, i64, {pointer});
  };
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.shape.push_back(
        loadMode(group.shapeArrays[mode], memrefType->getShape(mode)));
  for (unsigned mode = 0; mode < memrefType->getOrder(); ++mode)
    desc.stride.push_back(
        loadMode(group.strideArrays[mode], memrefType->getStride(mode)));
  return desc;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// The view of \p subview: offsets move the pointer, modes of static size 0
/// are dropped (rank reduction).
MemRefDesc FunctionEmitter::describeSubview(ir::SubviewInst subview) {
  const MemRefDesc &source = getMemRef(subview.getOperand());
  llvm::ArrayRef<int64_t> staticOffsets = subview.getStaticOffsets();
  llvm::ArrayRef<int64_t> staticSizes = subview.getStaticSizes();
  llvm::ArrayRef<ir::Value *> dynOffsets = subview.getOffsets();
  llvm::ArrayRef<ir::Value *> dynSizes = subview.getSizes();
  llvm::SmallVector<Id, 4> offsets;
  MemRefDesc desc;
  desc.type = llvm::cast<ir::MemRefType>(subview.getResult()->getType());
  for (size_t mode = 0; mode < staticOffsets.size(); ++mode) {
    if (ir::isDynamic(staticOffsets[mode])) {
      offsets.push_back(getValue(dynOffsets.front()));
      dynOffsets = dynOffsets.drop_front();
    } else {
      offsets.push_back(constI64(staticOffsets[mode]));
    }
    Id size;
    if (ir::isDynamic(staticSizes[mode])) {
      size = getValue(dynSizes.front());
      dynSizes = dynSizes.drop_front();
    } else if (staticSizes[mode] == 0) {
      continue; // rank reduction
    } else {
      size = constI64(staticSizes[mode]);
    }
    desc.shape.push_back(size);
    desc.stride.push_back(source.stride[mode]);
  }
  desc.pointer = getElementPointer(source, offsets);
  return desc;
}

/// The view of \p expand: its mode split into the expand shape.
MemRefDesc FunctionEmitter::describeExpand(ir::ExpandInst expand) {
  const MemRefDesc &source = getMemRef(expand.getOperand());
  unsigned mode = static_cast<unsigned>(expand.getMode());
  llvm::ArrayRef<int64_t> staticShape = expand.getStaticExpandShape();
  llvm::ArrayRef<ir::Value *> dynShape = expand.getExpandShape();
  MemRefDesc desc;
  desc.type = llvm::cast<ir::MemRefType>(expand.getResult()->getType());
  desc.pointer = source.pointer;
  for (unsigned i = 0; i < mode; ++i) {
    desc.shape.push_back(source.shape[i]);
    desc.stride.push_back(source.stride[i]);
  }
  Id stride = source.stride[mode];
  for (int64_t size : staticShape) {
    Id sizeId;
    if (ir::isDynamic(size)) {
      sizeId = getValue(dynShape.front());
      dynShape = dynShape.drop_front();
    } else {
      sizeId = constI64(size);
    }
    desc.shape.push_back(sizeId);
    desc.stride.push_back(stride);
    stride = mulI64(stride, sizeId);
  }
  for (unsigned i = mode + 1; i < source.shape.size(); ++i) {
    desc.shape.push_back(source.shape[i]);
    desc.stride.push_back(source.stride[i]);
  }
  return desc;
}

/// The view of \p fuse: modes `from` to `to` as one.
MemRefDesc FunctionEmitter::describeFuse(ir::FuseInst fuse) {
  const MemRefDesc &source = getMemRef(fuse.getOperand());
  unsigned from = static_cast<unsigned>(fuse.getFrom());
  unsigned to = static_cast<unsigned>(fuse.getTo());
  MemRefDesc desc;
  desc.type = llvm::cast<ir::MemRefType>(fuse.getResult()->getType());
  desc.pointer = source.pointer;
  for (unsigned i = 0; i < source.shape.size(); ++i) {
    if (i > from && i <= to)
      continue;
    Id size = source.shape[i];
    if (i == from)
      for (unsigned j = from + 1; j <= to; ++j)
        size = mulI64(size, source.shape[j]);
    desc.shape.push_back(size);
    desc.stride.push_back(source.stride[i]);
  }
  return desc;
}

LogicalResult FunctionEmitter::emitLoad(ir::LoadInst load) {
  ir::Value *tensor = load.getTensor();
  auto indices = flatten(load.getIndices());
  if (llvm::isa<ir::GroupType>(tensor->getType())) {
    memrefs[load.getResult()] =
        loadFromGroup(getGroup(tensor), indices.front());
    return success();
  }
  const MemRefDesc &memref = getMemRef(tensor);
  setValue(load.getResult(),
           loadElement(memref, linearOffset(memref, indices)));
  return success();
}

void FunctionEmitter::emitBarrier(ir::BarrierInst barrier) {
  Word semantics = 0;
  if (barrier.isGlobal())
    semantics |= ::spv::MemorySemanticsCrossWorkgroupMemoryMask;
  if (barrier.isLocal())
    semantics |= ::spv::MemorySemanticsWorkgroupMemoryMask;
  if (semantics)
    semantics |= ::spv::MemorySemanticsSequentiallyConsistentMask;
  emitOp(::spv::OpControlBarrier,
         {constI32(::spv::ScopeWorkgroup), constI32(::spv::ScopeWorkgroup),
          constI32(semantics)});
}

LogicalResult FunctionEmitter::emitMemoryInst(ir::Instruction &inst) {
  Id i64 = types.getIndexType();
  switch (inst.getKind()) {
  case InstKind::Alloca:
    return emitAlloca(ir::AllocaInst(&inst));
  case InstKind::Load:
    return emitLoad(ir::LoadInst(&inst));
  case InstKind::Store: {
    ir::StoreInst store(&inst);
    const MemRefDesc &memref = getMemRef(store.getTensor());
    auto indices = flatten(store.getIndices());
    storeElement(memref, linearOffset(memref, indices),
                 getValue(store.getValue()));
    return success();
  }
  case InstKind::Size: {
    ir::SizeInst size(&inst);
    ir::Value *tensor = size.getTensor();
    unsigned mode = static_cast<unsigned>(size.getMode());
    setValue(inst.getResult(0), llvm::isa<ir::GroupType>(tensor->getType())
                                    ? getGroup(tensor).size
                                    : getMemRef(tensor).shape[mode]);
    return success();
  }
  case InstKind::Associated: {
    ir::Value *tensor = ir::AssociatedInst(&inst).getTensor();
    Id pointer = llvm::isa<ir::GroupType>(tensor->getType())
                     ? getGroup(tensor).pointer
                     : getMemRef(tensor).pointer;
    Id address = emitValue(::spv::OpConvertPtrToU, i64, {pointer});
    setValue(inst.getResult(0),
             emitValue(::spv::OpINotEqual, types.getBoolType(),
                       {address, constI64(0)}));
    return success();
  }
  case InstKind::Subview:
    memrefs[inst.getResult(0)] = describeSubview(ir::SubviewInst(&inst));
    return success();
  case InstKind::Expand:
    memrefs[inst.getResult(0)] = describeExpand(ir::ExpandInst(&inst));
    return success();
  case InstKind::Fuse:
    memrefs[inst.getResult(0)] = describeFuse(ir::FuseInst(&inst));
    return success();
  case InstKind::Barrier:
    emitBarrier(ir::BarrierInst(&inst));
    return success();
  default:
    return emitAtomic(inst);
  }
}

/// The `local_offset` the place-local-memory pass gave \p inst, if any.
static std::optional<int64_t> getLocalOffset(const ir::Instruction &inst) {
  if (const ir::DictionaryAttr *attrs = inst.getDictionary(0))
    if (auto *offset =
            llvm::dyn_cast_or_null<ir::IntegerAttr>(attrs->get("local_offset")))
      return offset->getValue();
  return std::nullopt;
}

/// Size and alignment of the arena holding the placed allocas of \p region.
static void measureArena(const ir::Region &region, uint64_t &bytes,
                         uint64_t &alignment) {
  for (const ir::Instruction &inst : region) {
    if (inst.getKind() == InstKind::Alloca) {
      if (std::optional<int64_t> offset = getLocalOffset(inst)) {
        auto *type = llvm::cast<ir::MemRefType>(inst.getResult(0)->getType());
        bytes =
            std::max(bytes, static_cast<uint64_t>(*offset) +
                                static_cast<uint64_t>(type->getSizeInBytes()));
        if (auto *align = llvm::dyn_cast_or_null<ir::IntegerAttr>(
                inst.getDictionary(0)->get("alignment")))
          alignment =
              std::max(alignment, static_cast<uint64_t>(align->getValue()));
      }
    }
    for (const ir::Region *nested : inst.getRegions())
      measureArena(*nested, bytes, alignment);
  }
}

void comprehend::backend::spv::measureLocalArena(const ir::Function &function,
                                                 uint64_t &bytes,
                                                 uint64_t &alignment) {
  measureArena(function.getBody(), bytes, alignment);
}

/// A module-scope local byte array of \p bytes aligned to \p alignment.
static Id addArenaVariable(ModuleBuilder &builder, uint64_t bytes,
                           uint64_t alignment) {
  builder.addCapability(::spv::CapabilityInt8);
  Id array =
      builder.getArrayType(builder.getIntType(8), std::max<uint64_t>(bytes, 1));
  Id variable = builder.addGlobalVariable(
      builder.getPointerType(::spv::StorageClassWorkgroup, array),
      ::spv::StorageClassWorkgroup);
  builder.addDecoration(variable, ::spv::DecorationAlignment,
                        {static_cast<Word>(alignment)});
  builder.addName(variable, "local_arena");
  return variable;
}

Id FunctionEmitter::getLocalArena() {
  if (localArena)
    return localArena;
  uint64_t bytes = 0, alignment = 16;
  Id variable;
  if (std::optional<SharedLocalArena> &shared = module.sharedArena) {
    if (!shared->variable)
      shared->variable =
          addArenaVariable(builder, shared->bytes, shared->alignment);
    variable = shared->variable;
    bytes = shared->bytes;
  } else {
    measureArena(function.getBody(), bytes, alignment);
    variable = addArenaVariable(builder, bytes, alignment);
  }
  // The pass checked each kernel's size against the core.
  localMemoryBytes += bytes;
  localArena = newId();
  entryCode.emit(::spv::OpInBoundsAccessChain,
                 {builder.getPointerType(::spv::StorageClassWorkgroup,
                                         builder.getIntType(8)),
                  localArena, variable, constI64(0)});
  return localArena;
}

LogicalResult FunctionEmitter::emitAlloca(ir::AllocaInst inst) {
  auto *type = llvm::cast<ir::MemRefType>(inst->getResult(0)->getType());
  int64_t count = type->getNumElements();
  if (ir::isDynamic(count) ||
      type->getAddressSpace() != ir::AddressSpace::Local)
    return emitUnsupported(*inst, "alloca needs a static local memref");
  Id storage = types.getStorageType(type->getElementKind());
  Id storagePointer =
      builder.getPointerType(::spv::StorageClassWorkgroup, storage);
  MemRefDesc desc;
  desc.type = type;
  for (unsigned mode = 0; mode < type->getOrder(); ++mode) {
    desc.shape.push_back(constI64(type->getShape(mode)));
    desc.stride.push_back(constI64(type->getStride(mode)));
  }
  if (std::optional<int64_t> offset = getLocalOffset(*inst)) {
    // Placed by the place-local-memory pass: a view of the arena.
    Id arena = getLocalArena();
    Id bytePointer = newId();
    entryCode.emit(::spv::OpInBoundsPtrAccessChain,
                   {builder.getPointerType(::spv::StorageClassWorkgroup,
                                           builder.getIntType(8)),
                    bytePointer, arena, constI64(*offset)});
    desc.pointer = newId();
    entryCode.emit(::spv::OpBitcast,
                   {storagePointer, desc.pointer, bytePointer});
    memrefs[inst->getResult(0)] = std::move(desc);
    return success();
  }

  uint64_t bytes = static_cast<uint64_t>(type->getSizeInBytes());
  if (localMemoryBytes + bytes > module.core.localMemoryBytes)
    return diags.emitError(inst->getLoc())
           << "alloca of " << bytes << " bytes exceeds the local memory of "
           << "target '" << module.core.name << "' ("
           << module.core.localMemoryBytes << " bytes, " << localMemoryBytes
           << " already allocated)";
  localMemoryBytes += bytes;
  // Without the pass: one module-scope Workgroup array per alloca.
  Id array = builder.getArrayType(storage, static_cast<uint64_t>(count));
  Id variable = builder.addGlobalVariable(
      builder.getPointerType(::spv::StorageClassWorkgroup, array),
      ::spv::StorageClassWorkgroup);
  if (const ir::DictionaryAttr *attrs = inst->getDictionary(0))
    if (auto *alignment =
            llvm::dyn_cast_or_null<ir::IntegerAttr>(attrs->get("alignment")))
      builder.addDecoration(variable, ::spv::DecorationAlignment,
                            {static_cast<Word>(alignment->getValue())});
  if (inst->getResult(0)->hasName())
    builder.addName(variable, inst->getResult(0)->getName());
  Id pointer = newId();
  entryCode.emit(::spv::OpInBoundsAccessChain,
                 {storagePointer, pointer, variable, constI64(0)});
  desc.pointer = pointer;
  memrefs[inst->getResult(0)] = std::move(desc);
  return success();
}
