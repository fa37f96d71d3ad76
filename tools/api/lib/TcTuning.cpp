//===- TcTuning.cpp - The tuning knobs of a TC kernel ---------------------===//
#include "comprehend/api/TcTuning.h"

#include "comprehend/backend/Knobs.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningKernel.h"

#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::api;
using runtime::Configuration;

namespace {
bool containsKind(const ir::Region &region, ir::InstKind kind) {
  for (const ir::Instruction &inst : region) {
    if (inst.getKind() == kind)
      return true;
    for (ir::Region *nested : inst.getRegions())
      if (containsKind(*nested, kind))
        return true;
  }
  return false;
}

} // namespace

llvm::Error api::applyCompileConfiguration(const Configuration &config,
                                           const backend::CoreInfo &core,
                                           tc::LoweringOptions &lowering,
                                           backend::CompileOptions &compile) {
  // Each name belongs to the backend's table or the lowering's; the first
  // value out of its knob's range (in name order) is the error.
  for (const auto &[name, value] : config) {
    std::optional<std::string> outOfRange;
    if (const backend::BackendKnob *knob = backend::lookupBackendKnob(name))
      outOfRange = backend::checkKnobRange(*knob, value);
    else if (const tc::LoweringKnob *knob = tc::lookupLoweringKnob(name))
      outOfRange = tc::checkKnobRange(*knob, value);
    else
      return runtime::makeInputError("unknown tuning parameter '" + name + "'");
    if (outOfRange)
      return runtime::makeInputError(*outOfRange);
  }
  if (std::optional<std::string> reason = backend::checkGemmKnobs(config, core))
    return runtime::makeInputError(*reason);
  backend::applyGemmKnobs(config, compile);
  // Rows and runs per work-item where work-items run on vectors (CPU
  // cores): "Vector rows" and "Vector runs" in docs/lowering.md. A knob
  // may override them.
  bool vectorWorkItems =
      core.defaultSubgroupSize() == 1 && core.nativeVectorWidth > 1;
  lowering.vectorRows = vectorWorkItems ? 4 : 0;
  lowering.vectorRun = vectorWorkItems ? 4 * core.nativeVectorWidth : 0;
  // The sizes ascend: the smallest gives a work-group the most subgroups.
  unsigned smallestSubgroup =
      core.subgroupSizes.empty() ? 1 : core.subgroupSizes.front();
  lowering.maxSubgroups =
      std::max<int64_t>(1, core.maxWorkGroupSize / smallestSubgroup);
  tc::applyLoweringKnobs(config, core.dedicatedLocalMemory,
                         core.localMemoryBytes, lowering);
  // Group work 0 (`tc.group_work`'s default): on a GPU core a point per
  // work-item of the default work-group (docs/nvidia.md, "Defaults and the
  // tuning space"); elsewhere the lowering's own choice.
  if (lowering.groupWork == 0)
    lowering.groupWork = backend::getDefaultGroupWork(core);
  return llvm::Error::success();
}

void api::applyLaunchConfiguration(const Configuration &config,
                                   const tc::LoweredDef &lowered) {
  for (const tc::LoweredKernel &kernel : lowered.kernels)
    runtime::applyConfiguration(*kernel.function, config);
}

TcKnobs api::findTcKnobs(const tc::LoweredDef &lowered,
                         const ir::Program &defaultLowering) {
  TcKnobs knobs;
  static_cast<tc::LoweringKnobUse &>(knobs) = lowered.knobs;
  for (const ir::Function &function : defaultLowering)
    knobs.gemm |= containsKind(function.getBody(), ir::InstKind::Gemm);
  return knobs;
}

llvm::Expected<runtime::SearchSpace>
api::makeTcSearchSpace(const TcKnobs &knobs, const backend::CoreInfo &core,
                       const backend::KernelInfo &defaults) {
  auto space = runtime::makeWorkGroupSpace(core, defaults);
  if (!space)
    return space.takeError();
  for (const tc::LoweringKnobDomain &knob :
       tc::getLoweringKnobDomains(knobs, core.dedicatedLocalMemory))
    if (llvm::Error error =
            space->addParameter(knob.name, knob.values, knob.defaultValue))
      return error;
  if (!knobs.gemm)
    return space;
  for (const backend::KnobDomain &knob : backend::getGemmKnobDomains(core))
    if (llvm::Error error =
            space->addParameter(knob.name, knob.values, knob.defaultValue))
      return error;
  space->addConstraint([core](const Configuration &config) {
    return backend::checkGemmKnobs(config, core);
  });
  return space;
}

runtime::TuningKey api::makeTcTuningKey(const ir::Program &defaultLowering,
                                        const runtime::Runtime &runtime,
                                        llvm::StringRef entry,
                                        llvm::ArrayRef<std::string> sizeVars,
                                        const llvm::StringMap<int64_t> &sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(defaultLowering, os);
  std::string sizeText;
  llvm::raw_string_ostream sizeOs(sizeText);
  llvm::interleave(
      sizeVars, sizeOs,
      [&](const std::string &var) {
        sizeOs << var << "=" << sizes.lookup(var);
      },
      ",");
  const runtime::DeviceInfo &device = runtime.getDevice().getInfo();
  return runtime::TuningKey{runtime::hashKernelText(os.str()), device.name,
                            device.driverVersion, sizeOs.str(),
                            std::string(entry)};
}
