//===- WorkGroupSize.cpp - Choose subgroup and work-group size ------------===//
//
// Records the kernel shape (KernelShape.h) in the function's attributes, so
// that later passes, the emitter and `--emit lowered-ir` all see the same
// `subgroup_size` and `work_group_size`. Sizes the user gave are kept (and
// checked against the core); the function is verified again, since some
// rules depend on the subgroup size.
//
//===----------------------------------------------------------------------===//
#include "KernelShape.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Verifier.h"

using namespace comprehend;
using namespace comprehend::backend;

namespace {

class WorkGroupSizePass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &context) override {
    std::optional<KernelShape> shape =
        selectKernelShape(function, context.core, context.diags);
    if (!shape)
      return failure();
    ir::Context &ctx = function.getContext();
    llvm::SmallVector<ir::NamedAttribute, 4> entries;
    if (const ir::DictionaryAttr *attrs = function.getAttributes())
      for (const ir::NamedAttribute &entry : attrs->getEntries())
        if (entry.name != "subgroup_size" && entry.name != "work_group_size")
          entries.push_back(entry);
    entries.push_back(
        {"subgroup_size", ir::IntegerAttr::get(ctx, shape->subgroupSize)});
    const ir::Attribute *sizes[] = {
        ir::IntegerAttr::get(ctx, shape->workGroupSize[0]),
        ir::IntegerAttr::get(ctx, shape->workGroupSize[1])};
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
