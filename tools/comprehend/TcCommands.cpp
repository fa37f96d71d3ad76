//===- TcCommands.cpp - The Tensor Comprehensions half of the driver ------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace comprehend::tools {

namespace {
/// The source, diagnostics and checked program of one TC input file.
struct TcInput {
  SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  std::unique_ptr<tc::Program> program;
};
} // namespace

/// Loads and checks the input file; returns the exit code to use when it
/// is not ExitSuccess.
static int loadTcInput(TcInput &input, bool inferAllRanges) {
  if (failed(loadInputFile(InputFilename, input.sourceMgr)))
    return ExitUsage;
  input.diags.setWarningsAsErrors(WarningsAsErrors);
  input.program = tc::loadProgram(input.diags, input.sourceMgr.getMainFileID(),
                                  inferAllRanges);
  return input.program ? ExitSuccess : ExitInvalidInput;
}

int checkTcFile() {
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/true))
    return code;
  if (DumpAst)
    tc::print(*input.program, outs());
  return ExitSuccess;
}

int compileTcFile() {
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/true))
    return code;
  const tc::Def *entry = tc::findEntry(*input.program, Entry);
  if (!entry) {
    errs() << "comprehend compile: "
           << (Entry.empty() ? "the file defines no function"
                             : "no def named '" + Entry + "' in '" +
                                   InputFilename + "'")
           << "\n";
    return ExitUsage;
  }
  StringMap<int64_t> sizes;
  if (failed(parseSizes(Sizes, sizes)))
    return ExitUsage;
  for (const auto &size : sizes)
    if (!is_contained(entry->getSizeVars(), size.first())) {
      errs() << "comprehend compile: '" << size.first()
             << "' is not a size variable of '" << entry->getName().name
             << "'\n";
      return ExitUsage;
    }
  ir::Context ctx;
  ir::Program lowered(ctx);
  if (!tc::lowerDef(*input.program, *entry, sizes, lowered, input.diags) ||
      input.diags.hasErrors())
    return ExitInvalidInput;
  // The lowering must produce valid IR; a verifier error here is a bug of
  // the lowering, reported with the TC locations it carries.
  if (failed(ir::verify(lowered, input.diags)))
    return ExitInvalidInput;
  if (Emit != EmitKind::IR)
    return emitBackendOutput(lowered, input.diags);
  std::error_code error;
  ToolOutputFile output(OutputFilename.empty() ? std::string("-")
                                               : OutputFilename.getValue(),
                        error, sys::fs::OF_Text);
  if (error) {
    errs() << "comprehend compile: error: cannot write '" << OutputFilename
           << "': " << error.message() << "\n";
    return ExitInvalidInput;
  }
  ir::print(lowered, output.os());
  output.keep();
  return ExitSuccess;
}

int runRanges() {
  if (getInputLang() == InputLang::IR) {
    errs() << "comprehend ranges: '" << InputFilename
           << "' is not a TC file; ranges are inferred for .tc files only\n";
    return ExitUsage;
  }
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/false))
    return code;
  const tc::Def *entry = tc::findEntry(*input.program, Entry);
  if (!entry) {
    errs() << "comprehend ranges: "
           << (Entry.empty() ? "the file defines no function"
                             : "no def named '" + Entry + "' in '" +
                                   InputFilename + "'")
           << "\n";
    return ExitUsage;
  }
  StringMap<int64_t> sizes;
  if (failed(parseSizes(Sizes, sizes)))
    return ExitUsage;
  for (const auto &size : sizes)
    if (!is_contained(entry->getSizeVars(), size.first())) {
      errs() << "comprehend ranges: '" << size.first()
             << "' is not a size variable of '" << entry->getName().name
             << "'\n";
      return ExitUsage;
    }
  std::optional<tc::DefRanges> ranges =
      tc::inferRanges(*input.program, *entry, sizes, input.diags);
  if (!ranges || input.diags.hasErrors())
    return ExitInvalidInput;
  tc::printRangesJson(outs(), *entry, *ranges, sizes, input.sourceMgr);
  return ExitSuccess;
}

} // namespace comprehend::tools
