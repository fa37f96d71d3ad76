//===- BackendCommands.cpp - `compile --emit lowered-ir|spirv|...|ptx` ----===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"

#include "comprehend/api/Pipeline.h"
#include "comprehend/runtime/Device.h"

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/backend/Ptx.h"
#include "comprehend/backend/Spirv.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

/// Reads -O, --passes and --verify into backend options; prints a one-line
/// reason and fails on a bad value.
static LogicalResult getCompileOptions(backend::CompileOptions &options) {
  if (OptLevel < '0' || OptLevel > '2') {
    llvm::errs() << "comprehend: unknown optimization level '-O" << OptLevel
                 << "'; expected -O0, -O1 or -O2\n";
    return failure();
  }
  options.optLevel = static_cast<unsigned>(OptLevel - '0');
  options.validate = VerifySpirv;
  options.verifyEachPass = VerifySpirv;
  llvm::SmallVector<llvm::StringRef, 8> names;
  llvm::StringRef(Passes).split(names, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef name : names) {
    name = name.trim();
    if (llvm::none_of(backend::getPassDescriptions(),
                      [&](const backend::PassDescription &pass) {
                        return pass.name == name;
                      })) {
      llvm::errs() << "comprehend: unknown pass '" << name
                   << "'; known passes:";
      for (const backend::PassDescription &pass :
           backend::getPassDescriptions())
        llvm::errs() << ' ' << pass.name;
      llvm::errs() << '\n';
      return failure();
    }
    options.passes.push_back(name.str());
  }
  return success();
}

std::optional<backend::CoreInfo> getCompileTarget(int &exitCode) {
  if (Device.getNumOccurrences()) {
    if (Target.getNumOccurrences()) {
      llvm::errs() << "comprehend compile: --target and --device both name "
                      "the core to compile for; give one\n";
      exitCode = ExitUsage;
      return std::nullopt;
    }
    llvm::Expected<runtime::Device> device = runtime::selectDevice(Device);
    if (!device) {
      exitCode = reportFailure(device.takeError(), "compile");
      return std::nullopt;
    }
    return device->getCoreInfo();
  }
  std::optional<backend::CoreInfo> core = backend::CoreInfo::getPreset(Target);
  if (!core) {
    llvm::errs() << "comprehend: unknown target '" << Target
                 << "'; expected one of:";
    for (llvm::StringRef name : backend::CoreInfo::getPresetNames())
      llvm::errs() << ' ' << name;
    llvm::errs() << '\n';
    exitCode = ExitUsage;
    return core;
  }
  if (Emit == EmitKind::Ptx && !core->isNvidia()) {
    llvm::errs() << "comprehend compile: --emit ptx needs an NVIDIA target "
                    "(--target nvidia-sm80); '"
                 << core->name << "' is not one\n";
    exitCode = ExitUsage;
    return std::nullopt;
  }
  return core;
}

/// Prints the PTX of \p spirv; a missing libclc is an installation
/// problem (exit 3), anything else a compiler bug.
static int emitPtxText(llvm::ArrayRef<uint32_t> spirv,
                       const backend::CoreInfo &core, llvm::raw_ostream &os) {
  llvm::Expected<std::string> ptx = backend::emitPtx(spirv, core);
  if (ptx) {
    os << *ptx;
    return ExitSuccess;
  }
  int exitCode = ExitInvalidInput;
  llvm::handleAllErrors(ptx.takeError(), [&](const backend::PtxError &error) {
    bool missing = error.getKind() == backend::PtxError::Kind::MissingLibclc;
    exitCode = missing ? ExitRuntime : ExitInvalidInput;
    llvm::errs() << "comprehend compile: "
                 << (missing ? "error" : "compiler bug") << ": "
                 << error.message()
                 << (missing ? "; set COMPREHEND_LIBCLC_NVPTX to its path" : "")
                 << '\n';
  });
  return exitCode;
}

/// Writes what --emit asks of \p program, compiled with \p options.
static int emitCompiled(ir::Program &program, const backend::CoreInfo &core,
                        const backend::CompileOptions &options,
                        DiagnosticEngine &diags) {
  std::error_code error;
  bool binary = Emit == EmitKind::Spirv;
  std::string outputPath =
      OutputFilename.empty() ? std::string("-") : OutputFilename.getValue();
  llvm::ToolOutputFile output(outputPath, error,
                              binary ? llvm::sys::fs::OF_None
                                     : llvm::sys::fs::OF_Text);
  if (error) {
    llvm::errs() << "comprehend: cannot open '" << OutputFilename
                 << "': " << error.message() << '\n';
    return ExitUsage;
  }

  if (failed(backend::lowerProgram(program, core, options, diags)))
    return ExitInvalidInput;
  if (Emit == EmitKind::LoweredIR) {
    ir::print(program, output.os());
    output.keep();
    return ExitSuccess;
  }
  std::optional<backend::CompiledProgram> compiled =
      backend::emitProgram(program, core, options, diags);
  if (!compiled)
    return ExitInvalidInput;
  if (Emit == EmitKind::Spirv) {
    output.os().write(reinterpret_cast<const char *>(compiled->spirv.data()),
                      compiled->spirv.size() * sizeof(uint32_t));
    output.keep();
    return ExitSuccess;
  }
  if (Emit == EmitKind::Ptx) {
    int code = emitPtxText(compiled->spirv, core, output.os());
    if (code == ExitSuccess)
      output.keep();
    return code;
  }
  llvm::Expected<std::string> text = backend::disassembleSpirv(compiled->spirv);
  if (!text) {
    llvm::errs() << "comprehend: compiler bug: "
                 << llvm::toString(text.takeError()) << '\n';
    return ExitInvalidInput;
  }
  output.os() << *text;
  output.keep();
  return ExitSuccess;
}

int emitBackendOutput(ir::Program &program, const backend::CoreInfo &core,
                      DiagnosticEngine &diags) {
  api::CompilationOptions base;
  if (failed(getCompileOptions(base.compile)))
    return ExitUsage;
  // --config of a .ir file: the backend knobs, and the launch shapes on
  // every function (the lowering knobs have nothing to act on).
  runtime::Configuration config;
  if (int code = getConfigOption("compile", config))
    return code;
  auto pipeline = api::Pipeline::configure(core, config, base);
  if (!pipeline) {
    llvm::errs() << "comprehend compile: error: "
                 << llvm::toString(pipeline.takeError()) << "\n";
    return ExitInvalidInput;
  }
  for (ir::Function &function : program)
    pipeline->configureLaunch(function);
  return emitCompiled(program, core, pipeline->getOptions().compile, diags);
}

int emitBackendOutput(ir::Program &program, const api::Pipeline &pipeline,
                      DiagnosticEngine &diags) {
  backend::CompileOptions options = pipeline.getOptions().compile;
  if (failed(getCompileOptions(options)))
    return ExitUsage;
  return emitCompiled(program, pipeline.getCore(), options, diags);
}

} // namespace comprehend::tools
