//===- ConstantFolding.cpp - Fold and propagate constants -----------------===//
//
// Walks each region in order and replaces instructions whose value is known
// at compile time by a `constant`:
//  - scalar arithmetic, comparisons and casts of constants (integers wrap to
//    their width; f32 results are rounded to f32; f16, bf16 and complex
//    values are left alone),
//  - integer identities (x + 0, 0 + x, x - 0, x * 1, 1 * x),
//  - `size` of a static mode, and `subgroup_size` / `num_subgroups` once the
//    work-group-size pass has fixed them,
//  - `if` on a constant condition, whose taken region is inlined.
// New constants replace the folded instruction at its location, so later
// instructions see them: propagation falls out of the single forward walk.
//
//===----------------------------------------------------------------------===//
#include "Passes/Pass.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/InstSemantics.h"

#include <cmath>
#include <optional>

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;
using ir::ScalarKind;

namespace {

/// The constant value of \p value if a `constant` instruction defines it.
std::optional<ir::ConstantValue> getConstant(const ir::Value *value) {
  auto constant =
      llvm::dyn_cast_or_null<ir::ConstantInst>(value->getDefiningInstruction());
  if (!constant)
    return std::nullopt;
  return constant.getValue();
}

std::optional<int64_t> getInteger(const ir::Value *value) {
  std::optional<ir::ConstantValue> constant = getConstant(value);
  if (!constant)
    return std::nullopt;
  if (const auto *integer = std::get_if<int64_t>(&*constant))
    return *integer;
  return std::nullopt;
}

/// Wraps \p value to the width of the integer kind \p kind (sign-extended).
int64_t wrap(int64_t value, ScalarKind kind) {
  return ir::wrapToWidth(value, 8 * ir::getSizeInBytes(kind));
}

bool isFoldableKind(ScalarKind kind) {
  return ir::isInteger(kind) || kind == ScalarKind::F32 ||
         kind == ScalarKind::F64;
}

class ConstantFoldingPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &) override {
    this->function = &function;
    foldRegion(function.getBody());
    return success();
  }

