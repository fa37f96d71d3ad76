//===- TuningKernel.cpp - The tunable knobs of one kernel -----------------===//
#include "comprehend/runtime/TuningKernel.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::runtime;

llvm::Expected<SearchSpace>
comprehend::runtime::makeWorkGroupSpace(const backend::CoreInfo &core,
                                        const backend::KernelInfo &defaults) {
  llvm::SmallVector<int64_t, 16> modes;
  for (int64_t size = 1; size <= int64_t(core.maxWorkGroupSize); size *= 2)
    modes.push_back(size);
  llvm::SmallVector<int64_t, 4> subgroups(core.subgroupSizes.begin(),
                                          core.subgroupSizes.end());
  SearchSpace space;
  if (llvm::Error error =
          space.addParameter(kWorkGroupSize0, modes, defaults.workGroupSize[0]))
    return error;
  if (llvm::Error error =
          space.addParameter(kWorkGroupSize1, modes, defaults.workGroupSize[1]))
    return error;
  if (llvm::Error error =
          space.addParameter(kSubgroupSize, subgroups, defaults.subgroupSize))
    return error;
  space.addConstraint(productAtMost(
      {std::string(kWorkGroupSize0), std::string(kWorkGroupSize1)},
      core.maxWorkGroupSize));
  space.addConstraint(multipleOfParameter(kWorkGroupSize0, kSubgroupSize));
  return space;
}

void comprehend::runtime::applyConfiguration(ir::Function &function,
                                             const Configuration &config) {
  ir::Context &ctx = function.getContext();
  llvm::SmallVector<ir::NamedAttribute, 8> entries;
  if (const ir::DictionaryAttr *attrs = function.getAttributes())
    entries.append(attrs->getEntries().begin(), attrs->getEntries().end());
  auto wg0 = config.find(std::string(kWorkGroupSize0));
  auto wg1 = config.find(std::string(kWorkGroupSize1));
  if (wg0 != config.end() && wg1 != config.end()) {
    const ir::Attribute *modes[2] = {ir::IntegerAttr::get(ctx, wg0->second),
                                     ir::IntegerAttr::get(ctx, wg1->second)};
    // DictionaryAttr::get keeps the last of duplicate names.
    entries.push_back({"work_group_size", ir::ArrayAttr::get(ctx, modes)});
  }
  auto sg = config.find(std::string(kSubgroupSize));
  if (sg != config.end())
    entries.push_back({"subgroup_size", ir::IntegerAttr::get(ctx, sg->second)});
  function.setAttributes(ir::DictionaryAttr::get(ctx, entries));
}
