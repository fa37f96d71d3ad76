//===- EmitCoopMatrix.cpp - Cooperative matrices as per-work-item values --===//
//
// Layout (see FunctionEmitter.h): for subgroup size S a coopmatrix with M
// rows and N columns has B = ceil(M/S) row blocks; work-item `lane` holds
// component k = b + B*j for row b*S + lane and column j. Rows >= M are
// padding: loads give 0 there and stores skip them. All uses share the
// layout, so casting matrix_acc to matrix_a/b moves no data; mul_add fetches
// the B operand's entries from their owner with a subgroup broadcast.
//
// The components are packed into parts (CoopLayout.h): on subgroup size 1
// each column is held as OpenCL vectors, so loads and stores become vector
// accesses (EmitCoopMemory.cpp) and mul_add a vector fma per (column chunk,
// depth) with the B element broadcast across the vector. Operations without
// a vector form work on the components and repack.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

#include <array>

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

CoopLayout
FunctionEmitter::getCoopLayout(const ir::CoopMatrixType *type) const {
  return CoopLayout::get(type->getRows(), type->getCols(),
                         type->getComponentKind(), shape.subgroupSize);
}

llvm::SmallVector<Id, 16>
FunctionEmitter::getCoopPartTypes(const ir::CoopMatrixType *type) {
  CoopLayout layout = getCoopLayout(type);
  llvm::SmallVector<Id, 16> result;
  for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part)
    result.push_back(
        getVectorValueType(type->getComponentKind(), layout.getWidth(part)));
  return result;
}

Id FunctionEmitter::getVectorValueType(ScalarKind scalar, unsigned width) {
  Id type = types.getValueType(scalar);
  return width == 1 ? type : builder.getVectorType(type, width);
}

Id FunctionEmitter::selectValue(ScalarKind scalar, unsigned width, Id condition,
                                Id a, Id b) {
  unsigned lanes = width * (ir::isComplex(scalar) ? 2 : 1);
  if (lanes > 1) {
    // Insert + shuffle, as splat does (LLVMSPIRVLib 15 crashes on
    // OpCompositeConstruct of non-constant scalars).
    Id boolVector = builder.getVectorType(types.getBoolType(), lanes);
    Id first = emitValue(::spv::OpCompositeInsert, boolVector,
                         {condition, builder.getConstantNull(boolVector), 0});
    llvm::SmallVector<Word, 36> operands = {first, first};
    operands.append(lanes, 0);
    condition = emitValue(::spv::OpVectorShuffle, boolVector, operands);
  }
  return emitValue(::spv::OpSelect, getVectorValueType(scalar, width),
                   {condition, a, b});
}

Id FunctionEmitter::splat(ScalarKind scalar, Id value, unsigned width) {
  if (width == 1)
    return value;
  // Insert + shuffle: LLVMSPIRVLib 15 crashes on OpCompositeConstruct of
  // non-constant scalars.
  Id type = getVectorValueType(scalar, width);
  Id first = emitValue(::spv::OpCompositeInsert, type,
                       {value, builder.getConstantNull(type), 0});
  llvm::SmallVector<Word, 20> operands = {first, first};
  operands.append(width, 0);
  return emitValue(::spv::OpVectorShuffle, type, operands);
}

Id FunctionEmitter::getCoopComponent(const ir::Value *value, unsigned k) {
  auto *type = llvm::cast<ir::CoopMatrixType>(value->getType());
  CoopLayout layout = getCoopLayout(type);
  auto [part, lane] = layout.locate(k);
  Id id = getCoop(value)[part];
  if (layout.getWidth(part) == 1)
    return id;
  return emitValue(::spv::OpCompositeExtract,
                   types.getValueType(type->getComponentKind()), {id, lane});
}

llvm::SmallVector<Id, 16>
FunctionEmitter::getCoopComponents(const ir::Value *value) {
  auto *type = llvm::cast<ir::CoopMatrixType>(value->getType());
  CoopLayout layout = getCoopLayout(type);
  llvm::ArrayRef<Id> parts = getCoop(value);
  if (layout.isScalar())
    return llvm::SmallVector<Id, 16>(parts.begin(), parts.end());
  Id scalarType = types.getValueType(type->getComponentKind());
  llvm::SmallVector<Id, 16> result;
  for (unsigned k = 0, e = layout.getNumComponents(); k < e; ++k) {
    auto [part, lane] = layout.locate(k);
    result.push_back(layout.getWidth(part) == 1
                         ? parts[part]
                         : emitValue(::spv::OpCompositeExtract, scalarType,
                                     {parts[part], lane}));
  }
  return result;
}

