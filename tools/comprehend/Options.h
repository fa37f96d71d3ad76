//===- Options.h - Command-line options of the comprehend driver -*- C++
//-*-===//
//
// Every sub-command and option is declared once, in Options.cpp; the command
// implementations (one file per area) read them from here.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_OPTIONS_H
#define COMPREHEND_TOOLS_OPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace comprehend::tools {

/// The driver's exit codes (docs/design.md "Exit codes and diagnostics").
enum ExitCode : int {
  ExitSuccess = 0,
  ExitInvalidInput = 1, ///< diagnostics were printed
  ExitUsage = 2,
  ExitRuntime = 3, ///< device or runtime error
};

enum class EmitKind { IR, LoweredIR, Spirv, SpirvAsm, Ptx, Schedule };
enum class InputLang { Auto, IR, TC };

extern llvm::cl::SubCommand CheckCommand;
extern llvm::cl::SubCommand CompileCommand;
extern llvm::cl::SubCommand RangesCommand;
extern llvm::cl::SubCommand RunCommand;
extern llvm::cl::SubCommand TuneCommand;
extern llvm::cl::SubCommand DevicesCommand;
extern llvm::cl::SubCommand GradCommand;

extern llvm::cl::opt<std::string> InputFilename;
extern llvm::cl::opt<InputLang> Lang;
extern llvm::cl::opt<std::string> OutputFilename;
extern llvm::cl::opt<std::string> Entry;
extern llvm::cl::opt<std::string> Sizes;
extern llvm::cl::opt<std::string> Target;
extern llvm::cl::opt<EmitKind> Emit;
extern llvm::cl::opt<char> OptLevel;
extern llvm::cl::opt<bool> VerifySpirv;
extern llvm::cl::opt<std::string> Passes;
extern llvm::cl::list<std::string> PrintDefAfter;
extern llvm::cl::opt<bool> PrintDefAfterAll;
extern llvm::cl::opt<std::string> Config;
extern llvm::cl::opt<std::string> Grid;
extern llvm::cl::list<std::string> Args;
extern llvm::cl::opt<std::string> OutDir;
extern llvm::cl::opt<std::string> Device;
extern llvm::cl::opt<bool> Check;
extern llvm::cl::opt<unsigned> Repeat;
extern llvm::cl::opt<bool> Json;
extern llvm::cl::opt<double> Budget;
extern llvm::cl::opt<unsigned> Evals;
extern llvm::cl::opt<bool> Exhaustive;
extern llvm::cl::opt<std::string> CachePath;
extern llvm::cl::opt<bool> WarningsAsErrors;
extern llvm::cl::opt<bool> DumpAst;
extern llvm::cl::opt<std::string> Wrt;
extern llvm::cl::opt<bool> TimePhases;

/// Hides the options libLLVM registers (its code generators' flags) from
/// `comprehend --help`; they still parse, as in every LLVM tool.
void hideLLVMOptions();

/// The language of the input: --lang, else the file extension.
InputLang getInputLang();

// One entry point per sub-command; each returns an ExitCode.
int runCheck();
int runCompile();
int runRanges();
int runRun();
int runTune();
int runDevices();
int runGrad(); // GradCommand.cpp

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_OPTIONS_H
