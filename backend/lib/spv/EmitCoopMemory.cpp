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
using ir::ScalarKind;

namespace {
/// A cooperative-matrix memory access, read by the table's names: each has
/// the memref `operand`, the coordinates `x` and `y`, `transpose` and
/// `checked`; stores and atomic updates the matrix `val`; atomics `scope`
/// and `semantics`.
struct CoopAccess {
  ir::Value *memref = nullptr, *x = nullptr, *y = nullptr;
  /// The matrix stored or combined; null for loads.
  ir::Value *matrix = nullptr;
  /// The matrix type loaded or stored.
  const ir::CoopMatrixType *type = nullptr;
  bool isLoad = false, isAtomic = false;
  ir::Transpose transpose = ir::Transpose::N;
  ir::CheckedFlag checked = ir::CheckedFlag::None;
  ir::MemoryScope scope = ir::MemoryScope::WorkGroup;
  ir::MemorySemantics semantics = ir::MemorySemantics::Relaxed;
};

CoopAccess readCoopAccess(const ir::Instruction &inst) {
  const ir::InstDescriptor &desc = inst.getDescriptor();
  auto operand = [&](llvm::StringRef name) -> ir::Value * {
    std::optional<unsigned> group = desc.findOperand(name);
    return group ? inst.getOperandGroup(*group).front() : nullptr;
  };
  CoopAccess access;
  access.memref = operand("operand");
  access.x = operand("x");
  access.y = operand("y");
  access.matrix = operand("val");
  access.isLoad = !access.matrix;
  access.type = llvm::cast<ir::CoopMatrixType>(
      access.isLoad ? inst.getResult(0)->getType() : access.matrix->getType());
  auto property = [&](llvm::StringRef name) -> std::optional<int64_t> {
    if (std::optional<unsigned> index = desc.findProperty(name))
      return inst.getInteger(*index);
    return std::nullopt;
  };
  access.transpose = static_cast<ir::Transpose>(*property("transpose"));
  access.checked = static_cast<ir::CheckedFlag>(*property("checked"));
  if (std::optional<int64_t> scope = property("scope")) {
    access.isAtomic = true;
    access.scope = static_cast<ir::MemoryScope>(*scope);
    access.semantics = static_cast<ir::MemorySemantics>(*property("semantics"));
  }
  return access;
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
  CoopAccess access = readCoopAccess(inst);
  if (access.isAtomic)
    return false;
  const MemRefDesc &memref = getMemRef(access.memref);
  const ir::CoopMatrixType *type = access.type;
  ir::Transpose transpose = access.transpose;
  ScalarKind elem = memref.type->getElementKind();
  auto unitStride = i64Constants.find(memref.stride[0]);
  return !getCoopLayout(type).isScalar() && transpose == ir::Transpose::N &&
         elem == type->getComponentKind() &&
         !TypeMapper::isConvertedOnAccess(elem) &&
         unitStride != i64Constants.end() && unitStride->second == 1;
}

llvm::SmallVector<Id, 16>
FunctionEmitter::emitCoopVectorAccess(ir::Instruction &inst, bool checkCols) {
  CoopAccess access = readCoopAccess(inst);
  bool isLoad = access.isLoad;
  const MemRefDesc &memref = getMemRef(access.memref);
  CoopLayout layout = getCoopLayout(access.type);
  ScalarKind elem = memref.type->getElementKind();
  Id x = getValue(access.x);
  Id y = getValue(access.y);
  Id boolType = types.getBoolType();
  unsigned chunks = layout.getPartsPerColumn();
  llvm::ArrayRef<Id> values;
  if (!isLoad)
    values = getCoop(access.matrix);
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
  CoopAccess access = readCoopAccess(inst);
  bool isLoad = access.isLoad;
  const MemRefDesc &memref = getMemRef(access.memref);
  if (access.isAtomic &&
      failed(checkAtomicElement(inst, memref.type->getElementKind())))
    return failure();
  const ir::CoopMatrixType *type = access.type;
  ir::CheckedFlag checked = access.checked;
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
  Id x = getValue(access.x);
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
  CoopAccess access = readCoopAccess(inst);
  bool isLoad = access.isLoad, isAtomic = access.isAtomic;
  const ir::CoopMatrixType *type = access.type;
  ir::Transpose transpose = access.transpose;
  ir::CheckedFlag checked = access.checked;
  ir::MemoryScope scope = access.scope;
  ir::MemorySemantics semantics = access.semantics;
  const MemRefDesc &memref = getMemRef(access.memref);
  Id x = getValue(access.x);
  Id y = getValue(access.y);
  ScalarKind elem = memref.type->getElementKind();
  ir::AddressSpace space = memref.type->getAddressSpace();
  llvm::SmallVector<Id, 16> values;
  if (!isLoad)
    values = getCoopComponents(access.matrix);

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
    if (!isAtomic) {
      storeElement(memref, offset, values[k]);
    } else if (inst.getNumResults() == 0) {
      emitAtomicStore(elem, space, getElementPointer(memref, offset), values[k],
                      scope, semantics);
    } else {
      result = emitAtomicUpdate(*inst.getDescriptor().combine, elem, space,
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
