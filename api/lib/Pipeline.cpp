//===- Pipeline.cpp - From a def or a program to a launchable kernel ------===//
//
// The steps in the order they run (Pipeline.h draws them): configure, infer
// ranges, lower, verify, set the launch attributes, check that the tensors
// fit, run the backend and build the device's program.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/Pipeline.h"

#include "comprehend/backend/Knobs.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/MemoryLimits.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::api;
using runtime::Configuration;

std::optional<runtime::DType> api::getDType(tc::ScalarType type) {
  // The API moves tensors of these four types only.
  if (type != tc::ScalarType::Float && type != tc::ScalarType::Double &&
      type != tc::ScalarType::Int32 && type != tc::ScalarType::Int64)
    return std::nullopt;
  return runtime::toDType(*tc::toIrScalarKind(type));
}

int64_t api::getNumElements(const tc::LoweredTensor &tensor) {
  int64_t count = 1;
  for (int64_t extent : tensor.shape)
    count *= extent;
  return count;
}

//===----------------------------------------------------------------------===//
// Configure: a configuration becomes options.
//===----------------------------------------------------------------------===//

/// The first name of `config` (in name order) that neither the backend's
/// knob table nor the lowering's has, or whose value is out of its range.
static llvm::Error checkKnobNames(const Configuration &config) {
  for (const auto &[name, value] : config) {
    const KnobSpec *knob = lookupKnob(backend::getBackendKnobs(), name);
    if (!knob)
      knob = lookupKnob(tc::getLoweringKnobs(), name);
    if (!knob)
      return runtime::makeInputError("unknown tuning parameter '" + name + "'");
    if (std::optional<std::string> outOfRange = checkKnobRange(*knob, value))
      return runtime::makeInputError(*outOfRange);
  }
  return llvm::Error::success();
}

/// The numbers of `core` that the lowering's cost rules read (the lowering
/// does not depend on the backend).
static tc::CoreShape getCoreShape(const backend::CoreInfo &core) {
  tc::CoreShape shape;
  shape.defaultSubgroupSize = core.defaultSubgroupSize();
  shape.nativeVectorWidth = core.nativeVectorWidth;
  shape.smallestSubgroupSize =
      core.subgroupSizes.empty() ? 1 : core.subgroupSizes.front();
  shape.maxWorkGroupSize = core.maxWorkGroupSize;
  shape.computeUnits = core.computeUnits;
  return shape;
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
  options.lowering =
      tc::LoweringOptions::forCore(getCoreShape(core), base.lowering);
  tc::applyLoweringKnobs(config, core.dedicatedLocalMemory,
                         core.localMemoryBytes, options.lowering);
  // Group work 0 (`tc.group_work`'s default, or the knob set to 0): the
  // backend's rule for the core (a point per work-item of the default
  // work-group on a GPU, docs/nvidia.md), else the lowering's own choice.
  // After the knobs, so the knob's 0 means it too.
  if (options.lowering.groupWork == 0)
    options.lowering.groupWork = backend::getDefaultGroupWork(core);
  return options;
}

llvm::Expected<Pipeline> Pipeline::configure(const backend::CoreInfo &core,
                                             const Configuration &config,
                                             const CompilationOptions &base) {
  auto options = configureCompilation(core, config, base);
  if (!options)
    return options.takeError();
  return Pipeline(core, config, std::move(*options));
}

std::function<llvm::Error(const Configuration &)>
Pipeline::configureInto(std::optional<Pipeline> &chosen,
                        const backend::CoreInfo &core,
                        const CompilationOptions &base) {
  return [&chosen, &core, &base](const Configuration &config) -> llvm::Error {
    auto configured = configure(core, config, base);
    if (!configured)
      return configured.takeError();
    chosen = std::move(*configured);
    return llvm::Error::success();
  };
}

void Pipeline::configureLaunch(ir::Function &function) const {
  // An empty configuration leaves the attributes as the lowering or the
  // source wrote them.
  if (!config.empty())
    runtime::applyConfiguration(function, config);
}

