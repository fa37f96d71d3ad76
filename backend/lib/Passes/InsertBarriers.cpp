//===- InsertBarriers.cpp - Barriers between dependent collective code ----===//
//
// A collective instruction distributes its work over the work-items in its
// own way, so when two of them touch the same memory and one writes it, all
// work-items must finish the first before any starts the second. The pass
// walks each collective region in order, tracking the memory read and
// written since the last barrier, and puts `barrier` (with `.global` and/or
// `.local` after the address spaces involved) before an instruction that
// reads what was written or writes what was read or written.
//
// What an instruction reads and writes is the instruction table's: the
// memory effects of its operands (`reads`, `writes` in Instructions.td).
// Memory is identified by its root: a function parameter, an alloca, or a
// group (for memrefs loaded from it); views (subview, expand, fuse) share
// their operand's root (the table's `viewSource`). Distinct roots are assumed
// not to alias. A collective `for` whose body touches memory also gets a
// barrier at the end of its body, for the dependence between iterations.
//
//===----------------------------------------------------------------------===//
#include "Passes/Pass.h"

#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Function.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;

namespace {

/// The operand whose memory the memref result of \p def refers to (the
/// table's `viewSource`), if any.
const ir::Value *getViewSource(const ir::Instruction &def) {
  const ir::InstDescriptor &desc = def.getDescriptor();
  for (unsigned group = 0; group < desc.operands.size(); ++group)
    if (desc.operands[group].viewSource)
      return def.getOperandGroup(group).front();
  return nullptr;
}

/// The memory a value of memref or group type refers to.
const ir::Value *getRoot(const ir::Value *value) {
  while (const ir::Instruction *def = value->getDefiningInstruction()) {
    const ir::Value *source = getViewSource(*def);
    if (!source)
      return value;
    value = source;
  }
  return value;
}

bool isLocal(const ir::Value *root) {
  const ir::Type *type = root->getType();
  if (auto *group = llvm::dyn_cast<ir::GroupType>(type))
    type = group->getMemRefType();
  auto *memref = llvm::dyn_cast<ir::MemRefType>(type);
  return memref && memref->getAddressSpace() == ir::AddressSpace::Local;
}

/// A small ordered set of roots.
class RootSet {
public:
  void insert(const ir::Value *root) {
    if (!contains(root))
      roots.push_back(root);
  }
  bool contains(const ir::Value *root) const {
    return llvm::is_contained(roots, root);
  }
  bool empty() const { return roots.empty(); }
  void clear() { roots.clear(); }
  auto begin() const { return roots.begin(); }
  auto end() const { return roots.end(); }
  llvm::ArrayRef<const ir::Value *> getArrayRef() const { return roots; }

private:
  llvm::SmallVector<const ir::Value *, 4> roots;
};

/// Roots read and written by a piece of code.
struct Accesses {
  RootSet reads;
  RootSet writes;

  bool empty() const { return reads.empty() && writes.empty(); }
  void merge(const Accesses &other) {
    for (const ir::Value *root : other.reads)
      reads.insert(root);
    for (const ir::Value *root : other.writes)
      writes.insert(root);
  }
  void clear() {
    reads.clear();
    writes.clear();
  }
};

/// Adds what \p inst (and its regions) reads and writes to \p accesses,
/// after the memory effects of its operands in the instruction table.
void collectAccesses(const ir::Instruction &inst, Accesses &accesses) {
  const ir::InstDescriptor &desc = inst.getDescriptor();
  for (unsigned group = 0; group < desc.operands.size(); ++group) {
    ir::MemoryEffect effect = desc.operands[group].effect;
    if (effect == ir::MemoryEffect::None)
      continue;
    for (const ir::Value *operand : inst.getOperandGroup(group)) {
      // Loading a memref from a group reads no tensor element.
      if (llvm::isa<ir::GroupType>(operand->getType()))
        continue;
      const ir::Value *root = getRoot(operand);
      if (ir::reads(effect))
        accesses.reads.insert(root);
      if (ir::writes(effect))
        accesses.writes.insert(root);
    }
  }
  for (const ir::Region *region : inst.getRegions())
    for (const ir::Instruction &nested : *region)
      collectAccesses(nested, accesses);
}

bool conflicts(const Accesses &pending, const Accesses &next, RootSet &roots) {
  for (const ir::Value *root : next.reads)
    if (pending.writes.contains(root))
      roots.insert(root);
  for (const ir::Value *root : next.writes)
    if (pending.writes.contains(root) || pending.reads.contains(root))
      roots.insert(root);
  return !roots.empty();
}

class InsertBarriersPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &) override {
    ctx = &function.getContext();
    Accesses pending;
    processRegion(function.getBody(), pending);
    return success();
  }

private:
  void insertBarrier(ir::Instruction *before, ir::Region &region,
                     llvm::ArrayRef<const ir::Value *> roots) {
    bool local = llvm::any_of(roots, isLocal);
    bool global = llvm::any_of(
        roots, [](const ir::Value *root) { return !isLocal(root); });
    ir::Builder builder(*ctx);
    if (before)
      builder.setInsertionPoint(before);
    else
      builder.setInsertionPointToEnd(region);
    Location loc = before ? before->getLoc() : Location();
    builder.create<ir::BarrierInst>(loc, global, local);
  }

  /// Processes a collective region; \p pending holds the accesses since the
  /// last barrier on entry and on exit.
  void processRegion(ir::Region &region, Accesses &pending) {
    if (region.getKind() == ir::RegionKind::Spmd)
      return;
    for (auto it = region.begin(); it != region.end(); ++it) {
      ir::Instruction &inst = *it;
      if (inst.getKind() == InstKind::Barrier) {
        pending.clear();
        continue;
      }
      if (inst.getKind() == InstKind::For || inst.getKind() == InstKind::If) {
        processControlFlow(inst, region, pending);
        continue;
      }
      Accesses accesses;
      collectAccesses(inst, accesses);
      if (accesses.empty())
        continue;
      RootSet roots;
      if (conflicts(pending, accesses, roots)) {
        insertBarrier(&inst, region, roots.getArrayRef());
        pending.clear();
      }
      pending.merge(accesses);
    }
  }

  void processControlFlow(ir::Instruction &inst, ir::Region &region,
                          Accesses &pending) {
    // Accesses anywhere inside must not race with what came before.
    Accesses inside;
    collectAccesses(inst, inside);
    RootSet roots;
    if (conflicts(pending, inside, roots)) {
      insertBarrier(&inst, region, roots.getArrayRef());
      pending.clear();
    }
    Accesses after = pending;
    for (ir::Region *nested : inst.getRegions()) {
      Accesses branch = pending;
      processRegion(*nested, branch);
      after.merge(branch);
    }
    if (inst.getKind() == InstKind::For && !inside.empty()) {
      // The next iteration must not race with this one.
      llvm::SmallVector<const ir::Value *, 4> all(inside.writes.begin(),
                                                  inside.writes.end());
      all.append(inside.reads.begin(), inside.reads.end());
      ir::Region &body = ir::ForInst(&inst).getBody();
      ir::Instruction *yield =
          !body.empty() && body.back().getKind() == InstKind::Yield
              ? &body.back()
              : nullptr;
      if (!inside.writes.empty())
        insertBarrier(yield, body, all);
      after.merge(inside);
    }
    pending = std::move(after);
  }

  ir::Context *ctx = nullptr;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createInsertBarriersPass() {
  return std::make_unique<InsertBarriersPass>();
}
