//===- Preprocessor.cpp - Compile-time variables and !calc ----------------===//
#include "Preprocessor.h"

#include "Token.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace comprehend::ir;

llvm::StringRef Definition::getDescription() const {
  if (const ConstantLiteral *constant = getConstant()) {
    switch (constant->index()) {
    case 0:
      return "a boolean constant";
    case 1:
      return "an integer constant";
    case 2:
      return "a floating constant";
    default:
      return "a complex constant";
    }
  }
  if (getKind() == Kind::Type)
    return "a type";
  return "an attribute";
}

const Definition *DefinitionTable::lookup(llvm::StringRef name) const {
  for (const llvm::StringMap<Definition> &scope : llvm::reverse(scopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

const Definition *DefinitionTable::define(llvm::StringRef name,
                                          Definition definition) {
  if (const Definition *existing = lookup(name))
    return existing;
  scopes.back().try_emplace(name, std::move(definition));
  return nullptr;
}

std::optional<CalcOperator>
comprehend::ir::lookupCalcOperator(llvm::StringRef spelling) {
  return llvm::StringSwitch<std::optional<CalcOperator>>(spelling)
      .Case("^", CalcOperator::Power)
      .Case("-", CalcOperator::Sub)
      .Case("+", CalcOperator::Add)
      .Case("*", CalcOperator::Mul)
      .Case("/", CalcOperator::Div)
      .Case("%", CalcOperator::Rem)
      .Case("min", CalcOperator::Min)
      .Case("max", CalcOperator::Max)
      .Default(std::nullopt);
}

static llvm::Error calcError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::Expected<int64_t> power(int64_t base, int64_t exponent) {
  if (exponent < 0)
    return calcError("negative exponent " + llvm::Twine(exponent) + " in '^'");
  int64_t result = 1;
  // Square-and-multiply; every step is overflow checked.
  while (exponent > 0) {
    if (exponent & 1) {
      if (llvm::MulOverflow(result, base, result))
        return calcError("result of '!calc' is out of the integer range");
    }
    exponent >>= 1;
    if (exponent > 0 && llvm::MulOverflow(base, base, base))
      return calcError("result of '!calc' is out of the integer range");
  }
  return result;
}

llvm::Expected<int64_t>
comprehend::ir::applyCalcOperator(CalcOperator op, int64_t lhs, int64_t rhs) {
  int64_t result = 0;
  bool overflow = false;
  switch (op) {
  case CalcOperator::Power: {
    llvm::Expected<int64_t> value = power(lhs, rhs);
    if (!value)
      return value.takeError();
    result = *value;
    break;
  }
  case CalcOperator::Sub:
    overflow = llvm::SubOverflow(lhs, rhs, result);
    break;
  case CalcOperator::Add:
    overflow = llvm::AddOverflow(lhs, rhs, result);
    break;
  case CalcOperator::Mul:
    overflow = llvm::MulOverflow(lhs, rhs, result);
    break;
  case CalcOperator::Div:
  case CalcOperator::Rem:
    if (rhs == 0)
      return calcError(op == CalcOperator::Div ? "division by zero"
                                               : "remainder by zero");
    // Operands are never INT64_MIN, so lhs / -1 cannot overflow.
    result = op == CalcOperator::Div ? lhs / rhs : lhs % rhs;
    break;
  case CalcOperator::Min:
    result = std::min(lhs, rhs);
    break;
  case CalcOperator::Max:
    result = std::max(lhs, rhs);
    break;
  }
  if (overflow || result < kMinIntegerConstant)
    return calcError("result of '!calc' is out of the integer range");
  return result;
}