private:
  void foldRegion(ir::Region &region) {
    for (auto it = region.begin(); it != region.end();) {
      ir::Instruction &inst = *it++;
      if (auto ifInst = llvm::dyn_cast<ir::IfInst>(&inst);
          ifInst && foldIf(region, ifInst))
        continue;
      for (ir::Region *nested : inst.getRegions())
        foldRegion(*nested);
      if (inst.getNumResults() != 1)
        continue;
      if (std::optional<ir::ConstantValue> value = fold(inst))
        replaceByConstant(region, inst, *value);
      else if (ir::Value *same = foldIdentity(inst))
        replace(region, inst, same);
    }
  }

  void replaceByConstant(ir::Region &region, ir::Instruction &inst,
                         const ir::ConstantValue &value) {
    ir::Builder builder(function->getContext());
    builder.setInsertionPoint(&inst);
    ir::Value *constant = builder.createConstant(inst.getLoc(), value,
                                                 inst.getResult(0)->getType());
    replace(region, inst, constant);
  }

  static void replace(ir::Region &region, ir::Instruction &inst,
                      ir::Value *value) {
    inst.getResult(0)->replaceAllUsesWith(value);
    region.erase(&inst);
  }

  /// Inlines the taken region of an `if` on a constant condition.
  bool foldIf(ir::Region &region, ir::IfInst inst) {
    std::optional<ir::ConstantValue> condition =
        getConstant(inst.getCondition());
    if (!condition)
      return false;
    bool taken = std::get<bool>(*condition);
    if (!taken && inst->getNumRegions() < 2 && inst->getNumResults() != 0)
      return false;
    ir::Region *chosen =
        taken ? &inst.getThen()
              : (inst->getNumRegions() > 1 ? &inst.getElse() : nullptr);
    auto position = region.getIterator(inst);
    llvm::SmallVector<ir::Value *, 4> yielded;
    if (chosen) {
      while (!chosen->empty()) {
        ir::Instruction &first = chosen->front();
        if (first.getKind() == InstKind::Yield) {
          llvm::append_range(yielded, first.getOperands());
          break;
        }
        region.insert(position, chosen->remove(&first));
      }
    }
    for (auto [result, value] : llvm::zip(inst->getResults(), yielded))
      result->replaceAllUsesWith(value);
    region.erase(inst);
    return true;
  }

  std::optional<ir::ConstantValue> fold(ir::Instruction &inst) {
    InstKind kind = inst.getKind();
    if (kind == InstKind::Size || kind == InstKind::SubgroupSize ||
        kind == InstKind::NumSubgroups)
      return foldQuery(inst);
    const ir::Type *resultType = inst.getResult(0)->getType();
    auto *scalarType = llvm::dyn_cast<ir::ScalarType>(resultType);
    bool isBool = llvm::isa<ir::BoolType>(resultType);
    if ((!scalarType && !isBool) || inst.getNumOperands() == 0 ||
        inst.getNumRegions() != 0)
      return std::nullopt;
    llvm::SmallVector<ir::ConstantValue, 2> operands;
    for (const ir::Value *operand : inst.getOperands()) {
      std::optional<ir::ConstantValue> value = getConstant(operand);
      if (!value)
        return std::nullopt;
      operands.push_back(*value);
    }
    auto *operandType =
        llvm::dyn_cast<ir::ScalarType>(inst.getOperands().front()->getType());
    if (kind == InstKind::Cast)
      return foldCast(operandType, scalarType, operands[0]);
    if (isBool)
      return foldToBool(kind, operandType, operands);
    return foldArithmetic(kind, scalarType, operandType, operands);
  }

  /// Sizes the types or the function's attributes fix.
  std::optional<ir::ConstantValue> foldQuery(ir::Instruction &inst) {
    if (auto size = llvm::dyn_cast<ir::SizeInst>(&inst)) {
      const ir::Type *tensorType = size.getTensor()->getType();
      auto mode = static_cast<unsigned>(size.getMode());
      auto *memref = llvm::dyn_cast<ir::MemRefType>(tensorType);
      if (memref && !memref->isDynamicShape(mode))
        return ir::ConstantValue(memref->getShape(mode));
      auto *group = llvm::dyn_cast<ir::GroupType>(tensorType);
      if (group && !ir::isDynamic(group->getSize()))
        return ir::ConstantValue(group->getSize());
      return std::nullopt;
    }
    std::optional<int64_t> size = function->getSubgroupSize();
    if (inst.getKind() == InstKind::SubgroupSize)
      return size ? std::optional<ir::ConstantValue>(*size) : std::nullopt;
    std::optional<std::array<int64_t, 2>> wgs = function->getWorkGroupSize();
    if (!size || !wgs)
      return std::nullopt;
    int64_t counts[3] = {(*wgs)[0] / *size, (*wgs)[1], 1};
    return ir::ConstantValue(
        counts[static_cast<unsigned>(ir::NumSubgroupsInst(&inst).getMode())]);
  }

  static std::optional<ir::ConstantValue>
  foldCast(const ir::ScalarType *operandType, const ir::ScalarType *resultType,
           const ir::ConstantValue &operand) {
    if (!operandType || !isFoldableKind(operandType->getScalarKind()) ||
        !isFoldableKind(resultType->getScalarKind()))
      return std::nullopt;
    ScalarKind to = resultType->getScalarKind();
    if (const auto *integer = std::get_if<int64_t>(&operand))
      return ir::isInteger(to)
                 ? ir::ConstantValue(wrap(*integer, to))
                 : ir::ConstantValue(roundTo(to, double(*integer)));
    double real = std::get<double>(operand);
    if (!ir::isInteger(to))
      return ir::ConstantValue(roundTo(to, real));
    if (!std::isfinite(real) || std::fabs(real) >= 9.2e18)
      return std::nullopt;
    return ir::ConstantValue(wrap(static_cast<int64_t>(real), to));
  }

  template <class T>
  static std::optional<ir::ConstantValue> toConstant(std::optional<T> result) {
    return result ? std::optional<ir::ConstantValue>(*result) : std::nullopt;
  }

  /// Comparisons of scalars, and operations on bools.
  static std::optional<ir::ConstantValue>
  foldToBool(InstKind kind, const ir::ScalarType *operandType,
             llvm::ArrayRef<ir::ConstantValue> operands) {
    if (operands.size() == 2 && operandType) {
      if (!isFoldableKind(operandType->getScalarKind()))
        return std::nullopt;
      if (ir::isInteger(operandType->getScalarKind()))
        return toConstant(ir::foldCompare(kind, std::get<int64_t>(operands[0]),
                                          std::get<int64_t>(operands[1])));
      return toConstant(ir::foldCompare(kind, std::get<double>(operands[0]),
                                        std::get<double>(operands[1])));
    }
    bool a = std::get<bool>(operands[0]);
    if (operands.size() == 1)
      return toConstant(ir::foldBoolUnary(kind, a));
    return toConstant(ir::foldBoolBinary(kind, a, std::get<bool>(operands[1])));
  }

  /// Arithmetic on scalars of the result's kind.
  static std::optional<ir::ConstantValue>
  foldArithmetic(InstKind kind, const ir::ScalarType *resultType,
                 const ir::ScalarType *operandType,
                 llvm::ArrayRef<ir::ConstantValue> operands) {
    ScalarKind scalar = resultType->getScalarKind();
    if (!isFoldableKind(scalar) || !operandType ||
        operandType->getScalarKind() != scalar)
      return std::nullopt;
    if (ir::isInteger(scalar)) {
      unsigned bits = 8 * ir::getSizeInBytes(scalar);
      int64_t a = std::get<int64_t>(operands[0]);
      if (operands.size() == 1)
        return toConstant(ir::foldIntegerUnary(kind, a, bits));
      return toConstant(
          ir::foldIntegerBinary(kind, a, std::get<int64_t>(operands[1]), bits));
    }
    double a = std::get<double>(operands[0]);
    std::optional<double> result =
        operands.size() == 1
            ? ir::foldRealUnary(kind, a)
            : ir::foldRealBinary(kind, a, std::get<double>(operands[1]));
    if (!result)
      return std::nullopt;
    return ir::ConstantValue(roundTo(scalar, *result));
  }

  static double roundTo(ScalarKind kind, double value) {
    return kind == ScalarKind::F32 ? double(float(value)) : value;
  }

  /// x + 0, 0 + x, x - 0, x * 1, 1 * x on integers: the other operand.
  static ir::Value *foldIdentity(ir::Instruction &inst) {
    InstKind kind = inst.getKind();
    if (kind != InstKind::Add && kind != InstKind::Sub && kind != InstKind::Mul)
      return nullptr;
    auto *type = llvm::dyn_cast<ir::ScalarType>(inst.getResult(0)->getType());
    if (!type || !type->isInteger())
      return nullptr;
    // Binary arithmetic: operands (a, b).
    ir::Value *a = inst.getOperands().front(), *b = inst.getOperands().back();
    int64_t neutral = kind == InstKind::Mul ? 1 : 0;
    if (getInteger(b) == neutral)
      return a;
    if (kind != InstKind::Sub && getInteger(a) == neutral)
      return b;
    return nullptr;
  }

  ir::Function *function = nullptr;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}