llvm::SmallVector<Id, 16>
FunctionEmitter::packCoop(const ir::CoopMatrixType *type,
                          llvm::ArrayRef<Id> components) {
  CoopLayout layout = getCoopLayout(type);
  if (layout.isScalar())
    return llvm::SmallVector<Id, 16>(components.begin(), components.end());
  llvm::SmallVector<Id, 16> parts;
  unsigned chunks = layout.getPartsPerColumn();
  for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
    unsigned width = layout.getWidth(part);
    unsigned first =
        layout.starts[part % chunks] + layout.blocks * (part / chunks);
    if (width == 1) {
      parts.push_back(components[first]);
      continue;
    }
    Id vectorType = getVectorValueType(type->getComponentKind(), width);
    Id vector = builder.getConstantNull(vectorType);
    for (unsigned lane = 0; lane < width; ++lane)
      vector = emitValue(::spv::OpCompositeInsert, vectorType,
                         {components[first + lane], vector, lane});
    parts.push_back(vector);
  }
  return parts;
}

void FunctionEmitter::setCoopComponents(const ir::Value *value,
                                        llvm::ArrayRef<Id> components) {
  setCoop(value, packCoop(llvm::cast<ir::CoopMatrixType>(value->getType()),
                          components));
}

Id FunctionEmitter::getCoopRow(const ir::CoopMatrixType *type, unsigned k) {
  unsigned block = k % getNumBlocks(type);
  return addI64(constI64(int64_t(block) * shape.subgroupSize), getLaneI64());
}

LogicalResult FunctionEmitter::emitCoopInst(ir::Instruction &inst) {
  // Loads, stores and atomic updates: the ones the table says touch memory.
  if (inst.getDescriptor().hasMemoryEffects())
    return emitCoopLoadStore(inst);
  if (auto reduce = llvm::dyn_cast<ir::CoopReduceView>(&inst))
    return emitCoopReduce(reduce);
  switch (inst.getKind()) {
  case InstKind::CooperativeMatrixMulAdd:
    return emitCoopMulAdd(ir::CooperativeMatrixMulAddInst(&inst));
  case InstKind::CooperativeMatrixConstruct: {
    ir::CooperativeMatrixConstructInst construct(&inst);
    auto *type =
        llvm::cast<ir::CoopMatrixType>(construct.getResult()->getType());
    CoopLayout layout = getCoopLayout(type);
    Id value = getValue(construct.getVal());
    // One splat per distinct width.
    std::array<Id, 17> splats = {}; // By width.
    llvm::SmallVector<Id, 16> parts;
    for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
      unsigned width = layout.getWidth(part);
      Id &id = splats[width];
      if (!id)
        id = splat(type->getComponentKind(), value, width);
      parts.push_back(id);
    }
    setCoop(construct.getResult(), std::move(parts));
    return success();
  }
  case InstKind::CooperativeMatrixExtract: {
    ir::CooperativeMatrixExtractInst extract(&inst);
    setValue(extract.getResult(),
             getCoopComponent(extract.getMat(), extract.getIndex()));
    return success();
  }
  case InstKind::CooperativeMatrixInsert: {
    ir::CooperativeMatrixInsertInst insert(&inst);
    auto *type = llvm::cast<ir::CoopMatrixType>(insert.getMat()->getType());
    CoopLayout layout = getCoopLayout(type);
    llvm::ArrayRef<Id> source = getCoop(insert.getMat());
    llvm::SmallVector<Id, 16> parts(source.begin(), source.end());
    auto [part, lane] = layout.locate(insert.getIndex());
    Id value = getValue(insert.getVal());
    unsigned width = layout.getWidth(part);
    parts[part] =
        width == 1
            ? value
            : emitValue(::spv::OpCompositeInsert,
                        getVectorValueType(type->getComponentKind(), width),
                        {value, parts[part], lane});
    setCoop(insert.getResult(), std::move(parts));
    return success();
  }
  default:
    return emitArithmeticInst(inst);
  }
}

