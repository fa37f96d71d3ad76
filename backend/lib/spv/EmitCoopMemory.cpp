//===- EmitCoopMemory.cpp - Cooperative matrix loads and stores -----------===//
//
// A coopmatrix access touches tile element (i, j) at memref indices
// (x + i, y + j), or (x + j, y + i) when transposed. On subgroup size 1 the
// parts of a column (see CoopLayout) are contiguous when mode 0 has stride 1
// and the access is not transposed: they become vector loads and stores, a
// column outside a checked mode reads zeros / is skipped as a whole. The
// other accesses (transposed, rows checked, atomics, f16/bf16, lanes > 1)
// go element by element with a bounds test per component.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

namespace {
/// What a cooperative-matrix memory access is: a load takes the memref as
/// operand 0, a store (whose operand 0 is the matrix) as operand 1, and the
/// two coordinates follow the memref.
struct CoopAccess {
  bool isLoad;
  bool isAtomic;
  unsigned memrefIndex;
};

CoopAccess classifyCoopAccess(const ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  bool isLoad = kind == InstKind::CooperativeMatrixLoad ||
                kind == InstKind::CooperativeMatrixAtomicLoad;
  bool isAtomic = kind != InstKind::CooperativeMatrixLoad &&
                  kind != InstKind::CooperativeMatrixStore;
  return {isLoad, isAtomic, isLoad ? 0u : 1u};
}
} // namespace

Id FunctionEmitter::emitVectorLoad(const MemRefDesc &memref, Id offset,
                                   unsigned width) {
  ScalarKind kind = memref.type->getElementKind();
  Id vectorType = getVectorValueType(kind, width);
  Id pointerType = builder.getPointerType(
      TypeMapper::getStorageClass(memref.type->getAddressSpace()), vectorType);
  Id pointer = emitValue(::spv::OpBitcast, pointerType,
                         {getElementPointer(memref, offset)});
  // Only element alignment is known (a tile may start anywhere).
  return emitValue(::spv::OpLoad, vectorType,
                   {pointer, ::spv::MemoryAccessAlignedMask,
                    static_cast<Word>(ir::getSizeInBytes(kind))});
}

void FunctionEmitter::emitVectorStore(const MemRefDesc &memref, Id offset,
                                      Id value, unsigned width) {
  ScalarKind kind = memref.type->getElementKind();
  Id vectorType = getVectorValueType(kind, width);
  Id pointerType = builder.getPointerType(
      TypeMapper::getStorageClass(memref.type->getAddressSpace()), vectorType);
  Id pointer = emitValue(::spv::OpBitcast, pointerType,
                         {getElementPointer(memref, offset)});
  emitOp(::spv::OpStore, {pointer, value, ::spv::MemoryAccessAlignedMask,
                          static_cast<Word>(ir::getSizeInBytes(kind))});
}

bool FunctionEmitter::canAccessCoopAsVectors(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  bool isLoad = kind == InstKind::CooperativeMatrixLoad;
  if (!isLoad && kind != InstKind::CooperativeMatrixStore)
    return false;
  unsigned memrefIndex = isLoad ? 0 : 1;
  const MemRefDesc &memref = getMemRef(inst.getOperand(memrefIndex));
  const auto *type = llvm::cast<ir::CoopMatrixType>(
      isLoad ? inst.getResult(0)->getType() : inst.getOperand(0)->getType());
  auto transpose = static_cast<ir::Transpose>(inst.getInteger(0));
  ScalarKind elem = memref.type->getElementKind();
  auto unitStride = i64Constants.find(memref.stride[0]);
  return !getCoopLayout(type).isScalar() && transpose == ir::Transpose::N &&
         elem == type->getComponentKind() &&
         !TypeMapper::isConvertedOnAccess(elem) &&
         unitStride != i64Constants.end() && unitStride->second == 1;
}

