//===- EmitParts.cpp - The parts of cooperative matrices ------------------===//
//
// lower-coopmatrix splits cooperative matrices into per-work-item parts:
// numbers and `vector<kind x width>` values, OpenCL vectors here. Arithmetic,
// casts and constants on vectors are in EmitArithmetic.cpp; this file maps
// the instructions made for parts: fma, select, vector_splat,
// vector_extract, vector_insert, vector_load and vector_store.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::ScalarKind;

Id FunctionEmitter::getVectorValueType(ScalarKind scalar, unsigned width) {
  Id type = types.getValueType(scalar);
  return width == 1 ? type : builder.getVectorType(type, width);
}

Id FunctionEmitter::getPartType(const ir::Type *type) {
  if (auto *vector = llvm::dyn_cast<ir::VectorType>(type))
    return getVectorValueType(vector->getElementKind(), vector->getWidth());
  if (auto *scalar = llvm::dyn_cast<ir::ScalarType>(type))
    return types.getValueType(scalar->getScalarKind());
  return types.getBoolType();
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

LogicalResult FunctionEmitter::emitPartInst(ir::Instruction &inst) {
  const ir::Type *type = inst.getResult(0)->getType();
  auto *vector = llvm::dyn_cast<ir::VectorType>(type);
  unsigned width = vector ? vector->getWidth() : 1;
  ScalarKind kind = *ir::getScalarOrComponentKind(type);
  if (auto fma = llvm::dyn_cast<ir::FmaInst>(&inst)) {
    setValue(fma.getResult(),
             emitMulAdd(kind, getValue(fma.getA()), getValue(fma.getB()),
                        getValue(fma.getC()), width));
  } else if (auto select = llvm::dyn_cast<ir::SelectInst>(&inst)) {
    setValue(select.getResult(),
             selectValue(kind, width, getValue(select.getCondition()),
                         getValue(select.getA()), getValue(select.getB())));
  } else if (auto splatInst = llvm::dyn_cast<ir::VectorSplatInst>(&inst)) {
    auto *type = llvm::cast<ir::VectorType>(splatInst.getResult()->getType());
    setValue(splatInst.getResult(),
             splat(type->getElementKind(), getValue(splatInst.getVal()),
                   type->getWidth()));
  } else if (auto extract = llvm::dyn_cast<ir::VectorExtractInst>(&inst)) {
    setValue(extract.getResult(),
             emitValue(::spv::OpCompositeExtract,
                       getPartType(extract.getResult()->getType()),
                       {getValue(extract.getVec()),
                        static_cast<Word>(extract.getIndex())}));
  } else {
    auto insert = llvm::cast<ir::VectorInsertInst>(&inst);
    setValue(insert.getResult(),
             emitValue(::spv::OpCompositeInsert,
                       getPartType(insert.getResult()->getType()),
                       {getValue(insert.getVal()), getValue(insert.getVec()),
                        static_cast<Word>(insert.getIndex())}));
  }
  return success();
}

Id FunctionEmitter::getVectorPointer(const MemRefDesc &memref, Id offset,
                                     unsigned width) {
  Id vectorType = getVectorValueType(memref.type->getElementKind(), width);
  Id pointerType = builder.getPointerType(
      TypeMapper::getStorageClass(memref.type->getAddressSpace()), vectorType);
  return emitValue(::spv::OpBitcast, pointerType,
                   {getElementPointer(memref, offset)});
}

// Only element alignment is known (a tile may start anywhere).
Id FunctionEmitter::emitVectorLoad(const MemRefDesc &memref, Id offset,
                                   unsigned width) {
  ScalarKind kind = memref.type->getElementKind();
  return emitValue(::spv::OpLoad, getVectorValueType(kind, width),
                   {getVectorPointer(memref, offset, width),
                    ::spv::MemoryAccessAlignedMask,
                    static_cast<Word>(ir::getSizeInBytes(kind))});
}

void FunctionEmitter::emitVectorStore(const MemRefDesc &memref, Id offset,
                                      Id value, unsigned width,
                                      const ir::DictionaryAttr *attrs) {
  ScalarKind kind = memref.type->getElementKind();
  Word access = ::spv::MemoryAccessAlignedMask;
  Word alignment = ir::getSizeInBytes(kind);
  if (attrs) {
    if (const auto *align =
            llvm::dyn_cast_or_null<ir::IntegerAttr>(attrs->get("align")))
      alignment = std::max<Word>(alignment, align->getValue());
    if (const auto *streaming =
            llvm::dyn_cast_or_null<ir::BoolAttr>(attrs->get("nontemporal")))
      if (streaming->getValue())
        access |= ::spv::MemoryAccessNontemporalMask;
  }
  emitOp(::spv::OpStore,
         {getVectorPointer(memref, offset, width), value, access, alignment});
}

LogicalResult FunctionEmitter::emitVectorAccess(ir::Instruction &inst) {
  if (auto load = llvm::dyn_cast<ir::VectorLoadInst>(&inst)) {
    const MemRefDesc &memref = getMemRef(load.getTensor());
    Id offset = linearOffset(memref, flatten(load.getIndices()));
    auto *type = llvm::cast<ir::VectorType>(load.getResult()->getType());
    setValue(load.getResult(),
             emitVectorLoad(memref, offset, type->getWidth()));
    return success();
  }
  auto store = llvm::cast<ir::VectorStoreInst>(&inst);
  const MemRefDesc &memref = getMemRef(store.getTensor());
  Id offset = linearOffset(memref, flatten(store.getIndices()));
  auto *type = llvm::cast<ir::VectorType>(store.getVal()->getType());
  emitVectorStore(memref, offset, getValue(store.getVal()), type->getWidth(),
                  store.getAttributes());
  return success();
}
