//===- TuningKernel.cpp - The tunable knobs of one kernel -----------------===//
#include "comprehend/runtime/TuningKernel.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"

using namespace comprehend;
using namespace comprehend::runtime;

llvm::Expected<SearchSpace>
comprehend::runtime::makeWorkGroupSpace(const backend::CoreInfo &core,
                                        const backend::KernelInfo &defaults) {
  SearchSpace space;
  for (const KnobDomain &knob : backend::getLaunchKnobDomains(core, defaults))
    if (llvm::Error error =
            space.addParameter(knob.name, knob.values, knob.defaultValue))
      return error;
  space.addConstraint(productAtMost(
      {std::string(kWorkGroupSize0), std::string(kWorkGroupSize1)},
      core.maxWorkGroupSize));
  space.addConstraint(multipleOfParameter(kWorkGroupSize0, kSubgroupSize));
  return space;
}

void comprehend::runtime::applyConfiguration(ir::Function &function,
                                             const Configuration &config) {
  backend::applyLaunchKnobs(config, function);
}