llvm::SmallVector<Id, 16>
FunctionEmitter::emitCoopVectorAccess(ir::Instruction &inst, bool checkCols) {
  bool isLoad = inst.getKind() == InstKind::CooperativeMatrixLoad;
  unsigned memrefIndex = isLoad ? 0 : 1;
  const MemRefDesc &memref = getMemRef(inst.getOperand(memrefIndex));
  const auto *type = llvm::cast<ir::CoopMatrixType>(
      isLoad ? inst.getResult(0)->getType() : inst.getOperand(0)->getType());
  CoopLayout layout = getCoopLayout(type);
  ScalarKind elem = memref.type->getElementKind();
  Id x = getValue(inst.getOperand(memrefIndex + 1));
  Id y = getValue(inst.getOperand(memrefIndex + 2));
  Id boolType = types.getBoolType();
  unsigned chunks = layout.getPartsPerColumn();
  llvm::ArrayRef<Id> values;
  if (!isLoad)
    values = getCoop(inst.getOperand(0));
  llvm::SmallVector<Id, 16> results;
  for (unsigned j = 0; j < layout.cols; ++j) {
    Id col = addI64(y, constI64(j));
    Id valid = checkCols ? emitValue(::spv::OpULessThan, boolType,
                                     {col, memref.shape[1]})
                         : 0;
    Id merge = 0;
    if (valid && !isLoad) {
      // A column outside the memref is not stored.
      Id body = newId();
      merge = newId();
      emitOp(::spv::OpSelectionMerge, {merge, ::spv::SelectionControlMaskNone});
      emitOp(::spv::OpBranchConditional, {valid, body, merge});
      startBlock(body);
    }
    for (unsigned chunk = 0; chunk < chunks; ++chunk) {
      unsigned width = layout.widths[chunk];
      Id offset = linearOffset(
          memref, {addI64(x, constI64(layout.starts[chunk])), col});
      if (!isLoad) {
        Id value = values[chunk + chunks * j];
        if (width == 1)
          storeElement(memref, offset, value);
        else
          emitVectorStore(memref, offset, value, width);
        continue;
      }
      // A column outside the memref reads column 0 (the access stays in
      // bounds) and is replaced by zeros.
      if (valid)
        offset = emitValue(::spv::OpSelect, types.getIndexType(),
                           {valid, offset, constI64(0)});
      Id value = width == 1 ? loadElement(memref, offset)
                            : emitVectorLoad(memref, offset, width);
      if (valid)
        value = selectValue(
            elem, width, valid, value,
            builder.getConstantNull(getVectorValueType(elem, width)));
      results.push_back(value);
    }
    if (merge) {
      branch(merge);
      startBlock(merge);
    }
  }
  return results;
}

LogicalResult FunctionEmitter::emitCoopLoadStore(ir::Instruction &inst) {
  auto [isLoad, isAtomic, memrefIndex] = classifyCoopAccess(inst);
  const MemRefDesc &memref = getMemRef(inst.getOperand(memrefIndex));
  if (isAtomic &&
      failed(checkAtomicElement(inst, memref.type->getElementKind())))
    return failure();
  const auto *type = llvm::cast<ir::CoopMatrixType>(
      isLoad ? inst.getResult(0)->getType() : inst.getOperand(0)->getType());
  auto checked = static_cast<ir::CheckedFlag>(inst.getInteger(1));
  bool checkRows =
      checked == ir::CheckedFlag::Rows || checked == ir::CheckedFlag::Both;
  bool checkCols =
      checked == ir::CheckedFlag::Cols || checked == ir::CheckedFlag::Both;

  if (!canAccessCoopAsVectors(inst)) {
    llvm::SmallVector<Id, 16> results = emitCoopElementAccess(inst);
    if (inst.getNumResults())
      setCoopComponents(inst.getResult(0), results);
    return success();
  }
  if (!checkRows) {
    llvm::SmallVector<Id, 16> parts = emitCoopVectorAccess(inst, checkCols);
    if (isLoad)
      setCoop(inst.getResult(0), std::move(parts));
    return success();
  }

  // Rows checked: the vector form when all rows of the tile are inside the
  // memref (interior tiles), the per-element form at the edge.
  Id x = getValue(inst.getOperand(memrefIndex + 1));
  Id end = addI64(x, constI64(getNumBlocks(type)));
  Id inside = emitValue(::spv::OpULessThanEqual, types.getBoolType(),
                        {end, memref.shape[0]});
  Id vectorLabel = newId(), elementLabel = newId(), merge = newId();
  emitOp(::spv::OpSelectionMerge, {merge, ::spv::SelectionControlMaskNone});
  emitOp(::spv::OpBranchConditional, {inside, vectorLabel, elementLabel});
  startBlock(vectorLabel);
  llvm::SmallVector<Id, 16> vectorParts = emitCoopVectorAccess(inst, checkCols);
  Id vectorEnd = currentBlock;
  branch(merge);
  startBlock(elementLabel);
  llvm::SmallVector<Id, 16> elementParts;
  {
    llvm::SmallVector<Id, 16> components = emitCoopElementAccess(inst);
    if (isLoad)
      elementParts = packCoop(type, components);
  }
  Id elementEnd = currentBlock;
  branch(merge);
  startBlock(merge);
  if (!isLoad)
    return success();
  llvm::SmallVector<Id, 16> partTypes = getCoopPartTypes(type);
  llvm::SmallVector<Id, 16> parts;
  for (auto [partType, fromVector, fromElements] :
       llvm::zip(partTypes, vectorParts, elementParts))
    parts.push_back(
        emitValue(::spv::OpPhi, partType,
                  {fromVector, vectorEnd, fromElements, elementEnd}));
  setCoop(inst.getResult(0), std::move(parts));
  return success();
}

