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
