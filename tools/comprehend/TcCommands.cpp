//===- TcCommands.cpp - The Tensor Comprehensions half of the driver ------===//
#include "Commands.h"
#include "Input.h"
#include "Options.h"
#include "TcInput.h"

#include "comprehend/api/Pipeline.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/tc/Frontend.h"

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

/// `--emit schedule`: the schedule of the def of \p source.
static int printTcSchedule(TcInput &input, const api::Pipeline &pipeline,
                           const api::TcSource &source) {
  if (failed(pipeline.printSchedule(source, outs(), input.diags))) {
    noteMissingSizes("compile", *source.def, source.sizes);
    return ExitInvalidInput;
  }
  return ExitSuccess;
}

/// `--print-def-after` and `--print-def-after-all`: a hook of the lowering
/// options that prints the def on stderr after those def-level passes;
/// unset when neither is given.
static std::function<raw_ostream *(StringRef)> getPrintDefAfter() {
  if (!PrintDefAfterAll && PrintDefAfter.empty())
    return nullptr;
  return [](StringRef pass) -> raw_ostream * {
    if (PrintDefAfterAll || is_contained(PrintDefAfter, pass))
      return &errs();
    return nullptr;
  };
}

/// Fails (a usage error) on a `--print-def-after` name that is no def-level
/// pass.
static int checkPrintDefAfterNames() {
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
  api::CompilationOptions base;
  base.lowering.printDefAfter = getPrintDefAfter();
  auto pipeline = api::Pipeline::configure(*core, config, base);
  if (!pipeline) {
    errs() << "comprehend compile: error: " << toString(pipeline.takeError())
           << "\n";
    return ExitInvalidInput;
  }
  if (int code = checkPrintDefAfterNames())
    return code;
  api::TcSource source{input.program.get(), entry, sizes, std::nullopt};
  if (Emit == EmitKind::Schedule)
    return printTcSchedule(input, *pipeline, source);
  auto lowered = pipeline->lower(source, input.diags);
  if (!lowered) {
    // The diagnostics say why.
    consumeError(lowered.takeError());
    noteMissingSizes("compile", *entry, sizes);
    return ExitInvalidInput;
  }
  if (Emit != EmitKind::IR)
    return emitBackendOutput(*lowered->program, *pipeline, input.diags);
  std::error_code error;
  ToolOutputFile output(OutputFilename.empty() ? std::string("-")
                                               : OutputFilename.getValue(),
                        error, sys::fs::OF_Text);
  if (error) {
    errs() << "comprehend compile: error: cannot write '" << OutputFilename
           << "': " << error.message() << "\n";
    return ExitInvalidInput;
  }
  ir::print(*lowered->program, output.os());
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
