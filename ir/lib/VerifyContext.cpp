//===- VerifyContext.cpp - Diagnostics helpers of the verifier ------------===//
#include "VerifyContext.h"

#include "Constraints.h"

#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::ir;

std::string comprehend::ir::quoteValueName(const Value *value,
                                           llvm::StringRef fallback) {
  if (value && value->hasName())
    return ("'" + value->getName() + "'").str();
  return ("'" + fallback + "'").str();
}

std::optional<int64_t> VerifyContext::getSubgroupSize() const {
  return function ? function->getSubgroupSize() : std::nullopt;
}

InFlightDiagnostic VerifyContext::emitError(Location loc) {
  ++numErrors;
  return diags.emitError(loc);
}

void VerifyContext::noteDefinition(InFlightDiagnostic &diag, const Value *value,
                                   llvm::StringRef fallbackName) {
  if (!value || !value->getLoc().isValid())
    return;
  if (!value->hasName()) {
    diag.note(value->getLoc(), "value defined here");
    return;
  }
  diag.note(value->getLoc(), "'" + value->getName() + "' defined here");
}

std::pair<unsigned, unsigned>
VerifyContext::operandRange(const Instruction &inst, unsigned group) const {
  llvm::ArrayRef<unsigned> sizes = inst.getOperandSegmentSizes();
  unsigned start = 0;
  for (unsigned g = 0; g < group && g < sizes.size(); ++g)
    start += sizes[g];
  unsigned size = group < sizes.size() ? sizes[group] : 0;
  return {start, start + size};
}

std::string VerifyContext::operandName(const Instruction &inst,
                                       unsigned i) const {
  const InstDescriptor &desc = inst.getDescriptor();
  for (unsigned g = 0; g < desc.operands.size(); ++g) {
    auto range = operandRange(inst, g);
    if (i >= range.first && i < range.second)
      return ("'" + desc.operands[g].name + "'").str();
  }
  return ("#" + llvm::Twine(i)).str();
}

InFlightDiagnostic VerifyContext::emitOperandError(const Instruction &inst,
                                                   unsigned i) {
  InFlightDiagnostic diag = emitError(inst.getOperandLoc(i));
  std::string name = operandName(inst, i);
  noteDefinition(diag, inst.getOperand(i), llvm::StringRef(name).trim('\''));
  return diag;
}

void VerifyContext::operandTypeError(const Instruction &inst, unsigned i,
                                     llvm::StringRef expected) {
  emitOperandError(inst, i)
      << "operand " << operandName(inst, i) << " of '" << inst.getName()
      << "' must be " << expected << ", but has type "
      << inst.getOperand(i)->getType();
}

void VerifyContext::operandMismatch(const Instruction &inst, unsigned i,
                                    llvm::StringRef what,
                                    const Type *expected) {
  emitOperandError(inst, i)
      << "operand " << operandName(inst, i) << " of '" << inst.getName()
      << "' must have " << what << " (" << expected << "), but has type "
      << inst.getOperand(i)->getType();
}

static std::string resultName(const Instruction &inst, unsigned i) {
  if (inst.getNumResults() == 1)
    return "result";
  return "result " + std::to_string(i);
}

void VerifyContext::resultTypeError(const Instruction &inst, unsigned i,
                                    llvm::StringRef expected) {
  emitError(inst.getLoc()) << resultName(inst, i) << " of '" << inst.getName()
                           << "' must be " << expected << ", but has type "
                           << inst.getResult(i)->getType();
}

void VerifyContext::resultMismatch(const Instruction &inst, unsigned i,
                                   llvm::StringRef what, const Type *expected) {
  emitError(inst.getLoc()) << resultName(inst, i) << " of '" << inst.getName()
                           << "' must have " << what << " (" << expected
                           << "), but has type "
                           << inst.getResult(i)->getType();
}

void VerifyContext::countMismatch(const Instruction &inst, bool isResult,
                                  llvm::StringRef name, unsigned count,
                                  llvm::StringRef refName, unsigned refCount) {
  emitError(inst.getLoc()) << "'" << inst.getName() << "' must have "
                           << refCount << (isResult ? " results" : " operands")
                           << " '" << name << "' (one per '" << refName
                           << "'), but has " << count;
}

bool VerifyContext::capture(const Instruction &inst, KindVar &var,
                            ScalarKind kind, const Value *value, Location loc,
                            llvm::StringRef what) {
  if (!var.kind) {
    var = KindVar{kind, value, loc, what.str()};
    return true;
  }
  if (*var.kind == kind)
    return true;
  InFlightDiagnostic diag = emitError(loc);
  diag << what << " of '" << inst.getName() << "' must equal " << var.what
       << " (" << stringify(*var.kind) << "), but is " << stringify(kind);
  // A result is defined by this very instruction: no note.
  if (value && value->getDefiningInstruction() != &inst)
    noteDefinition(diag, value, "value");
  return false;
}

InFlightDiagnostic VerifyContext::emitAt(const Instruction &inst,
                                         const KindVar &var) {
  InFlightDiagnostic diag = emitError(var.loc);
  if (var.value && var.value->getDefiningInstruction() != &inst)
    noteDefinition(diag, var.value, "value");
  return diag;
}

KindVar VerifyContext::promote(const Instruction &inst, const KindVar &a,
                               const KindVar &b) {
  if (!a.kind || !b.kind)
    return KindVar{};
  std::optional<ScalarKind> kind = ir::promote(*a.kind, *b.kind);
  std::string what =
      ("promote(" + llvm::Twine(a.what) + ", " + b.what + ")").str();
  if (!kind) {
    if (lastPromoteInst == &inst && lastPromoteWhat == what)
      return KindVar{};
    lastPromoteInst = &inst;
    lastPromoteWhat = what;
    emitAt(inst, b) << "'" << inst.getName() << "' cannot promote " << a.what
                    << " (" << stringify(*a.kind) << ") and " << b.what << " ("
                    << stringify(*b.kind) << ") to a common type";
    return KindVar{};
  }
  return KindVar{kind, a.value, a.loc, what};
}

bool VerifyContext::promotable(const Instruction &inst, const KindVar &a,
                               const KindVar &b) {
  if (!a.kind || !b.kind)
    return false;
  if (isPromotable(*a.kind, *b.kind))
    return true;
  emitAt(inst, a) << a.what << " of '" << inst.getName()
                  << "' must be promotable to " << b.what << ", but "
                  << stringify(*a.kind) << " is not promotable to "
                  << stringify(*b.kind);
  return false;
}

bool VerifyContext::castAllowed(const Instruction &inst, const KindVar &a,
                                const KindVar &b) {
  if (!a.kind || !b.kind)
    return false;
  if (isCastAllowed(*a.kind, *b.kind))
    return true;
  emitAt(inst, b) << "'" << inst.getName() << "' cannot cast " << a.what << " ("
                  << stringify(*a.kind) << ") to " << b.what << " ("
                  << stringify(*b.kind) << ")";
  return false;
}

bool VerifyContext::kindIn(const Instruction &inst, const KindVar &a,
                           llvm::StringRef typeClass) {
  if (!a.kind)
    return false;
  std::optional<constraints::TypeClass> cls =
      constraints::parseTypeClass(typeClass);
  if (cls && constraints::isKindIn(*a.kind, *cls))
    return true;
  emitAt(inst, a) << a.what << " of '" << inst.getName() << "' must be "
                  << (cls ? constraints::describeTypeClass(*cls) : typeClass)
                  << ", but is " << stringify(*a.kind);
  return false;
}
