//===- Builder.cpp - Creates IR in code -----------------------------------===//
#include "comprehend/ir/Builder.h"

using namespace comprehend::ir;

void Builder::setInsertionPoint(Instruction *inst) {
  region = inst->getParentRegion();
  point = region->getIterator(inst);
}

void Builder::setInsertionPointAfter(Instruction *inst) {
  region = inst->getParentRegion();
  point = std::next(region->getIterator(inst));
}

Instruction *Builder::insert(std::unique_ptr<Instruction> inst) {
  assert(region && "no insertion point");
  return region->insert(point, std::move(inst));
}

Value *Builder::createBinary(Location loc, InstKind kind, Value *a, Value *b) {
  auto inst = Instruction::create(kind, loc);
  inst->setOperands({a, b}, {1, 1});
  Value *result = inst->addResult(a->getType(), loc);
  insert(std::move(inst));
  return result;
}

Value *Builder::cloneWithOperands(const Instruction &inst,
                                  llvm::ArrayRef<Value *> operands,
                                  const Type *resultType) {
  assert(inst.getNumRegions() == 0 && inst.getNumResults() == 1 &&
         "only single-result instructions without regions");
  auto copy = Instruction::create(inst.getKind(), inst.getLoc());
  copy->setOperands(operands, inst.getOperandSegmentSizes());
  for (unsigned i = 0, e = inst.getNumProperties(); i < e; ++i)
    copy->setProperty(i, inst.getProperty(i));
  Value *result = copy->addResult(resultType, inst.getResult(0)->getLoc());
  insert(std::move(copy));
  return result;
}

Function &Builder::createFunction(Program &program, llvm::StringRef name,
                                  llvm::ArrayRef<FunctionParam> params,
                                  Location loc) {
  auto function = std::make_unique<Function>(*ctx, name, loc);
  for (const FunctionParam &param : params)
    function->addParameter(param.type, param.name, loc, param.attrs);
  Function &added = program.addFunction(std::move(function));
  setInsertionPointToEnd(added.getBody());
  return added;
}

Value *Builder::createConstant(Location loc, ConstantValue value,
                               const Type *type) {
  return create<ConstantInst>(loc, type, std::move(value)).getResult();
}

Value *Builder::createIndexConstant(Location loc, int64_t value) {
  return createConstant(loc, value, getIndexType());
}
