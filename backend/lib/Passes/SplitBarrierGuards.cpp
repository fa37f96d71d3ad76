//===- SplitBarrierGuards.cpp - Barriers out of uniform guards ------------===//
//
// `if %c { A; barrier; B }` becomes `if %c { A }; barrier; if %c { B }`.
// OpenCL allows a barrier under a condition that all work-items of a group
// evaluate alike, as the mapper's guards on `group_id` are, but PoCL 3.1
// ran such a kernel into a hang or heap corruption (docs/testing.md); in the
// split form every work-item meets the barrier, which for a uniform
// condition is the same program. A value of the part before the barrier
// that the part after it uses moves before the `if` where it comes from
// pure instructions that cannot trap (the guards' own conditions, index
// arithmetic): every work-item then computes it, outside the condition. An
// `if` with results or an else branch, or one whose part after the barrier
// uses another value of the part before it, is left alone.
//
//===----------------------------------------------------------------------===//
#include "Passes/Pass.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;

namespace {

/// Whether \p inst or an instruction nested in it uses a value of \p values.
bool usesAny(const ir::Instruction &inst,
             const llvm::SmallPtrSetImpl<const ir::Value *> &values) {
  for (const ir::Value *operand : inst.getOperands())
    if (values.count(operand))
      return true;
  for (unsigned r = 0; r < inst.getNumRegions(); ++r)
    for (const ir::Instruction &nested : inst.getRegion(r))
      if (usesAny(nested, values))
        return true;
  return false;
}

/// Collects the values of \p values that \p inst or an instruction nested
/// in it uses.
void collectUses(const ir::Instruction &inst,
                 const llvm::SmallPtrSetImpl<const ir::Value *> &values,
                 llvm::SmallPtrSetImpl<const ir::Value *> &used) {
  for (const ir::Value *operand : inst.getOperands())
    if (values.count(operand))
      used.insert(operand);
  for (unsigned r = 0; r < inst.getNumRegions(); ++r)
    for (const ir::Instruction &nested : inst.getRegion(r))
      collectUses(nested, values, used);
}

/// Whether \p inst may run where it did not before: pure, without regions,
/// and no division that could trap.
bool isSpeculatable(const ir::Instruction &inst) {
  return inst.getDescriptor().isPure && inst.getNumRegions() == 0 &&
         inst.getKind() != InstKind::Div && inst.getKind() != InstKind::Rem;
}

/// Moves the instructions of the then branch of \p inst (an `if` in
/// \p region) that compute the values of \p before that \p after uses
/// before the `if`, operands first; \p before loses their results. False,
/// moving nothing, where one of them is not speculatable.
bool hoistValuesUsedAfter(ir::Region &region, ir::Instruction &inst,
                          llvm::ArrayRef<ir::Instruction *> after,
                          llvm::SmallPtrSetImpl<const ir::Value *> &before) {
  llvm::SmallPtrSet<const ir::Value *, 8> needed;
  for (const ir::Instruction *child : after)
    collectUses(*child, before, needed);
  llvm::SmallPtrSet<ir::Instruction *, 8> moved;
  llvm::SmallVector<const ir::Value *, 8> work(needed.begin(), needed.end());
  while (!work.empty()) {
    ir::Instruction *def = work.pop_back_val()->getDefiningInstruction();
    if (!def || !isSpeculatable(*def))
      return false;
    if (!moved.insert(def).second)
      continue;
    for (const ir::Value *operand : def->getOperands())
      if (before.count(operand))
        work.push_back(operand);
  }
  ir::Region &then = ir::IfInst(&inst).getThen();
  llvm::SmallVector<ir::Instruction *, 8> order;
  for (ir::Instruction &child : then)
    if (moved.count(&child))
      order.push_back(&child);
  auto at = region.getIterator(&inst);
  for (ir::Instruction *child : order) {
    for (const ir::Value *result : child->getResults())
      before.erase(result);
    region.insert(at, then.remove(child));
  }
  return true;
}

/// Splits \p inst, an `if` in \p region, at the first barrier of its then
/// branch; the part after it becomes a second `if` right after the barrier.
void splitAtBarrier(ir::Context &ctx, ir::Region &region,
                    ir::Instruction &inst) {
  ir::IfInst branch(&inst);
  if (!branch.getResults().empty() || !branch.getElse().empty())
    return;
  ir::Region &then = branch.getThen();
  ir::Instruction *barrier = nullptr;
  llvm::SmallPtrSet<const ir::Value *, 16> before;
  llvm::SmallVector<ir::Instruction *, 16> after;
  for (ir::Instruction &child : then) {
    if (barrier)
      after.push_back(&child);
    else if (child.getKind() == InstKind::Barrier)
      barrier = &child;
    else
      before.insert(child.getResults().begin(), child.getResults().end());
  }
  if (!barrier)
    return;
  if (llvm::any_of(after, [&](const ir::Instruction *child) {
        return usesAny(*child, before);
      })) {
    if (!hoistValuesUsedAfter(region, inst, after, before))
      return;
  }
  auto next = std::next(region.getIterator(&inst));
  region.insert(next, then.remove(barrier));
  if (after.empty())
    return;
  ir::Instruction *rest = region.insert(
      next, ir::IfInst::build(ctx, inst.getLoc(), {}, branch.getCondition()));
  ir::Region &restThen = ir::IfInst(rest).getThen();
  for (ir::Instruction *child : after)
    restThen.push_back(then.remove(child));
}

void splitRegion(ir::Context &ctx, ir::Region &region) {
  // The `if` after a split comes next in the walk and is split again.
  for (auto it = region.begin(); it != region.end(); ++it) {
    ir::Instruction &inst = *it;
    for (unsigned r = 0; r < inst.getNumRegions(); ++r)
      splitRegion(ctx, inst.getRegion(r));
    if (inst.getKind() == InstKind::If)
      splitAtBarrier(ctx, region, inst);
  }
}

class SplitBarrierGuardsPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &) override {
    splitRegion(function.getContext(), function.getBody());
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createSplitBarrierGuardsPass() {
  return std::make_unique<SplitBarrierGuardsPass>();
}