//===----------------------------------------------------------------------===//
// A TC def: ranges, lowering, verifier.
//===----------------------------------------------------------------------===//

void TcSource::inferRanges() {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine quiet(sourceMgr, llvm::nulls());
  ranges = tc::inferRanges(*program, *def, sizes, quiet);
}

llvm::Expected<LoweredProgram> Pipeline::lower(const TcSource &source,
                                               DiagnosticEngine &diags) const {
  const tc::LoweringOptions &lowering = options.lowering;
  LoweredProgram result;
  result.context = std::make_unique<ir::Context>();
  result.program = std::make_unique<ir::Program>(*result.context);
  std::optional<tc::LoweredDef> lowered =
      source.ranges
          ? tc::lowerDef(*source.program, *source.def, source.sizes,
                         *source.ranges, *result.program, diags, lowering)
          : tc::lowerDef(*source.program, *source.def, source.sizes,
                         *result.program, diags, lowering);
  // The lowering must produce valid IR; a verifier error is a bug of the
  // lowering, reported with the TC locations it carries.
  if (!lowered || diags.hasErrors() ||
      failed(ir::verify(*result.program, diags)))
    return runtime::makeInputError("'" + source.def->getName().name +
                                   "' cannot be compiled (see the "
                                   "diagnostics)");
  result.def = std::move(*lowered);
  for (const tc::LoweredKernel &kernel : result.def.kernels)
    configureLaunch(*kernel.function);
  return result;
}

LogicalResult Pipeline::printSchedule(const TcSource &source,
                                      llvm::raw_ostream &os,
                                      DiagnosticEngine &diags) const {
  if (failed(tc::printSchedule(*source.program, *source.def, source.sizes, os,
                               diags, options.lowering)) ||
      diags.hasErrors())
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// The device: tensors, backend, program.
//===----------------------------------------------------------------------===//

/// Whether the tensors of `lowered` fit the device and the host (a device
/// error naming the first that does not), before any is allocated.
static llvm::Error checkTensorsFit(const runtime::Runtime &runtime,
                                   const tc::LoweredDef &lowered) {
  std::vector<runtime::TensorBytes> footprint;
  for (const tc::LoweredTensor &tensor : lowered.tensors) {
    std::optional<runtime::DType> dtype = getDType(tensor.type);
    std::optional<uint64_t> bytes = 1;
    for (int64_t extent : tensor.shape)
      bytes = bytes ? runtime::multiplyBytes(*bytes, extent) : std::nullopt;
    if (bytes && dtype)
      bytes = runtime::multiplyBytes(*bytes, runtime::getDTypeSize(*dtype));
    footprint.push_back({tensor.name, bytes});
  }
  return runtime::checkTensorsFit(
      footprint, runtime::MemoryLimits::of(runtime.getDevice().getInfo()));
}

llvm::Expected<std::unique_ptr<runtime::Executable>>
Pipeline::build(runtime::Runtime &runtime, ir::Program &program,
                DiagnosticEngine &diags) const {
  return runtime::Executable::compile(runtime, program, diags, options.compile);
}

llvm::Expected<CompiledDef> Pipeline::build(runtime::Runtime &runtime,
                                            LoweredProgram lowered,
                                            DiagnosticEngine &diags) const {
  if (llvm::Error error = checkTensorsFit(runtime, lowered.def))
    return error;
  auto executable = build(runtime, *lowered.program, diags);
  if (!executable)
    return executable.takeError();
  CompiledDef compiled;
  static_cast<LoweredProgram &>(compiled) = std::move(lowered);
  compiled.executable = std::move(*executable);
  return compiled;
}

llvm::Expected<CompiledDef> Pipeline::compile(runtime::Runtime &runtime,
                                              const TcSource &source,
                                              DiagnosticEngine &diags) const {
  auto lowered = lower(source, diags);
  if (!lowered)
    return lowered.takeError();
  return build(runtime, std::move(*lowered), diags);
}
