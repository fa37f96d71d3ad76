//===- WorkGroupSize.cpp - Choose subgroup and work-group size ------------===//
//
// Records the kernel shape (KernelShape.h) in the function's attributes, so
// that later passes, the emitter and `--emit lowered-ir` all see the same
// `subgroup_size` and `work_group_size`. Sizes the user gave are kept (and
// checked against the core); the function is verified again, since some
// rules depend on the subgroup size.
//
// On a GPU core (hasGpuLaunchDefaults) a kernel that asks for no work-group
// size gets one by what it spreads over its work-group (docs/nvidia.md,
// "Defaults and the tuning space"): a row reduction (`parallel`) the whole
// row, gemms a warp per register tile, loops (`foreach`) 256 work-items
// (fewer where all their points are fewer).
// Other kernels, and every kernel of other cores, keep KernelShape.cpp's
// default.
//
//===----------------------------------------------------------------------===//
#include "KernelShape.h"
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/backend/GemmTiling.h"
#include "comprehend/backend/Knobs.h"
#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Verifier.h"

using namespace comprehend;
using namespace comprehend::backend;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// What a kernel spreads over its work-group.
struct GroupWork {
  /// Longest row a `parallel` region walks with the whole work-group; 0
  /// when there is none.
  int64_t rowLength = 0;
  bool gemm = false;
  /// Most register tiles of one gemm; 0 when a C is dynamic.
  int64_t gemmTiles = 0;
  bool loops = false;
  /// Most points of a `foreach`'s first mode (spread over the x
  /// work-items); 0 when one is not static.
  int64_t loopPoints = 0;
  bool dynamicLoop = false;
};

/// Iterations of `loop` where it walks a row with the whole work-group, as
/// the TC lowering's reductions do: from `c + the work-item's offset` to a
/// constant, by a step that is not a constant (the work-group's size);
/// else 0 (a loop of each work-item, or a dynamic row).
int64_t getRowLength(ir::ForInst loop) {
  std::optional<int64_t> end = getIntegerConstant(loop.getTo());
  if (!end || !loop.getStep() || getIntegerConstant(loop.getStep()) ||
      getIntegerConstant(loop.getFrom()))
    return 0;
  std::optional<int64_t> begin;
  if (auto add = llvm::dyn_cast_or_null<ir::AddInst>(
          loop.getFrom()->getDefiningInstruction())) {
    begin = getIntegerConstant(add.getA());
    if (!begin)
      begin = getIntegerConstant(add.getB());
  }
  return std::max<int64_t>(0, *end - begin.value_or(0));
}

/// Register tiles of `gemm` for a warp of `core`, or 0 when C is dynamic.
int64_t countGemmTiles(ir::GemmInst gemm, const PassContext &context) {
  auto *c = llvm::cast<ir::MemRefType>(gemm.getC()->getType());
  if (c->isDynamicShape(0) || c->isDynamicShape(1))
    return 0;
  GemmTiling tiling = getDefaultGemmTiling(context.core);
  const GemmTiling &asked = context.options.gemmTiling;
  int64_t rows = asked.rows ? asked.rows : tiling.rows;
  int64_t cols = asked.cols ? asked.cols : tiling.cols;
  return ceilDiv(c->getShape(0), rows) * ceilDiv(c->getShape(1), cols);
}

void collectGroupWork(ir::Region &region, const PassContext &context,
                      GroupWork &work) {
  for (ir::Instruction &inst : region) {
    if (inst.getKind() == ir::InstKind::Parallel) {
      for (ir::Instruction &nested : *inst.getRegions().front())
        if (auto loop = llvm::dyn_cast<ir::ForInst>(&nested))
          work.rowLength = std::max(work.rowLength, getRowLength(loop));
    } else if (auto gemm = llvm::dyn_cast<ir::GemmInst>(&inst)) {
      work.gemm = true;
      work.gemmTiles = std::max(work.gemmTiles, countGemmTiles(gemm, context));
    } else if (auto loop = llvm::dyn_cast<ir::ForeachInst>(&inst)) {
      work.loops = true;
      std::optional<int64_t> from = getIntegerConstant(loop.getFrom().front());
      std::optional<int64_t> to = getIntegerConstant(loop.getTo().front());
      if (from && to)
        work.loopPoints = std::max(work.loopPoints, *to - *from);
      else
        work.dynamicLoop = true;
    } else if (inst.getKind() == ir::InstKind::ForeachTile) {
      work.loops = work.dynamicLoop = true;
    }
    for (ir::Region *nested : inst.getRegions())
      collectGroupWork(*nested, context, work);
  }
}

/// The GPU work-group size of `function` (one mode), or nothing where the
/// shape's default stands.
std::optional<unsigned> chooseGpuWorkGroupSize(ir::Function &function,
                                               const PassContext &context) {
  GroupWork work;
  collectGroupWork(function.getBody(), context, work);
  if (work.rowLength > 0)
    return getGpuRowWorkGroupSize(context.core, work.rowLength);
  if (work.gemm)
    return getGpuGemmWorkGroupSize(context.core, work.gemmTiles);
  if (work.loops)
    return getGpuLoopWorkGroupSize(context.core,
                                   work.dynamicLoop ? 0 : work.loopPoints);
  return std::nullopt;
}

class WorkGroupSizePass : public KernelShapePass {
public:
  LogicalResult runOnShape(ir::Function &function, PassContext &context,
                           KernelShape &kernelShape) override {
    if (hasGpuLaunchDefaults(context.core) && !function.getWorkGroupSize())
      if (std::optional<unsigned> size =
              chooseGpuWorkGroupSize(function, context))
        kernelShape.workGroupSize = {*size, 1};
    ir::Context &ctx = function.getContext();
    llvm::SmallVector<ir::NamedAttribute, 4> entries;
    if (const ir::DictionaryAttr *attrs = function.getAttributes())
      for (const ir::NamedAttribute &entry : attrs->getEntries())
        if (entry.name != "subgroup_size" && entry.name != "work_group_size")
          entries.push_back(entry);
    entries.push_back(
        {"subgroup_size", ir::IntegerAttr::get(ctx, kernelShape.subgroupSize)});
    const ir::Attribute *sizes[] = {
        ir::IntegerAttr::get(ctx, kernelShape.workGroupSize[0]),
        ir::IntegerAttr::get(ctx, kernelShape.workGroupSize[1])};
    entries.push_back({"work_group_size", ir::ArrayAttr::get(ctx, sizes)});
    function.setAttributes(ir::DictionaryAttr::get(ctx, entries));
    // Rules that depend on the subgroup size (coopmatrix rows, tile shapes)
    // can only be checked now; breaking them is the input's fault.
    return ir::verify(function, context.diags);
  }
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createWorkGroupSizePass() {
  return std::make_unique<WorkGroupSizePass>();
}
