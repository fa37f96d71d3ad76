//===- TcTuning.cpp - The tuning knobs of a TC kernel ---------------------===//
#include "comprehend/api/TcTuning.h"

#include "comprehend/backend/Knobs.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningKernel.h"

#include "llvm/Support/SourceMgr.h"
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

std::string printProgram(const ir::Program &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(program, os);
  return text;
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
  tc::applyLoweringKnobs(config, core.dedicatedLocalMemory,
                         core.localMemoryBytes, lowering);
  return llvm::Error::success();
}

void api::applyLaunchConfiguration(const Configuration &config,
                                   const tc::LoweredDef &lowered) {
  for (const tc::LoweredKernel &kernel : lowered.kernels)
    runtime::applyConfiguration(*kernel.function, config);
}

TcKnobs api::findTcKnobs(const tc::Program &program, const tc::Def &def,
                         const llvm::StringMap<int64_t> &sizes,
                         const tc::LoweringOptions &base,
                         const ir::Program &defaultLowering,
                         const tc::DefRanges *ranges) {
  auto lowerProbe = [&](ir::Program &probe, DiagnosticEngine &quiet,
                        const tc::LoweringOptions &options) {
    return ranges ? tc::lowerDef(program, def, sizes, *ranges, probe, quiet,
                                 options)
                  : tc::lowerDef(program, def, sizes, probe, quiet, options);
  };
  std::string defaultText = printProgram(defaultLowering);
  // Lowers with one knob changed; a failure counts as no change.
  auto changes = [&](auto setKnob) {
    tc::LoweringOptions options = base;
    setKnob(options);
    llvm::SourceMgr sourceMgr;
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine quiet(sourceMgr, os);
    ir::Context ctx;
    ir::Program probe(ctx);
    if (!lowerProbe(probe, quiet, options) || quiet.hasErrors())
      return false;
    return printProgram(probe) != defaultText;
  };
  TcKnobs knobs;
  knobs.blocks = changes([](tc::LoweringOptions &options) {
    options.blockRows = options.blockCols = 64;
  });
  knobs.groupWork =
      changes([](tc::LoweringOptions &options) { options.groupWork = 1024; });
  knobs.localTemporaries = changes([](tc::LoweringOptions &options) {
    options.localMemoryBytes = options.localMemoryBytes > 0
                                   ? 0
                                   : tc::LoweringOptions().localMemoryBytes;
  });
  // The default follows a cost rule: the knob's default is what it chose.
  bool convOff =
      changes([](tc::LoweringOptions &options) { options.convAsGemm = false; });
  bool convOn =
      changes([](tc::LoweringOptions &options) { options.convAsGemm = true; });
  knobs.convGemm = convOff || convOn;
  knobs.convGemmDefault = convOff;
  // Vector runs: only where the core has them and the def's mapping
  // uses them.
  knobs.vectorRun =
      base.vectorRun > 0 &&
      changes([](tc::LoweringOptions &options) { options.vectorRun = 0; });
  knobs.vectorRunDefault = base.vectorRun;
  for (const ir::Function &function : defaultLowering)
    knobs.gemm |= containsKind(function.getBody(), ir::InstKind::Gemm);
  {
    tc::LoweringOptions options = base;
    options.useSchedule = true;
    llvm::SourceMgr sourceMgr;
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine quiet(sourceMgr, os);
    ir::Context ctx;
    ir::Program probe(ctx);
    std::optional<tc::LoweredDef> lowered = lowerProbe(probe, quiet, options);
    knobs.schedule = lowered && lowered->fromSchedule && !quiet.hasErrors();
  }
  knobs.scheduleDefault =
      knobs.schedule && changes([](tc::LoweringOptions &options) {
        options.useSchedule = false;
      });
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
  if (knobs.schedule)
    space->addConstraint(tc::checkMapperKnobs);
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
