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

#include <cmath>
#include <optional>

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;
using ir::ScalarKind;

namespace {

/// The constant value of \p value if a `constant` instruction defines it.
std::optional<ir::ConstantValue> getConstant(const ir::Value *value) {
  const ir::Instruction *def = value->getDefiningInstruction();
  if (!def || def->getKind() != InstKind::Constant)
    return std::nullopt;
  return def->getConstant(0);
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
  unsigned bits = 8 * ir::getSizeInBytes(kind);
  if (bits >= 64)
    return value;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t truncated = static_cast<uint64_t>(value) & mask;
  uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((truncated ^ sign) - sign);
}

std::optional<int64_t> foldInteger(InstKind kind, ScalarKind scalar, int64_t a,
                                   int64_t b) {
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  unsigned bits = 8 * ir::getSizeInBytes(scalar);
  switch (kind) {
  case InstKind::Add:
    return wrap(static_cast<int64_t>(ua + ub), scalar);
  case InstKind::Sub:
    return wrap(static_cast<int64_t>(ua - ub), scalar);
  case InstKind::Mul:
    return wrap(static_cast<int64_t>(ua * ub), scalar);
  case InstKind::Div:
  case InstKind::Rem:
    if (b == 0 || (b == -1 && a == wrap(int64_t(1) << (bits - 1), scalar)))
      return std::nullopt; // undefined at run time: leave it there
    return kind == InstKind::Div ? a / b : a % b;
  case InstKind::Max:
    return std::max(a, b);
  case InstKind::Min:
    return std::min(a, b);
  case InstKind::Shl:
    if (b < 0 || b >= bits)
      return std::nullopt;
    return wrap(static_cast<int64_t>(ua << b), scalar);
  case InstKind::Shr:
    if (b < 0 || b >= bits)
      return std::nullopt;
    return a >> b;
  case InstKind::And:
    return a & b;
  case InstKind::Or:
    return a | b;
  case InstKind::Xor:
    return a ^ b;
  default:
    return std::nullopt;
  }
}

std::optional<double> foldFloat(InstKind kind, double a, double b) {
  switch (kind) {
  case InstKind::Add:
    return a + b;
  case InstKind::Sub:
    return a - b;
  case InstKind::Mul:
    return a * b;
  case InstKind::Div:
    return a / b;
  case InstKind::Max:
    return std::fmax(a, b);
  case InstKind::Min:
    return std::fmin(a, b);
  default:
    return std::nullopt;
  }
}

template <typename T> std::optional<bool> compare(InstKind kind, T a, T b) {
  switch (kind) {
  case InstKind::Equal:
    return a == b;
  case InstKind::NotEqual:
    return a != b;
  case InstKind::GreaterThan:
    return a > b;
  case InstKind::GreaterThanEqual:
    return a >= b;
  case InstKind::LessThan:
    return a < b;
  case InstKind::LessThanEqual:
    return a <= b;
  default:
    return std::nullopt;
  }
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
      if (inst.getKind() == InstKind::If && foldIf(region, inst))
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
  bool foldIf(ir::Region &region, ir::Instruction &inst) {
    std::optional<ir::ConstantValue> condition =
        getConstant(inst.getOperand(0));
    if (!condition)
      return false;
    bool taken = std::get<bool>(*condition);
    if (!taken && inst.getNumRegions() < 2 && inst.getNumResults() != 0)
      return false;
    ir::Region *chosen =
        taken ? &inst.getRegion(0)
              : (inst.getNumRegions() > 1 ? &inst.getRegion(1) : nullptr);
    auto position = region.getIterator(&inst);
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
    for (auto [result, value] : llvm::zip(inst.getResults(), yielded))
      result->replaceAllUsesWith(value);
    region.erase(&inst);
    return true;
  }

  std::optional<ir::ConstantValue> fold(ir::Instruction &inst) {
    InstKind kind = inst.getKind();
    const ir::Type *resultType = inst.getResult(0)->getType();
    switch (kind) {
    case InstKind::Size: {
      auto *memref =
          llvm::dyn_cast<ir::MemRefType>(inst.getOperand(0)->getType());
      int64_t mode = inst.getInteger(0);
      if (memref && !memref->isDynamicShape(static_cast<unsigned>(mode)))
        return ir::ConstantValue(memref->getShape(static_cast<unsigned>(mode)));
      auto *group =
          llvm::dyn_cast<ir::GroupType>(inst.getOperand(0)->getType());
      if (group && !ir::isDynamic(group->getSize()))
        return ir::ConstantValue(group->getSize());
      return std::nullopt;
    }
    case InstKind::SubgroupSize:
      if (std::optional<int64_t> size = function->getSubgroupSize())
        return ir::ConstantValue(*size);
      return std::nullopt;
    case InstKind::NumSubgroups: {
      std::optional<int64_t> size = function->getSubgroupSize();
      std::optional<std::array<int64_t, 2>> wgs = function->getWorkGroupSize();
      if (!size || !wgs)
        return std::nullopt;
      int64_t counts[3] = {(*wgs)[0] / *size, (*wgs)[1], 1};
      return ir::ConstantValue(counts[inst.getInteger(0)]);
    }
    default:
      break;
    }
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
        llvm::dyn_cast<ir::ScalarType>(inst.getOperand(0)->getType());

    if (kind == InstKind::Cast) {
      if (!operandType || !isFoldableKind(operandType->getScalarKind()) ||
          !isFoldableKind(scalarType->getScalarKind()))
        return std::nullopt;
      ScalarKind to = scalarType->getScalarKind();
      if (const auto *integer = std::get_if<int64_t>(&operands[0]))
        return ir::isInteger(to)
                   ? ir::ConstantValue(wrap(*integer, to))
                   : ir::ConstantValue(roundTo(to, double(*integer)));
      double real = std::get<double>(operands[0]);
      if (!ir::isInteger(to))
        return ir::ConstantValue(roundTo(to, real));
      if (!std::isfinite(real) || std::fabs(real) >= 9.2e18)
        return std::nullopt;
      return ir::ConstantValue(wrap(static_cast<int64_t>(real), to));
    }

    if (isBool && operands.size() == 2 && operandType) {
      if (!isFoldableKind(operandType->getScalarKind()))
        return std::nullopt;
      std::optional<bool> result;
      if (ir::isInteger(operandType->getScalarKind()))
        result = compare(kind, std::get<int64_t>(operands[0]),
                         std::get<int64_t>(operands[1]));
      else
        result = compare(kind, std::get<double>(operands[0]),
                         std::get<double>(operands[1]));
      return result ? std::optional<ir::ConstantValue>(*result) : std::nullopt;
    }
    if (isBool) {
      bool a = std::get<bool>(operands[0]);
      if (kind == InstKind::Not)
        return ir::ConstantValue(!a);
      bool b = std::get<bool>(operands[1]);
      switch (kind) {
      case InstKind::And:
        return ir::ConstantValue(a && b);
      case InstKind::Or:
        return ir::ConstantValue(a || b);
      case InstKind::Xor:
        return ir::ConstantValue(a != b);
      default:
        return std::nullopt;
      }
    }

    ScalarKind scalar = scalarType->getScalarKind();
    if (!isFoldableKind(scalar) || !operandType ||
        operandType->getScalarKind() != scalar)
      return std::nullopt;
    if (ir::isInteger(scalar)) {
      int64_t a = std::get<int64_t>(operands[0]);
      if (operands.size() == 1) {
        if (kind == InstKind::Neg)
          return ir::ConstantValue(
              wrap(static_cast<int64_t>(0 - uint64_t(a)), scalar));
        if (kind == InstKind::Not)
          return ir::ConstantValue(wrap(~a, scalar));
        if (kind == InstKind::Abs)
          return ir::ConstantValue(
              wrap(a < 0 ? static_cast<int64_t>(0 - uint64_t(a)) : a, scalar));
        return std::nullopt;
      }
      std::optional<int64_t> result =
          foldInteger(kind, scalar, a, std::get<int64_t>(operands[1]));
      return result ? std::optional<ir::ConstantValue>(*result) : std::nullopt;
    }
    double a = std::get<double>(operands[0]);
    if (operands.size() == 1) {
      if (kind == InstKind::Neg)
        return ir::ConstantValue(-a);
      if (kind == InstKind::Abs)
        return ir::ConstantValue(std::fabs(a));
      return std::nullopt;
    }
    std::optional<double> result =
        foldFloat(kind, a, std::get<double>(operands[1]));
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
    int64_t neutral = kind == InstKind::Mul ? 1 : 0;
    if (getInteger(inst.getOperand(1)) == neutral)
      return inst.getOperand(0);
    if (kind != InstKind::Sub && getInteger(inst.getOperand(0)) == neutral)
      return inst.getOperand(1);
    return nullptr;
  }

  ir::Function *function = nullptr;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}
