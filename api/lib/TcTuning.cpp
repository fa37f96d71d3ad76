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

/// The first name of `config` (in name order) that neither the backend's
/// knob table nor the lowering's has, or whose value is out of its range.
static llvm::Error checkKnobNames(const Configuration &config) {
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
  return llvm::Error::success();
}

llvm::Expected<CompilationOptions>
api::configureCompilation(const backend::CoreInfo &core,
                          const Configuration &config,
                          const CompilationOptions &base) {
  if (llvm::Error error = checkKnobNames(config))
    return error;
  if (std::optional<std::string> reason = backend::checkGemmKnobs(config, core))
    return runtime::makeInputError(*reason);
  CompilationOptions options = base;
  backend::applyGemmKnobs(config, options.compile);
  tc::CoreShape shape;
  shape.defaultSubgroupSize = core.defaultSubgroupSize();
  shape.nativeVectorWidth = core.nativeVectorWidth;
  shape.smallestSubgroupSize =
      core.subgroupSizes.empty() ? 1 : core.subgroupSizes.front();
  shape.maxWorkGroupSize = core.maxWorkGroupSize;
  shape.computeUnits = core.computeUnits;
  options.lowering = tc::LoweringOptions::forCore(shape, base.lowering);
  tc::applyLoweringKnobs(config, core.dedicatedLocalMemory,
                         core.localMemoryBytes, options.lowering);
  // Group work 0 (`tc.group_work`'s default, or the knob set to 0): on a
  // GPU core a point per work-item of the default work-group
  // (docs/nvidia.md, "Defaults and the tuning space"); elsewhere the
  // lowering's own choice. After the knobs, so the knob's 0 means it too.
  if (options.lowering.groupWork == 0)
    options.lowering.groupWork = backend::getDefaultGroupWork(core);
  return options;
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
