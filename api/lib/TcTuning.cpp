//===- TcTuning.cpp - The tuning knobs of a TC kernel ---------------------===//
#include "comprehend/api/TcTuning.h"

#include "comprehend/backend/Knobs.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
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
  for (const KnobDomain &knob :
       tc::getLoweringKnobDomains(knobs, core.dedicatedLocalMemory))
    if (llvm::Error error =
            space->addParameter(knob.name, knob.values, knob.defaultValue))
      return error;
  if (!knobs.gemm)
    return space;
  for (const KnobDomain &knob : backend::getGemmKnobDomains(core))
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
