//===- DeadCodeElimination.cpp - Remove unused pure instructions ----------===//
//
// Erases pure instructions (and plain loads) whose results are unused,
// innermost regions first and each region backwards, so chains of dead
// instructions go in one sweep. A `for` or `if` whose results are unused and
// whose regions hold only pure instructions (and yields) is dead as well.
//
//===----------------------------------------------------------------------===//
#include "Passes/Pass.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::backend;

namespace {

class DeadCodeEliminationPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &) override {
    sweep(function.getBody());
    return success();
  }

private:
  /// Whether \p inst has no effect besides its results.
  static bool isSideEffectFree(const ir::Instruction &inst) {
    // A plain load has no effect either (atomic loads may order memory).
    if (inst.getDescriptor().isPure || inst.getKind() == ir::InstKind::Yield ||
        inst.getKind() == ir::InstKind::Load)
      return true;
    if (inst.getKind() != ir::InstKind::For &&
        inst.getKind() != ir::InstKind::If)
      return false;
    for (const ir::Region *region : inst.getRegions())
      for (const ir::Instruction &nested : *region)
        if (!isSideEffectFree(nested))
          return false;
    return true;
  }

  static bool isDead(const ir::Instruction &inst) {
    if (inst.getKind() == ir::InstKind::Yield)
      return false;
    return isSideEffectFree(inst) &&
           llvm::none_of(inst.getResults(),
                         [](const ir::Value *v) { return v->hasUses(); });
  }

  void sweep(ir::Region &region) {
    llvm::SmallVector<ir::Instruction *, 32> insts;
    for (ir::Instruction &inst : region)
      insts.push_back(&inst);
    for (ir::Instruction *inst : llvm::reverse(insts)) {
      for (ir::Region *nested : inst->getRegions())
        sweep(*nested);
      if (isDead(*inst)) {
        inst->dropAllReferences();
        region.erase(inst);
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createDeadCodeEliminationPass() {
  return std::make_unique<DeadCodeEliminationPass>();
}
