//===- VerifyControl.cpp - Rules of control flow, constants and casts -----===//
#include "VerifyHelpers.h"

#include "comprehend/ir/Region.h"

#include <cmath>
#include <limits>

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

void detail::verifyCast(const Instruction &inst, VerifyContext &vc) {
  const Type *from = viewOf<CastInst>(inst).getA()->getType();
  const Type *to = inst.getResult(0)->getType();
  const auto *fromCoop = llvm::dyn_cast<CoopMatrixType>(from);
  const auto *toCoop = llvm::dyn_cast<CoopMatrixType>(to);
  if (!fromCoop != !toCoop) {
    vc.emitOperandError(inst, 0)
        << "'cast' cannot convert " << from << " to " << to
        << ": both or neither must be coopmatrices";
    return;
  }
  if (fromCoop) {
    if (fromCoop->getRows() != toCoop->getRows() ||
        fromCoop->getCols() != toCoop->getCols()) {
      vc.emitOperandError(inst, 0) << "'cast' cannot convert " << from << " to "
                                   << to << ": shapes differ";
      return;
    }
    if (fromCoop->getUse() != toCoop->getUse() &&
        fromCoop->getUse() != MatrixUse::Acc) {
      vc.emitOperandError(inst, 0)
          << "'cast' cannot convert " << from << " to " << to
          << ": the use must match, or be matrix_acc to matrix_a/matrix_b";
      return;
    }
  }
  const auto *fromVector = llvm::dyn_cast<VectorType>(from);
  const auto *toVector = llvm::dyn_cast<VectorType>(to);
  if (!fromVector != !toVector ||
      (fromVector && fromVector->getWidth() != toVector->getWidth())) {
    vc.emitOperandError(inst, 0)
        << "'cast' cannot convert " << from << " to " << to
        << ": both or neither must be vectors, of one width";
    return;
  }
  ScalarKind fromKind = *getScalarOrComponentKind(from);
  ScalarKind toKind = *getScalarOrComponentKind(to);
  if (!isCastAllowed(fromKind, toKind))
    vc.emitOperandError(inst, 0)
        << "'cast' from complex type " << stringify(fromKind)
        << " to non-complex type " << stringify(toKind) << " is forbidden";
}

/// The largest finite value of a floating kind.
static double maxFinite(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::BF16:
    return 3.3895313892515355e38;
  case ScalarKind::F16:
    return 65504.0;
  case ScalarKind::F32:
  case ScalarKind::C32:
    return std::numeric_limits<float>::max();
  default:
    return std::numeric_limits<double>::max();
  }
}

static bool fitsFloat(double value, ScalarKind kind) {
  return !std::isfinite(value) || std::fabs(value) <= maxFinite(kind);
}

void detail::verifyConstant(const Instruction &inst, VerifyContext &vc) {
  auto constant = viewOf<ConstantInst>(inst);
  const Type *type = constant.getResult()->getType();
  const ConstantValue &value = constant.getValue();
  auto fail = [&](llvm::StringRef expected) {
    vc.emitError(inst.getLoc())
        << "'constant' of type " << type << " needs " << expected;
  };
  if (llvm::isa<BoolType>(type)) {
    if (!std::holds_alternative<bool>(value))
      fail("a boolean constant");
    return;
  }
  ScalarKind kind = *getScalarOrComponentKind(type);
  if (isInteger(kind)) {
    const auto *integer = std::get_if<int64_t>(&value);
    if (!integer) {
      fail("an integer constant");
      return;
    }
    unsigned bits = getSizeInBytes(kind) * 8;
    if (bits < 64) {
      int64_t max = (int64_t(1) << (bits - 1)) - 1;
      if (*integer < -max - 1 || *integer > max)
        vc.emitError(inst.getLoc())
            << "integer constant " << *integer << " is out of range for "
            << stringify(kind) << " [" << -max - 1 << ", " << max << "]";
    }
    return;
  }
  if (isFloating(kind)) {
    const auto *real = std::get_if<double>(&value);
    if (!real) {
      fail("a floating constant");
      return;
    }
    if (!fitsFloat(*real, kind))
      vc.emitError(inst.getLoc()) << "floating constant " << *real
                                  << " is out of range for " << stringify(kind);
    return;
  }
  const auto *complex = std::get_if<std::complex<double>>(&value);
  if (!complex) {
    fail("a complex constant [re, im]");
    return;
  }
  if (!fitsFloat(complex->real(), kind) || !fitsFloat(complex->imag(), kind))
    vc.emitError(inst.getLoc())
        << "complex constant is out of range for " << stringify(kind);
}