llvm::SmallVector<Id, 16>
FunctionEmitter::emitCoopElementAccess(ir::Instruction &inst) {
  auto [isLoad, isAtomic, memrefIndex] = classifyCoopAccess(inst);
  InstKind kind = inst.getKind();
  const MemRefDesc &memref = getMemRef(inst.getOperand(memrefIndex));
  Id x = getValue(inst.getOperand(memrefIndex + 1));
  Id y = getValue(inst.getOperand(memrefIndex + 2));
  auto transpose = static_cast<ir::Transpose>(inst.getInteger(0));
  auto checked = static_cast<ir::CheckedFlag>(inst.getInteger(1));
  auto scope = ir::MemoryScope::WorkGroup;
  auto semantics = ir::MemorySemantics::Relaxed;
  ScalarKind elem = memref.type->getElementKind();
  ir::AddressSpace space = memref.type->getAddressSpace();
  if (isAtomic) {
    scope = static_cast<ir::MemoryScope>(inst.getInteger(2));
    semantics = static_cast<ir::MemorySemantics>(inst.getInteger(3));
  }
  const auto *type = llvm::cast<ir::CoopMatrixType>(
      isLoad ? inst.getResult(0)->getType() : inst.getOperand(0)->getType());
  llvm::SmallVector<Id, 16> values;
  if (!isLoad)
    values = getCoopComponents(inst.getOperand(0));

  Id i64 = types.getIndexType();
  Id boolType = types.getBoolType();
  Id valueType = types.getValueType(elem);
  bool isTransposed = transpose == ir::Transpose::T;
  bool checkRows =
      checked == ir::CheckedFlag::Rows || checked == ir::CheckedFlag::Both;
  bool checkCols =
      checked == ir::CheckedFlag::Cols || checked == ir::CheckedFlag::Both;
  bool hasPadding = type->getRows() % shape.subgroupSize != 0;
  unsigned blocks = getNumBlocks(type);

  llvm::SmallVector<Id, 16> results;
  for (unsigned k = 0, e = getNumComponents(type); k < e; ++k) {
    Id row = getCoopRow(type, k);
    Id col = constI64(k / blocks);
    // Memref indices: (x + i, y + j), or (x + j, y + i) when transposed.
    Id first = addI64(x, isTransposed ? col : row);
    Id second = addI64(y, isTransposed ? row : col);
    Id rowIndex = isTransposed ? second : first;
    Id colIndex = isTransposed ? first : second;
    unsigned rowMode = isTransposed ? 1 : 0;
    Id condition = 0;
    auto require = [&](Id test) {
      condition = condition ? emitValue(::spv::OpLogicalAnd, boolType,
                                        {condition, test})
                            : test;
    };
    if (hasPadding)
      require(emitValue(::spv::OpSLessThan, boolType,
                        {row, constI64(type->getRows())}));
    if (checkRows)
      require(emitValue(::spv::OpULessThan, boolType,
                        {rowIndex, memref.shape[rowMode]}));
    if (checkCols)
      require(emitValue(::spv::OpULessThan, boolType,
                        {colIndex, memref.shape[1 - rowMode]}));
    Id offset = linearOffset(memref, {first, second});

    if (isLoad) {
      // Out-of-bounds components read element 0 and are replaced by 0.
      if (condition)
        offset =
            emitValue(::spv::OpSelect, i64, {condition, offset, constI64(0)});
      Id value = isAtomic ? emitAtomicLoad(elem, space,
                                           getElementPointer(memref, offset),
                                           scope, semantics)
                          : loadElement(memref, offset);
      if (condition)
        value = selectValue(elem, 1, condition, value,
                            builder.getConstantNull(valueType));
      results.push_back(value);
      continue;
    }

    Id merge = 0, guardBlock = currentBlock;
    if (condition) {
      Id body = newId();
      merge = newId();
      code->emit(::spv::OpSelectionMerge,
                 {merge, ::spv::SelectionControlMaskNone});
      code->emit(::spv::OpBranchConditional, {condition, body, merge});
      startBlock(body);
    }
    Id result = 0;
    if (kind == InstKind::CooperativeMatrixStore) {
      storeElement(memref, offset, values[k]);
    } else if (kind == InstKind::CooperativeMatrixAtomicStore) {
      emitAtomicStore(elem, space, getElementPointer(memref, offset), values[k],
                      scope, semantics);
    } else {
      InstKind update =
          kind == InstKind::CooperativeMatrixAtomicAdd   ? InstKind::AtomicAdd
          : kind == InstKind::CooperativeMatrixAtomicMax ? InstKind::AtomicMax
                                                         : InstKind::AtomicMin;
      result = emitAtomicUpdate(update, elem, space,
                                getElementPointer(memref, offset), values[k],
                                scope, semantics);
    }
    if (condition) {
      Id bodyEnd = currentBlock;
      branch(merge);
      startBlock(merge);
      // Skipped components report 0 as their old value.
      if (result)
        result = emitValue(
            ::spv::OpPhi, valueType,
            {result, bodyEnd, builder.getConstantNull(valueType), guardBlock});
    }
    if (result)
      results.push_back(result);
  }
  return results;
}