LogicalResult
FunctionEmitter::emitCoopMulAdd(ir::CooperativeMatrixMulAddInst inst) {
  auto *aType = llvm::cast<ir::CoopMatrixType>(inst.getA()->getType());
  auto *bType = llvm::cast<ir::CoopMatrixType>(inst.getB()->getType());
  auto *cType = llvm::cast<ir::CoopMatrixType>(inst.getC()->getType());
  auto *dType = llvm::cast<ir::CoopMatrixType>(inst.getResult()->getType());
  ScalarKind ka = aType->getComponentKind(), kb = bType->getComponentKind(),
             kc = cType->getComponentKind(), kd = dType->getComponentKind();
  unsigned depth = static_cast<unsigned>(aType->getCols());
  unsigned cols = static_cast<unsigned>(cType->getCols());
  unsigned bBlocks = getNumBlocks(bType);
  unsigned sgSize = shape.subgroupSize;
  CoopLayout aLayout = getCoopLayout(aType), cLayout = getCoopLayout(cType);

  // Vector form: D[:, j] += A[:, p] * B[p, j], one fma per column chunk
  // with B[p, j] broadcast. A's columns are chunked like C's when they hold
  // the same kind.
  if (!cLayout.isScalar() && ka == kc && kc == kd &&
      aLayout.widths == cLayout.widths) {
    llvm::ArrayRef<Id> a = getCoop(inst.getA());
    llvm::ArrayRef<Id> c = getCoop(inst.getC());
    unsigned chunks = cLayout.getPartsPerColumn();
    llvm::SmallVector<Id, 16> accumulators(c.begin(), c.end());
    for (unsigned j = 0; j < cols; ++j) {
      for (unsigned p = 0; p < depth; ++p) {
        Id bValue = getCoopComponent(inst.getB(), p + bBlocks * j);
        bValue = emitCast(kb, kc, bValue);
        std::array<Id, 17> splats = {}; // By width.
        for (unsigned chunk = 0; chunk < chunks; ++chunk) {
          unsigned width = cLayout.widths[chunk];
          Id &bSplat = splats[width];
          if (!bSplat)
            bSplat = splat(kc, bValue, width);
          Id &acc = accumulators[chunk + chunks * j];
          acc = emitMulAdd(kc, a[chunk + chunks * p], bSplat, acc, width);
        }
      }
    }
    setCoop(inst.getResult(), std::move(accumulators));
    return success();
  }

  llvm::SmallVector<Id, 16> a = getCoopComponents(inst.getA());
  llvm::SmallVector<Id, 16> b = getCoopComponents(inst.getB());
  llvm::SmallVector<Id, 16> accumulators = getCoopComponents(inst.getC());
  unsigned blocks = getNumBlocks(cType);
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
  setCoopComponents(inst.getResult(), accumulators);
  return success();
}

LogicalResult FunctionEmitter::emitCoopReduce(ir::CoopReduceView inst) {
  auto *type = llvm::cast<ir::CoopMatrixType>(inst.getA()->getType());
  ir::ReduceMode mode = inst.getMode();
  ScalarKind scalar = type->getComponentKind();
  InstKind combine = *inst->getDescriptor().combine;
  unsigned blocks = getNumBlocks(type);
  unsigned cols = static_cast<unsigned>(type->getCols());
  llvm::SmallVector<Id, 16> results;
  CoopLayout layout = getCoopLayout(type);
  auto *resultType =
      llvm::cast<ir::CoopMatrixType>(inst.getResult()->getType());

  if (mode == ir::ReduceMode::Row &&
      getCoopLayout(resultType).widths == layout.widths) {
    // Whole columns per work-item: combine the columns part-wise.
    llvm::ArrayRef<Id> parts = getCoop(inst.getA());
    unsigned chunks = layout.getPartsPerColumn();
    for (unsigned chunk = 0; chunk < chunks; ++chunk) {
      Id acc = parts[chunk];
      for (unsigned j = 1; j < cols; ++j)
        acc = emitScalarBinary(combine, scalar, acc, parts[chunk + chunks * j],
                               layout.widths[chunk]);
      results.push_back(acc);
    }
    setCoop(inst.getResult(), std::move(results));
    return success();
  }

  llvm::SmallVector<Id, 16> values = getCoopComponents(inst.getA());
  if (mode == ir::ReduceMode::Row) {
    // Each work-item owns whole rows: reduce its components per block.
    for (unsigned block = 0; block < blocks; ++block) {
      Id acc = values[block];
      for (unsigned j = 1; j < cols; ++j)
        acc =
            emitScalarBinary(combine, scalar, acc, values[block + blocks * j]);
      results.push_back(acc);
    }
    setCoopComponents(inst.getResult(), results);
    return success();
  }

  // Column reduction: over the blocks of a work-item, then the subgroup.
  bool hasPadding = type->getRows() % shape.subgroupSize != 0;
  Id identity = hasPadding ? getReductionIdentity(combine, scalar) : 0;
  for (unsigned j = 0; j < cols; ++j) {
    Id acc = 0;
    for (unsigned block = 0; block < blocks; ++block) {
      unsigned k = block + blocks * j;
      Id value = values[k];
      if (hasPadding && block + 1 == blocks) {
        Id valid = emitValue(::spv::OpSLessThan, types.getBoolType(),
                             {getCoopRow(type, k), constI64(type->getRows())});
        value = selectValue(scalar, 1, valid, value, identity);
      }
      acc = acc ? emitScalarBinary(combine, scalar, acc, value) : value;
    }
    results.push_back(shape.subgroupSize == 1
                          ? acc
                          : emitGroupCombine(combine,
                                             ::spv::GroupOperationReduce,
                                             scalar, acc));
  }
  setCoopComponents(inst.getResult(), results);
  return success();
}
