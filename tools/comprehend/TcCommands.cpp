//===- TcCommands.cpp - The Tensor Comprehensions half of the driver ------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "TcInput.h"

#include "comprehend/api/TcTuning.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/TuningKernel.h"
#include "comprehend/tc/Frontend.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace comprehend::tools {

int loadTcInput(TcInput &input, bool inferAllRanges) {
  if (failed(loadInputFile(InputFilename, input.sourceMgr)))
    return ExitUsage;
  input.diags.setWarningsAsErrors(WarningsAsErrors);
  input.program = tc::loadProgram(input.diags, input.sourceMgr.getMainFileID(),
                                  inferAllRanges);
  return input.program ? ExitSuccess : ExitInvalidInput;
}

int selectTcEntry(StringRef command, const tc::Program &program,
                  const tc::Def *&entry, StringMap<int64_t> &sizes) {
  entry = tc::findEntry(program, Entry);
  if (!entry) {
    errs() << "comprehend " << command << ": "
           << (Entry.empty()
                   ? "the file defines no function"
                   : "no def named '" + Entry + "' in '" + InputFilename + "'")
           << "\n";
    return ExitUsage;
  }
  if (failed(parseSizes(Sizes, sizes)))
    return ExitUsage;
  for (const auto &size : sizes)
    if (!is_contained(entry->getSizeVars(), size.first())) {
      errs() << "comprehend " << command << ": '" << size.first()
             << "' is not a size variable of '" << entry->getName().name
             << "'\n";
      return ExitUsage;
    }
  return ExitSuccess;
}

/// The lowering says that a size variable has no value; the driver says how
/// to give one.
static void noteMissingSizes(StringRef command, const tc::Def &entry,
                             const StringMap<int64_t> &sizes) {
  std::string missing;
  for (const std::string &var : entry.getSizeVars())
    if (!sizes.count(var))
      missing += (missing.empty() ? "" : ",") + var + "=...";
  if (!missing.empty())
    errs() << "comprehend " << command << ": note: give the sizes with --sizes "
           << missing << "\n";
}

/// `--emit schedule`: the schedule of \p entry at \p sizes.
static int printTcSchedule(TcInput &input, const tc::Def &entry,
                           const StringMap<int64_t> &sizes,
                           const tc::LoweringOptions &options) {
  if (failed(tc::printSchedule(*input.program, entry, sizes, outs(),
                               input.diags, options)) ||
      input.diags.hasErrors()) {
    noteMissingSizes("compile", entry, sizes);
    return ExitInvalidInput;
  }
  return ExitSuccess;
}

/// `--print-def-after` and `--print-def-after-all`: \p options print the
/// def on stderr after those def-level passes. Fails (a usage error) on a
/// name that is no def-level pass.
static int getPrintDefAfterOption(tc::LoweringOptions &options) {
  for (StringRef name : PrintDefAfter)
    if (none_of(tc::getDefPassDescriptions(),
                [&](const tc::DefPassDescription &pass) {
                  return pass.name == name;
                })) {
      errs() << "comprehend: unknown def pass '" << name
             << "'; known def passes:";
      for (const tc::DefPassDescription &pass : tc::getDefPassDescriptions())
        errs() << ' ' << pass.name;
      errs() << '\n';
      return ExitUsage;
    }
  if (PrintDefAfterAll || !PrintDefAfter.empty())
    options.printDefAfter = [](StringRef pass) -> raw_ostream * {
      if (PrintDefAfterAll || is_contained(PrintDefAfter, pass))
        return &errs();
      return nullptr;
    };
  return ExitSuccess;
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
  const tc::Def *entry = nullptr;
  StringMap<int64_t> sizes;
  if (int code = selectTcEntry("compile", *input.program, entry, sizes))
    return code;
  // --config may set any knob; they are checked against the target.
  runtime::Configuration config;
  if (int code = getConfigOption("compile", config))
    return code;
  int exitCode = ExitSuccess;
  std::optional<backend::CoreInfo> core = getCompileTarget(exitCode);
  if (!core)
    return exitCode;
  auto configured = api::configureCompilation(*core, config);
  if (!configured) {
    errs() << "comprehend compile: error: " << toString(configured.takeError())
           << "\n";
    return ExitInvalidInput;
  }
  tc::LoweringOptions options = configured->lowering;
  if (int code = getPrintDefAfterOption(options))
    return code;
  if (Emit == EmitKind::Schedule)
    return printTcSchedule(input, *entry, sizes, options);
  ir::Context ctx;
  ir::Program lowered(ctx);
  if (!tc::lowerDef(*input.program, *entry, sizes, lowered, input.diags,
                    options) ||
      input.diags.hasErrors()) {
    noteMissingSizes("compile", *entry, sizes);
    return ExitInvalidInput;
  }
  // The lowering must produce valid IR; a verifier error here is a bug of
  // the lowering, reported with the TC locations it carries.
  if (failed(ir::verify(lowered, input.diags)))
    return ExitInvalidInput;
  for (ir::Function &function : lowered)
    if (!config.empty())
      runtime::applyConfiguration(function, config);
  if (Emit != EmitKind::IR)
    return emitBackendOutput(lowered, *core, configured->compile, input.diags);
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
  const tc::Def *entry = nullptr;
  StringMap<int64_t> sizes;
  if (int code = selectTcEntry("ranges", *input.program, entry, sizes))
    return code;
  std::optional<tc::DefRanges> ranges =
      tc::inferRanges(*input.program, *entry, sizes, input.diags);
  if (!ranges || input.diags.hasErrors())
    return ExitInvalidInput;
  tc::printRangesJson(outs(), *entry, *ranges, sizes, input.sourceMgr);
  return ExitSuccess;
}

} // namespace comprehend::tools
