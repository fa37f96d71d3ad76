//===- EmitCoopMatrix.cpp - Cooperative matrices as per-work-item values --===//
//
// Layout (see FunctionEmitter.h): for subgroup size S a coopmatrix with M
// rows and N columns has B = ceil(M/S) row blocks; work-item `lane` holds
// component k = b + B*j for row b*S + lane and column j. Rows >= M are
// padding: loads give 0 there and stores skip them. All uses share the
// layout, so casting matrix_acc to matrix_a/b moves no data; mul_add fetches
// the B operand's entries from their owner with a subgroup broadcast.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

unsigned FunctionEmitter::getNumBlocks(const ir::CoopMatrixType *type) const {
  return static_cast<unsigned>((type->getRows() + shape.subgroupSize - 1) /
                               shape.subgroupSize);
}

unsigned
FunctionEmitter::getNumComponents(const ir::CoopMatrixType *type) const {
  return getNumBlocks(type) * static_cast<unsigned>(type->getCols());
}

Id FunctionEmitter::getCoopRow(const ir::CoopMatrixType *type, unsigned k) {
  unsigned block = k % getNumBlocks(type);
  return addI64(constI64(int64_t(block) * shape.subgroupSize), getLaneI64());
}

LogicalResult FunctionEmitter::emitCoopInst(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  switch (kind) {
  case InstKind::CooperativeMatrixLoad:
  case InstKind::CooperativeMatrixStore:
  case InstKind::CooperativeMatrixAtomicLoad:
  case InstKind::CooperativeMatrixAtomicStore:
  case InstKind::CooperativeMatrixAtomicAdd:
  case InstKind::CooperativeMatrixAtomicMax:
  case InstKind::CooperativeMatrixAtomicMin:
    return emitCoopLoadStore(inst);
  case InstKind::CooperativeMatrixMulAdd:
    return emitCoopMulAdd(ir::CooperativeMatrixMulAddInst(&inst));
  case InstKind::CooperativeMatrixReduceAdd:
  case InstKind::CooperativeMatrixReduceMax:
  case InstKind::CooperativeMatrixReduceMin:
    return emitCoopReduce(inst);
  case InstKind::CooperativeMatrixApply:
    return emitCoopApply(ir::CooperativeMatrixApplyInst(&inst));
  case InstKind::CooperativeMatrixPrefetch:
    // A hint; OpenCL's prefetch works on global pointers of whole vectors
    // and buys nothing for the per-work-item layout.
    return success();
  case InstKind::CooperativeMatrixConstruct: {
    auto *type = llvm::cast<ir::CoopMatrixType>(inst.getResult(0)->getType());
    setCoop(inst.getResult(0),
            llvm::SmallVector<Id, 16>(getNumComponents(type),
                                      getValue(inst.getOperand(0))));
    return success();
  }
  case InstKind::CooperativeMatrixExtract:
    setValue(inst.getResult(0),
             getCoop(inst.getOperand(0))[inst.getInteger(0)]);
    return success();
  case InstKind::CooperativeMatrixInsert: {
    llvm::ArrayRef<Id> source = getCoop(inst.getOperand(1));
    llvm::SmallVector<Id, 16> ids(source.begin(), source.end());
    ids[inst.getInteger(0)] = getValue(inst.getOperand(0));
    setCoop(inst.getResult(0), std::move(ids));
    return success();
  }
  case InstKind::CooperativeMatrixScale: {
    auto scalar = *ir::getScalarOrComponentKind(inst.getOperand(0)->getType());
    Id factor = getValue(inst.getOperand(0));
    llvm::SmallVector<Id, 16> ids;
    for (Id component : getCoop(inst.getOperand(1)))
      ids.push_back(emitScalarBinary(InstKind::Mul, scalar, factor, component));
    setCoop(inst.getResult(0), std::move(ids));
    return success();
  }
  default:
    return emitArithmeticInst(inst);
  }
}

LogicalResult FunctionEmitter::emitCoopLoadStore(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  bool isLoad = kind == InstKind::CooperativeMatrixLoad ||
                kind == InstKind::CooperativeMatrixAtomicLoad;
  bool isAtomic = kind != InstKind::CooperativeMatrixLoad &&
                  kind != InstKind::CooperativeMatrixStore;
  unsigned memrefIndex = isLoad ? 0 : 1;
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
    if (failed(checkAtomicElement(inst, elem)))
      return failure();
    scope = static_cast<ir::MemoryScope>(inst.getInteger(2));
    semantics = static_cast<ir::MemorySemantics>(inst.getInteger(3));
  }
  const auto *type = llvm::cast<ir::CoopMatrixType>(
      isLoad ? inst.getResult(0)->getType() : inst.getOperand(0)->getType());
  llvm::ArrayRef<Id> values;
  if (!isLoad)
    values = getCoop(inst.getOperand(0));

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
        value =
            emitValue(::spv::OpSelect, valueType,
                      {condition, value, builder.getConstantNull(valueType)});
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
  if (inst.getNumResults())
    setCoop(inst.getResult(0), std::move(results));
  return success();
}

