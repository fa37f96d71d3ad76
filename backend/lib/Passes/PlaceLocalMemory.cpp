//===- PlaceLocalMemory.cpp - Allocas as offsets into one local arena -----===//
//
// Every alloca of a function lives in one work-group arena of local memory.
// An alloca is live from its position to its `lifetime_stop`, or to the end
// of the region that contains it (where the spec frees it); a stop nested
// deeper than the alloca ends the lifetime at the end of the enclosing
// instruction of the alloca's region (a loop may still use the memory in a
// later iteration). Allocas whose lifetimes do not overlap may share bytes:
// each is placed, in program order, at the lowest offset (a multiple of its
// alignment) not used by an alloca live at the same time.
//
// The placement is recorded as `local_offset = N` in the alloca's attributes
// (the emitter turns it into a pointer into the arena); the arena must fit
// the core's local memory, else the first alloca reaching past it is
// reported with the allocas live there. An alloca reusing bytes of an
// earlier one gets a `barrier.local` before it: work-items may still be
// reading the old contents when others write the new ones.
//
//===----------------------------------------------------------------------===//
#include "Passes/Pass.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;

namespace {

/// Offsets are at least this aligned: room for any element or small vector.
constexpr int64_t kMinAlignment = 16;

struct Allocation {
  ir::Instruction *inst;
  /// Live range in pre-order instruction numbers, inclusive.
  unsigned start, end;
  int64_t bytes, alignment;
  int64_t offset = 0;

  bool overlapsInTime(const Allocation &other) const {
    return start <= other.end && other.start <= end;
  }
  bool overlapsInSpace(int64_t from, int64_t size) const {
    return offset < from + size && from < offset + bytes;
  }
};

class PlaceLocalMemoryPass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &context) override {
    number(function.getBody());
    llvm::SmallVector<Allocation, 8> allocations;
    collect(function.getBody(), allocations);
    if (allocations.empty())
      return success();

    ir::Context &ctx = function.getContext();
    const CoreInfo &core = context.core;
    for (size_t i = 0; i < allocations.size(); ++i) {
      Allocation &current = allocations[i];
      llvm::ArrayRef<Allocation> placed(allocations.data(), i);
      current.offset = findOffset(current, placed);
      if (current.offset + current.bytes >
          static_cast<int64_t>(core.localMemoryBytes)) {
        auto diag = context.diags.emitError(current.inst->getLoc())
                    << "alloca of " << current.bytes << " bytes at offset "
                    << current.offset << " exceeds the local memory of target '"
                    << core.name << "' (" << core.localMemoryBytes << " bytes)";
        for (const Allocation &other : placed)
          if (other.overlapsInTime(current))
            diag.note(other.inst->getLoc(),
                      "live here: alloca of " + std::to_string(other.bytes) +
                          " bytes at offset " + std::to_string(other.offset));
        return failure();
      }
      setOffset(ctx, *current.inst, current.offset);
      // Reusing the bytes of a dead alloca needs all work-items to be done
      // with the old contents.
      bool reuses = llvm::any_of(placed, [&](const Allocation &other) {
        return other.overlapsInSpace(current.offset, current.bytes);
      });
      if (reuses && !followsLocalBarrier(*current.inst)) {
        ir::Builder builder(ctx);
        builder.setInsertionPoint(current.inst);
        builder.create<ir::BarrierInst>(current.inst->getLoc(), false, true);
      }
    }
    return success();
  }

private:
  /// Numbers the instructions of \p region in pre-order and records, per
  /// instruction, the last number inside it.
  void number(ir::Region &region) {
    for (ir::Instruction &inst : region) {
      position[&inst] = next++;
      for (ir::Region *nested : inst.getRegions())
        number(*nested);
      subtreeEnd[&inst] = next - 1;
    }
  }

  /// The last number inside \p region.
  unsigned getRegionEnd(ir::Region &region) {
    if (region.empty())
      return 0;
    return subtreeEnd[&region.back()];
  }

  void collect(ir::Region &region, llvm::SmallVectorImpl<Allocation> &out) {
    for (ir::Instruction &inst : region) {
      if (inst.getKind() == InstKind::Alloca) {
        auto *type = llvm::cast<ir::MemRefType>(inst.getResult(0)->getType());
        int64_t alignment = kMinAlignment;
        if (const ir::DictionaryAttr *attrs = inst.getDictionary(0))
          if (auto *value = llvm::dyn_cast_or_null<ir::IntegerAttr>(
                  attrs->get("alignment")))
            alignment = std::max(alignment, value->getValue());
        out.push_back({&inst, position[&inst], getLifetimeEnd(inst),
                       type->getSizeInBytes(), alignment});
      }
      for (ir::Region *nested : inst.getRegions())
        collect(*nested, out);
    }
  }

  /// Where the lifetime of \p alloca ends (see the file comment).
  unsigned getLifetimeEnd(ir::Instruction &alloca) {
    ir::Region *home = alloca.getParentRegion();
    unsigned end = getRegionEnd(*home);
    for (const ir::Use &use : alloca.getResult(0)->getUses()) {
      ir::Instruction *user = use.user;
      if (user->getKind() != InstKind::LifetimeStop)
        continue;
      // The ancestor of the stop in the alloca's region.
      ir::Instruction *anchor = user;
      while (anchor && anchor->getParentRegion() != home)
        anchor = anchor->getParentInstruction();
      if (anchor && position[anchor] > position[&alloca])
        end = std::min(end, subtreeEnd[anchor]);
    }
    return end;
  }

  /// The lowest offset, a multiple of the alignment, where \p current does
  /// not overlap the allocations live at the same time.
  static int64_t findOffset(const Allocation &current,
                            llvm::ArrayRef<Allocation> placed) {
    llvm::SmallVector<const Allocation *, 8> live;
    for (const Allocation &other : placed)
      if (other.overlapsInTime(current))
        live.push_back(&other);
    llvm::sort(live, [](const Allocation *a, const Allocation *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (const Allocation *other : live) {
      if (!other->overlapsInSpace(offset, current.bytes))
        continue;
      int64_t after = other->offset + other->bytes;
      offset = std::max(offset, (after + current.alignment - 1) /
                                    current.alignment * current.alignment);
    }
    return offset;
  }

  static void setOffset(ir::Context &ctx, ir::Instruction &inst,
                        int64_t offset) {
    llvm::SmallVector<ir::NamedAttribute, 4> entries;
    if (const ir::DictionaryAttr *attrs = inst.getDictionary(0))
      for (const ir::NamedAttribute &entry : attrs->getEntries())
        if (entry.name != "local_offset")
          entries.push_back(entry);
    entries.push_back({"local_offset", ir::IntegerAttr::get(ctx, offset)});
    inst.setProperty(0, ir::DictionaryAttr::get(ctx, entries));
  }

  /// Whether a `barrier.local` precedes \p inst with only allocas and
  /// lifetime stops (which touch no memory) in between.
  static bool followsLocalBarrier(ir::Instruction &inst) {
    bool found = false;
    for (ir::Instruction &candidate : *inst.getParentRegion()) {
      if (&candidate == &inst)
        return found;
      if (candidate.getKind() == InstKind::Alloca ||
          candidate.getKind() == InstKind::LifetimeStop)
        continue;
      found = candidate.getKind() == InstKind::Barrier &&
              ir::BarrierInst(&candidate).isLocal();
    }
    return found;
  }

  llvm::DenseMap<const ir::Instruction *, unsigned> position, subtreeEnd;
  unsigned next = 0;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createPlaceLocalMemoryPass() {
  return std::make_unique<PlaceLocalMemoryPass>();
}
