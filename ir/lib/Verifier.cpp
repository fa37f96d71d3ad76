//===- Verifier.cpp - Structure, nesting and per-instruction rules --------===//
//
// Walks every function: parameter and function attributes, visibility of
// operands (defined before use in an enclosing region), collective / SPMD
// nesting, then the generated constraint checks and verify hooks of each
// instruction. Every violation is reported; nothing stops at the first.
//
//===----------------------------------------------------------------------===//
#include "comprehend/ir/Verifier.h"

#include "Constraints.h"
#include "VerifyContext.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Program.h"

#include "llvm/ADT/DenseSet.h"

using namespace comprehend;
using namespace comprehend::ir;

namespace comprehend::ir {
namespace detail {
#include "comprehend/ir/InstVerifyHooks.h.inc"
} // namespace detail
#include "comprehend/ir/InstVerify.cpp.inc"
} // namespace comprehend::ir

namespace {

/// Effective execution context: mixed regions inherit it from their parent.
enum class ExecContext { Collective, Spmd };

class FunctionVerifier {
public:
  FunctionVerifier(const Function &function, DiagnosticEngine &diags)
      : function(function), vc(diags, &function) {}

  LogicalResult run();

private:
  void verifyAttributes();
  void verifyParameter(unsigned i);
  void verifyRegion(const Region &region, ExecContext context);
  /// Returns false if the instruction is too malformed for further checks.
  bool verifyStructure(const Instruction &inst);
  void verifyNesting(const Instruction &inst, ExecContext context);

  const Function &function;
  VerifyContext vc;
  llvm::DenseSet<const Value *> visible;
};

} // namespace

LogicalResult FunctionVerifier::run() {
  verifyAttributes();
  for (unsigned i = 0; i < function.getNumParameters(); ++i) {
    verifyParameter(i);
    visible.insert(function.getParameter(i));
  }
  verifyRegion(function.getBody(), ExecContext::Collective);
  return failure(vc.failed());
}

void FunctionVerifier::verifyAttributes() {
  const DictionaryAttr *attrs = function.getAttributes();
  if (!attrs)
    return;
  std::optional<int64_t> subgroupSize;
  if (const Attribute *attr = attrs->get("subgroup_size")) {
    const auto *value = llvm::dyn_cast<IntegerAttr>(attr);
    if (!value || value->getValue() <= 0)
      vc.emitError(function.getLoc())
          << "'subgroup_size' of function '@" << function.getName()
          << "' must be a positive integer, but is " << *attr;
    else
      subgroupSize = value->getValue();
  }
  if (const Attribute *attr = attrs->get("work_group_size")) {
    const auto *array = llvm::dyn_cast<ArrayAttr>(attr);
    std::optional<llvm::SmallVector<int64_t, 4>> values;
    if (array)
      values = array->getAsIntegers();
    if (!values || values->size() != 2 || (*values)[0] <= 0 ||
        (*values)[1] <= 0) {
      vc.emitError(function.getLoc())
          << "'work_group_size' of function '@" << function.getName()
          << "' must be an array of 2 positive integers, but is " << *attr;
    } else if (subgroupSize && (*values)[0] % *subgroupSize != 0) {
      vc.emitError(function.getLoc())
          << "first mode of 'work_group_size' of function '@"
          << function.getName() << "' must be a multiple of the subgroup size "
          << *subgroupSize << ", but is " << (*values)[0];
    }
  }
}

void FunctionVerifier::verifyParameter(unsigned i) {
  const Value *param = function.getParameter(i);
  const Type *type = param->getType();
  std::string name = quoteValueName(param, ("#" + llvm::Twine(i)).str());
  Location loc =
      param->getLoc().isValid() ? param->getLoc() : function.getLoc();
  if (!type || llvm::isa<CoopMatrixType, VectorType, VoidType>(type)) {
    vc.emitError(loc) << "parameter " << name << " of function '@"
                      << function.getName() << "' must not have type " << type;
    return;
  }
  const DictionaryAttr *attrs = function.getParameterAttrs(i);
  if (!attrs || attrs->empty())
    return;
  const MemRefType *memref = llvm::dyn_cast<MemRefType>(type);
  if (const auto *group = llvm::dyn_cast<GroupType>(type))
    memref = group->getMemRefType();
  if (!memref) {
    vc.emitError(loc) << "parameter " << name << " of type " << type
                      << " must not have attributes (only memref and group "
                         "parameters accept them)";
    return;
  }
  if (const Attribute *attr = attrs->get("alignment")) {
    const auto *value = llvm::dyn_cast<IntegerAttr>(attr);
    int64_t elementSize = getSizeInBytes(memref->getElementKind());
    if (!value || value->getValue() <= 0)
      vc.emitError(loc) << "'alignment' of parameter " << name
                        << " must be a positive integer, but is " << *attr;
    else if (value->getValue() % elementSize != 0)
      vc.emitError(loc) << "'alignment' of parameter " << name
                        << " must be a multiple of the element size "
                        << elementSize << ", but is " << value->getValue();
  }
  for (llvm::StringRef key : {"shape_gcd", "stride_gcd"}) {
    const Attribute *attr = attrs->get(key);
    if (!attr)
      continue;
    const auto *array = llvm::dyn_cast<ArrayAttr>(attr);
    std::optional<llvm::SmallVector<int64_t, 4>> values;
    if (array)
      values = array->getAsIntegers();
    if (!values || llvm::any_of(*values, [](int64_t v) { return v <= 0; }))
      vc.emitError(loc) << "'" << key << "' of parameter " << name
                        << " must be an array of positive integers, but is "
                        << *attr;
    else if (values->size() > memref->getOrder())
      vc.emitError(loc) << "'" << key << "' of parameter " << name
                        << " must have at most " << memref->getOrder()
                        << " entries (the order), but has " << values->size();
  }
}