LogicalResult
FunctionEmitter::emitCoopMulAdd(ir::CooperativeMatrixMulAddInst inst) {
  auto *aType = llvm::cast<ir::CoopMatrixType>(inst->getOperand(0)->getType());
  auto *bType = llvm::cast<ir::CoopMatrixType>(inst->getOperand(1)->getType());
  auto *cType = llvm::cast<ir::CoopMatrixType>(inst->getOperand(2)->getType());
  auto *dType = llvm::cast<ir::CoopMatrixType>(inst->getResult(0)->getType());
  llvm::ArrayRef<Id> a = getCoop(inst->getOperand(0));
  llvm::ArrayRef<Id> b = getCoop(inst->getOperand(1));
  llvm::ArrayRef<Id> c = getCoop(inst->getOperand(2));
  ScalarKind ka = aType->getComponentKind(), kb = bType->getComponentKind(),
             kc = cType->getComponentKind(), kd = dType->getComponentKind();
  unsigned blocks = getNumBlocks(cType);
  unsigned bBlocks = getNumBlocks(bType);
  unsigned depth = static_cast<unsigned>(aType->getCols());
  unsigned cols = static_cast<unsigned>(cType->getCols());
  unsigned sgSize = shape.subgroupSize;

  llvm::SmallVector<Id, 16> accumulators(c.begin(), c.end());
  for (unsigned j = 0; j < cols; ++j) {
    for (unsigned p = 0; p < depth; ++p) {
      // B[p, j] lives in lane p mod S, component (p div S) + bBlocks * j.
      Id bValue = b[p / sgSize + bBlocks * j];
      bValue = emitBroadcast(kb, bValue, constI32(p % sgSize));
      bValue = emitCast(kb, kc, bValue);
      for (unsigned block = 0; block < blocks; ++block) {
        Id aValue = emitCast(ka, kc, a[block + blocks * p]);
        Id &acc = accumulators[block + blocks * j];
        acc = emitMulAdd(kc, aValue, bValue, acc);
      }
    }
  }
  for (Id &acc : accumulators)
    acc = emitCast(kc, kd, acc);
  setCoop(inst->getResult(0), std::move(accumulators));
  return success();
}

LogicalResult FunctionEmitter::emitCoopReduce(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  auto *type = llvm::cast<ir::CoopMatrixType>(inst.getOperand(0)->getType());
  auto mode = static_cast<ir::ReduceMode>(inst.getInteger(0));
  ScalarKind scalar = type->getComponentKind();
  InstKind combine =
      kind == InstKind::CooperativeMatrixReduceAdd   ? InstKind::Add
      : kind == InstKind::CooperativeMatrixReduceMax ? InstKind::Max
                                                     : InstKind::Min;
  llvm::ArrayRef<Id> values = getCoop(inst.getOperand(0));
  unsigned blocks = getNumBlocks(type);
  unsigned cols = static_cast<unsigned>(type->getCols());
  llvm::SmallVector<Id, 16> results;

  if (mode == ir::ReduceMode::Row) {
    // Each work-item owns whole rows: reduce its components per block.
    for (unsigned block = 0; block < blocks; ++block) {
      Id acc = values[block];
      for (unsigned j = 1; j < cols; ++j)
        acc =
            emitScalarBinary(combine, scalar, acc, values[block + blocks * j]);
      results.push_back(acc);
    }
    setCoop(inst.getResult(0), std::move(results));
    return success();
  }

  // Column reduction: over the blocks of a work-item, then the subgroup.
  bool hasPadding = type->getRows() % shape.subgroupSize != 0;
  InstKind groupKind = combine == InstKind::Add   ? InstKind::SubgroupReduceAdd
                       : combine == InstKind::Max ? InstKind::SubgroupReduceMax
                                                  : InstKind::SubgroupReduceMin;
  Id identity = hasPadding ? getReductionIdentity(combine, scalar) : 0;
  Id valueType = types.getValueType(scalar);
  for (unsigned j = 0; j < cols; ++j) {
    Id acc = 0;
    for (unsigned block = 0; block < blocks; ++block) {
      unsigned k = block + blocks * j;
      Id value = values[k];
      if (hasPadding && block + 1 == blocks) {
        Id valid = emitValue(::spv::OpSLessThan, types.getBoolType(),
                             {getCoopRow(type, k), constI64(type->getRows())});
        value = emitValue(::spv::OpSelect, valueType, {valid, value, identity});
      }
      acc = acc ? emitScalarBinary(combine, scalar, acc, value) : value;
    }
    results.push_back(emitGroupOperation(groupKind, scalar, acc));
  }
  setCoop(inst.getResult(0), std::move(results));
  return success();
}

LogicalResult
FunctionEmitter::emitCoopApply(ir::CooperativeMatrixApplyInst inst) {
  auto *type = llvm::cast<ir::CoopMatrixType>(inst->getOperand(0)->getType());
  const ir::Region &body = inst->getRegion(0);
  llvm::ArrayRef<Id> values = getCoop(inst->getOperand(0));
  unsigned blocks = getNumBlocks(type);
  llvm::SmallVector<Id, 16> results;
  LogicalResult result = success();
  // The region is instantiated once per component.
  for (unsigned k = 0, e = getNumComponents(type); k < e; ++k) {
    Id row = emitCast(ScalarKind::I64, ScalarKind::I32, getCoopRow(type, k));
    setValue(body.getParameter(0), row);
    setValue(body.getParameter(1), constI32(k / blocks));
    setValue(body.getParameter(2), values[k]);
    if (failed(emitRegion(body)))
      result = failure();
    llvm::SmallVector<Id, 8> yielded = getYieldedIds(body);
    results.push_back(yielded.empty() ? values[k] : yielded.front());
  }
  setCoop(inst->getResult(0), std::move(results));
  return result;
}
