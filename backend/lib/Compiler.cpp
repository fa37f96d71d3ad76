//===- Compiler.cpp - From verified IR to SPIR-V --------------------------===//
#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/Spirv.h"

#include "Passes/Pass.h"
#include "spv/FunctionEmitter.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/TimeProfiler.h"

using namespace comprehend;
using namespace comprehend::backend;

/// The passes to run: --passes if given, else the default pipeline for the
/// optimization level.
static llvm::SmallVector<const PassInfo *, 8>
getPipeline(const CompileOptions &options, DiagnosticEngine &diags, bool &ok) {
  llvm::SmallVector<const PassInfo *, 8> pipeline;
  ok = true;
  if (!options.passes.empty()) {
    for (const std::string &name : options.passes) {
      const PassInfo *info = lookupPass(name);
      if (!info) {
        diags.emitError(Location()) << "unknown backend pass '" << name << "'";
        ok = false;
        continue;
      }
      pipeline.push_back(info);
    }
    return pipeline;
  }
  for (const PassInfo &info : getPassTable())
    if (info.minOptLevel <= options.optLevel)
      pipeline.push_back(&info);
  return pipeline;
}

LogicalResult comprehend::backend::lowerProgram(ir::Program &program,
                                                const CoreInfo &core,
                                                const CompileOptions &options,
                                                DiagnosticEngine &diags) {
  bool ok;
  llvm::SmallVector<const PassInfo *, 8> pipeline =
      getPipeline(options, diags, ok);
  if (!ok)
    return failure();
  llvm::TimeTraceScope scope("backend passes");
  PassContext context{core, options, diags};
  LogicalResult result = success();
  for (ir::Function &function : program) {
    for (const PassInfo *info : pipeline) {
      std::unique_ptr<Pass> pass = info->create();
      if (failed(pass->run(function, context))) {
        result = failure();
        break;
      }
      if (options.verifyEachPass && failed(ir::verify(function, diags))) {
        diags.emitError(function.getLoc())
            << "compiler bug: function '@" << function.getName()
            << "' is invalid after pass '" << info->name << "'";
        result = failure();
        break;
      }
    }
  }
  return result;
}

std::optional<CompiledProgram> comprehend::backend::emitProgram(
    const ir::Program &program, const CoreInfo &core,
    const CompileOptions &options, DiagnosticEngine &diags) {
  std::optional<CompiledProgram> compiled = [&] {
    llvm::TimeTraceScope scope("SPIR-V emission");
    return spv::emitModule(program, core, diags);
  }();
  if (!compiled || !options.validate)
    return compiled;
  llvm::TimeTraceScope scope("SPIR-V validation");
  if (llvm::Error error = validateSpirv(compiled->spirv, core)) {
    diags.emitError(program.empty() ? Location() : program.begin()->getLoc())
        << "compiler bug: generated SPIR-V failed validation: "
        << llvm::toString(std::move(error));
    return std::nullopt;
  }
  return compiled;
}

std::optional<CompiledProgram>
comprehend::backend::compileProgram(ir::Program &program, const CoreInfo &core,
                                    const CompileOptions &options,
                                    DiagnosticEngine &diags) {
  if (failed(lowerProgram(program, core, options, diags)))
    return std::nullopt;
  return emitProgram(program, core, options, diags);
}
