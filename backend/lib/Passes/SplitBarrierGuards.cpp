//===- SplitBarrierGuards.cpp - Barriers out of uniform guards ------------===//
//
// `if %c { A; barrier; B }` becomes `if %c { A }; barrier; if %c { B }`.
// OpenCL allows a barrier under a condition that all work-items of a group
// evaluate alike, as the mapper's guards on `group_id` are, but PoCL 3.1
// ran such a kernel into a hang or heap corruption (docs/testing.md); in the
// split form every work-item meets the barrier, which for a uniform
// condition is the same program. An `if` with results or an else branch,
// or one whose part after the barrier uses a value of the part before it,
// is left alone.
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
  if (!barrier || llvm::any_of(after, [&](const ir::Instruction *child) {
        return usesAny(*child, before);
      }))
    return;
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