/// Checks that \p region's parameters have \p types.
static void checkParams(const Instruction &inst, VerifyContext &vc,
                        const Region &region,
                        llvm::ArrayRef<const Type *> types) {
  if (region.getNumParameters() != types.size()) {
    vc.emitError(inst.getLoc())
        << "region of '" << inst.getName() << "' must have " << types.size()
        << " parameters, but has " << region.getNumParameters();
    return;
  }
  for (unsigned i = 0; i < types.size(); ++i)
    if (region.getParameter(i)->getType() != types[i])
      vc.emitError(region.getParameter(i)->getLoc())
          << "parameter "
          << quoteValueName(region.getParameter(i), std::to_string(i))
          << " of '" << inst.getName() << "' must have type " << types[i]
          << ", but has type " << region.getParameter(i)->getType();
}

/// Checks that \p region ends with a yield (the yield checks its values).
static void checkEndsWithYield(const Instruction &inst, VerifyContext &vc,
                               const Region &region, llvm::StringRef which) {
  // A yield that is not last is reported by the yield itself.
  for (const Instruction &child : region)
    if (child.getKind() == InstKind::Yield)
      return;
  Location loc = region.empty() ? inst.getLoc() : region.back().getLoc();
  vc.emitError(loc) << which << " of '" << inst.getName()
                    << "' must end with 'yield'";
}

void detail::verifyFor(const Instruction &inst, VerifyContext &vc) {
  auto loop = viewOf<ForInst>(inst);
  llvm::SmallVector<const Type *, 4> types{loop.getFrom()->getType()};
  for (Value *init : loop.getInit())
    types.push_back(init->getType());
  checkParams(inst, vc, loop.getBody(), types);
  if (!loop.getInit().empty())
    checkEndsWithYield(inst, vc, loop.getBody(), "body");
  const DictionaryAttr *attrs = loop.getAttributes();
  if (!attrs)
    return;
  if (const Attribute *unroll = attrs->get("unroll"))
    if (!llvm::isa<BoolAttr, IntegerAttr>(unroll))
      vc.emitError(inst.getLoc())
          << "'unroll' of 'for' must be a boolean or an integer, but is "
          << *unroll;
  // `simd` promises that iterations may share vector lanes
  // (vectorize-loops); anything but a boolean is a mistake, not a no.
  if (const Attribute *simd = attrs->get("simd"))
    if (!llvm::isa<BoolAttr>(simd))
      vc.emitError(inst.getLoc())
          << "'simd' of 'for' must be a boolean, but is " << *simd;
}

void detail::verifyIf(const Instruction &inst, VerifyContext &vc) {
  auto branch = viewOf<IfInst>(inst);
  if (branch.getResults().empty())
    return;
  checkEndsWithYield(inst, vc, branch.getThen(), "then-region");
  if (branch.getElse().empty()) {
    vc.emitError(inst.getLoc())
        << "'if' returning values must have an else-region";
    return;
  }
  checkEndsWithYield(inst, vc, branch.getElse(), "else-region");
}