bool FunctionVerifier::verifyStructure(const Instruction &inst) {
  const InstDescriptor &desc = inst.getDescriptor();
  llvm::ArrayRef<unsigned> sizes = inst.getOperandSegmentSizes();
  unsigned total = 0;
  for (unsigned size : sizes)
    total += size;
  bool ok = sizes.size() == desc.operands.size() &&
            total == inst.getNumOperands() &&
            inst.getNumRegions() == desc.regions.size();
  for (unsigned g = 0; ok && g < sizes.size(); ++g) {
    if (desc.operands[g].arity == Arity::Single)
      ok = sizes[g] == 1;
    else if (desc.operands[g].arity == Arity::Optional)
      ok = sizes[g] <= 1;
  }
  if (!ok) {
    vc.emitError(inst.getLoc())
        << "'" << inst.getName() << "' has a malformed operand list";
    return false;
  }
  if (desc.results.empty() ? inst.getNumResults() != 0
                           : desc.results[0].arity == Arity::Single &&
                                 inst.getNumResults() != 1) {
    vc.emitError(inst.getLoc()) << "'" << inst.getName() << "' must have "
                                << (desc.results.empty() ? 0 : 1)
                                << " results, but has " << inst.getNumResults();
    ok = false;
  }
  for (unsigned i = 0; i < inst.getNumOperands(); ++i) {
    const Value *operand = inst.getOperand(i);
    if (!operand) {
      vc.emitError(inst.getOperandLoc(i))
          << "operand " << vc.operandName(inst, i) << " of '" << inst.getName()
          << "' is missing";
      ok = false;
      continue;
    }
    if (!visible.contains(operand))
      vc.emitOperandError(inst, i)
          << "operand " << vc.operandName(inst, i) << " of '" << inst.getName()
          << "' is not visible here: its definition does "
          << "not precede it in this or an enclosing region";
  }
  for (const Value *result : inst.getResults())
    if (!result->getType()) {
      vc.emitError(inst.getLoc())
          << "result of '" << inst.getName() << "' has no type";
      ok = false;
    }
  return ok;
}

void FunctionVerifier::verifyNesting(const Instruction &inst,
                                     ExecContext context) {
  InstCategory category = inst.getDescriptor().category;
  if (category == InstCategory::Collective && context == ExecContext::Spmd)
    vc.emitError(inst.getLoc()) << "collective instruction '" << inst.getName()
                                << "' must not appear in an SPMD region";
  else if (category == InstCategory::Spmd && context == ExecContext::Collective)
    vc.emitError(inst.getLoc()) << "SPMD instruction '" << inst.getName()
                                << "' must not appear in a collective region";
}

void FunctionVerifier::verifyRegion(const Region &region, ExecContext context) {
  if (region.getKind() == RegionKind::Collective)
    context = ExecContext::Collective;
  else if (region.getKind() == RegionKind::Spmd)
    context = ExecContext::Spmd;
  llvm::SmallVector<const Value *, 8> added;
  auto define = [&](const Value *value) {
    if (visible.insert(value).second)
      added.push_back(value);
  };
  for (const Value *param : region.getParameters())
    define(param);
  for (const Instruction &inst : region) {
    bool wellFormed = verifyStructure(inst);
    verifyNesting(inst, context);
    const Instruction *parent = region.getParentInstruction();
    if (inst.getKind() == InstKind::Yield && &inst != &region.back() &&
        parent &&
        llvm::is_contained(
            {InstKind::For, InstKind::If, InstKind::CooperativeMatrixApply},
            parent->getKind()))
      vc.emitError(inst.getLoc())
          << "'yield' must be the last instruction of its region";
    if (wellFormed)
      verifyGenerated(inst, vc);
    for (const Region *child : inst.getRegions())
      verifyRegion(*child, context);
    for (const Value *result : inst.getResults())
      define(result);
  }
  for (const Value *value : added)
    visible.erase(value);
}

LogicalResult comprehend::ir::verify(const Function &function,
                                     DiagnosticEngine &diags) {
  return FunctionVerifier(function, diags).run();
}

LogicalResult comprehend::ir::verify(const Program &program,
                                     DiagnosticEngine &diags) {
  bool failedAny = false;
  for (const Function &function : program)
    failedAny |= failed(verify(function, diags));
  return failure(failedAny);
}

LogicalResult comprehend::ir::verifyInstruction(const Instruction &inst,
                                                DiagnosticEngine &diags) {
  const Region *region = inst.getParentRegion();
  VerifyContext vc(diags, region ? region->getEnclosingFunction() : nullptr);
  verifyGenerated(inst, vc);
  return failure(vc.failed());
}
