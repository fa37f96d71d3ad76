//===- LoweringBuilder.cpp - Small IR-building helpers for lowerings ------===//
#include "Passes/LoweringBuilder.h"

#include <complex>

using namespace comprehend;
using namespace comprehend::backend;

std::optional<ir::ConstantValue>
comprehend::backend::getConstantValue(const ir::Value *value) {
  auto constant =
      llvm::dyn_cast_or_null<ir::ConstantInst>(value->getDefiningInstruction());
  if (!constant)
    return std::nullopt;
  return constant.getValue();
}

std::optional<int64_t>
comprehend::backend::getIntegerConstant(const ir::Value *value) {
  if (std::optional<ir::ConstantValue> constant = getConstantValue(value))
    if (const auto *integer = std::get_if<int64_t>(&*constant))
      return *integer;
  return std::nullopt;
}

bool comprehend::backend::isConstantNumber(const ir::Value *value,
                                           double number) {
  std::optional<ir::ConstantValue> constant = getConstantValue(value);
  if (!constant)
    return false;
  if (const auto *integer = std::get_if<int64_t>(&*constant))
    return static_cast<double>(*integer) == number;
  if (const auto *real = std::get_if<double>(&*constant))
    return *real == number;
  if (const auto *complex = std::get_if<std::complex<double>>(&*constant))
    return *complex == std::complex<double>(number, 0.0);
  return false;
}

ir::Value *LoweringBuilder::zero(const ir::Type *type) {
  ir::ScalarKind kind = *ir::getScalarOrComponentKind(type);
  ir::ConstantValue value = int64_t(0);
  if (ir::isFloating(kind))
    value = 0.0;
  else if (ir::isComplex(kind))
    value = std::complex<double>(0.0, 0.0);
  return createConstant(loc, value, type);
}

ir::Value *LoweringBuilder::size(ir::Value *memref, unsigned mode) {
  auto *type = llvm::cast<ir::MemRefType>(memref->getType());
  if (!type->isDynamicShape(mode))
    return index(type->getShape(mode));
  return create<ir::SizeInst>(loc, memref, mode).getResult();
}

ir::Value *LoweringBuilder::castTo(ir::Value *value, ir::ScalarKind kind) {
  auto *type = llvm::cast<ir::ScalarType>(value->getType());
  if (type->getScalarKind() == kind)
    return value;
  return create<ir::CastInst>(loc, getScalarType(kind), value).getResult();
}

void LoweringBuilder::update(ir::Value *x, ir::Value *memref,
                             llvm::ArrayRef<ir::Value *> indices,
                             ir::Value *alpha, ir::Value *beta, bool atomic) {
  ir::Value *scaled = isConstantNumber(alpha, 1.0) ? x : mul(alpha, x);
  if (atomic) {
    if (isConstantNumber(beta, 0.0))
      create<ir::AtomicStoreInst>(loc, scaled, memref, indices);
    else
      create<ir::AtomicAddInst>(loc, scaled, memref, indices);
    return;
  }
  ir::Value *result = addScaledOld(
      scaled, beta, [&](LoweringBuilder &b) { return b.load(memref, indices); },
      [&](LoweringBuilder &b, ir::Value *old) { return b.mul(beta, old); });
  create<ir::StoreInst>(loc, result, memref, indices);
}

ir::Value *LoweringBuilder::addScaledOld(
    ir::Value *scaled, ir::Value *beta,
    llvm::function_ref<ir::Value *(LoweringBuilder &)> loadOld,
    llvm::function_ref<ir::Value *(LoweringBuilder &, ir::Value *)> scaleOld) {
  if (isConstantNumber(beta, 0.0))
    return scaled;
  if (isConstantNumber(beta, 1.0))
    return add(scaled, loadOld(*this));
  if (getConstantValue(beta))
    return add(scaled, scaleOld(*this, loadOld(*this)));

  ir::Value *isZero =
      create<ir::EqualInst>(loc, beta, zero(beta->getType())).getResult();
  auto branch = create<ir::IfInst>(
      loc, llvm::ArrayRef<const ir::Type *>{scaled->getType()}, isZero);
  LoweringBuilder thenBuilder(getContext(), loc);
  thenBuilder.setInsertionPointToEnd(branch.getThen());
  thenBuilder.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{scaled});
  LoweringBuilder elseBuilder(getContext(), loc);
  elseBuilder.setInsertionPointToEnd(branch.getElse());
  ir::Value *sum =
      elseBuilder.add(scaled, scaleOld(elseBuilder, loadOld(elseBuilder)));
  elseBuilder.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{sum});
  return branch.getResults().front();
}

static void
collectMatching(ir::Region &region,
                llvm::function_ref<bool(const ir::Instruction &)> matches,
                llvm::SmallVectorImpl<ir::Instruction *> &worklist) {
  for (ir::Instruction &inst : region) {
    if (matches(inst)) {
      worklist.push_back(&inst);
      continue;
    }
    for (ir::Region *nested : inst.getRegions())
      collectMatching(*nested, matches, worklist);
  }
}

void comprehend::backend::replaceMatching(
    ir::Function &function,
    llvm::function_ref<bool(const ir::Instruction &)> matches,
    llvm::function_ref<void(ir::Instruction &, LoweringBuilder &)> lower) {
  // Collect first: lowering inserts instructions next to the ones visited.
  llvm::SmallVector<ir::Instruction *, 8> worklist;
  collectMatching(function.getBody(), matches, worklist);
  for (ir::Instruction *inst : worklist) {
    LoweringBuilder builder(function.getContext(), inst->getLoc());
    builder.setInsertionPoint(inst);
    lower(*inst, builder);
    inst->getParentRegion()->erase(inst);
  }
}