void detail::verifyYield(const Instruction &inst, VerifyContext &vc) {
  const Instruction *parent = inst.getParentInstruction();
  llvm::SmallVector<const Type *, 4> expected;
  if (!parent) {
    vc.emitError(inst.getLoc())
        << "'yield' must be inside 'for', 'if' or 'cooperative_matrix_apply'";
    return;
  }
  switch (parent->getKind()) {
  case InstKind::For:
  case InstKind::If:
    for (const Value *result : parent->getResults())
      expected.push_back(result->getType());
    break;
  case InstKind::CooperativeMatrixApply:
    if (const auto *coop = llvm::dyn_cast<CoopMatrixType>(
            viewOf<CooperativeMatrixApplyInst>(*parent).getA()->getType()))
      expected.push_back(coop->getComponentType());
    break;
  default:
    vc.emitError(inst.getLoc()) << "'yield' must be inside 'for', 'if' or "
                                   "'cooperative_matrix_apply', not '"
                                << parent->getName() << "'";
    return;
  }
  if (inst.getNumOperands() != expected.size()) {
    vc.emitError(inst.getLoc())
        << "'yield' must return " << expected.size()
        << (expected.size() == 1 ? " value" : " values") << " as '"
        << parent->getName() << "' declares, but returns "
        << inst.getNumOperands();
    return;
  }
  for (unsigned i = 0; i < expected.size(); ++i)
    if (inst.getOperand(i)->getType() != expected[i])
      vc.emitOperandError(inst, i)
          << "value " << i << " of 'yield' has type "
          << inst.getOperand(i)->getType() << ", but '" << parent->getName()
          << "' declares " << expected[i];
}

/// Shared rules of foreach and foreach_tile; returns the range types.
static bool checkRange(const Instruction &inst, VerifyContext &vc,
                       llvm::ArrayRef<Value *> from, llvm::ArrayRef<Value *> to,
                       llvm::SmallVectorImpl<const Type *> &types) {
  if (from.empty() || from.size() != to.size()) {
    vc.emitError(inst.getLoc())
        << "'" << inst.getName()
        << "' needs equally long, non-empty 'from' and 'to' lists, but has "
        << from.size() << " and " << to.size();
    return false;
  }
  bool ok = true;
  for (unsigned i = 0; i < from.size(); ++i) {
    if (from[i]->getType() != to[i]->getType()) {
      vc.emitOperandError(inst, from.size() + i)
          << "'to' " << i << " of '" << inst.getName() << "' has type "
          << to[i]->getType() << ", but 'from' " << i << " has type "
          << from[i]->getType();
      ok = false;
    }
    types.push_back(from[i]->getType());
  }
  return ok;
}

void detail::verifyForeach(const Instruction &inst, VerifyContext &vc) {
  auto loop = viewOf<ForeachInst>(inst);
  llvm::SmallVector<const Type *, 4> types;
  if (checkRange(inst, vc, loop.getFrom(), loop.getTo(), types))
    checkParams(inst, vc, loop.getBody(), types);
}

void detail::verifyForeachTile(const Instruction &inst, VerifyContext &vc) {
  auto loop = viewOf<ForeachTileInst>(inst);
  llvm::SmallVector<const Type *, 4> types;
  if (!checkRange(inst, vc, loop.getFrom(), loop.getTo(), types))
    return;
  llvm::ArrayRef<int64_t> tile = loop.getTileShape();
  if (tile.size() != types.size()) {
    vc.emitError(inst.getLoc())
        << "tile shape of 'foreach_tile' must have " << types.size()
        << " entries, but has " << tile.size();
    return;
  }
  for (int64_t size : tile)
    if (size <= 0) {
      vc.emitError(inst.getLoc())
          << "tile shape entries of 'foreach_tile' must be positive, but one "
             "is "
          << size;
      return;
    }
  if (std::optional<int64_t> sg = vc.getSubgroupSize())
    if (*sg > 0 && tile[0] % *sg != 0)
      vc.emitError(inst.getLoc())
          << "first tile shape entry " << tile[0]
          << " of 'foreach_tile' must be a multiple of the subgroup size "
          << *sg;
  llvm::SmallVector<const Type *, 8> params(types.begin(), types.end());
  params.append(types.begin(), types.end());
  checkParams(inst, vc, loop.getBody(), params);
}
