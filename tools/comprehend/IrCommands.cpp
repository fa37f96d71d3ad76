//===- IrCommands.cpp - The tensor-language half of the driver ------------===//
//
// `check` and `compile` for `.ir` input: parse (resolving the preprocessor)
// and verify; `--emit ir` prints the program back, the other emit kinds go to
// the backend (BackendCommands.cpp).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

namespace {

/// One parsed and verified `.ir` input with everything it points into.
struct IrInput {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  ir::Context ctx;
  std::unique_ptr<ir::Program> program;
};

/// Loads, parses and verifies the input file. Returns an exit code; the
/// program is set only on success.
int loadProgram(IrInput &input) {
  if (failed(loadInputFile(InputFilename, input.sourceMgr)))
    return ExitInvalidInput;
  input.diags.setWarningsAsErrors(WarningsAsErrors);
  std::unique_ptr<ir::Program> program =
      ir::parseSource(input.ctx, input.diags, input.sourceMgr.getMainFileID());
  if (!program || failed(ir::verify(*program, input.diags)) ||
      input.diags.hasErrors())
    return ExitInvalidInput;
  input.program = std::move(program);
  return ExitSuccess;
}

} // namespace

int checkIrFile() {
  IrInput input;
  return loadProgram(input);
}

int compileIrFile() {
  IrInput input;
  if (int code = loadProgram(input))
    return code;
  if (Emit == EmitKind::Schedule) {
    llvm::errs() << "comprehend compile: '--emit schedule' needs a .tc file\n";
    return ExitUsage;
  }
  if (Emit != EmitKind::IR) {
    int exitCode = ExitSuccess;
    std::optional<backend::CoreInfo> core = getCompileTarget(exitCode);
    if (!core)
      return exitCode;
    return emitBackendOutput(*input.program, *core, input.diags);
  }

  const ir::Function *entry = nullptr;
  if (!Entry.empty()) {
    entry = input.program->lookupFunction(Entry);
    if (!entry) {
      llvm::errs() << "comprehend compile: error: no function '@" << Entry
                   << "' in '" << InputFilename << "'\n";
      return ExitInvalidInput;
    }
  }

  std::error_code error;
  llvm::ToolOutputFile output(OutputFilename, error, llvm::sys::fs::OF_Text);
  if (error) {
    llvm::errs() << "comprehend compile: error: cannot write '"
                 << OutputFilename << "': " << error.message() << "\n";
    return ExitInvalidInput;
  }
  if (entry)
    ir::print(*entry, output.os());
  else
    ir::print(*input.program, output.os());
  output.keep();
  return ExitSuccess;
}

} // namespace comprehend::tools
