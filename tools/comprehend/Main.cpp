//===- Main.cpp - The comprehend command-line driver ----------------------===//
//
// Thin: parses flags, dispatches to one sub-command, maps the result to the
// exit codes of docs/design.md (0 ok, 1 invalid input, 2 usage, 3 runtime).
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "PhaseTimes.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace comprehend::tools;

static void printVersion(raw_ostream &os) {
  os << "comprehend " COMPREHEND_VERSION "\n"
     << "  Tensor Comprehensions and tensor language to SPIR-V for OpenCL\n";
}

int main(int argc, char **argv) {
  InitLLVM initLLVM(argc, argv);
  cl::SetVersionPrinter(printVersion);
  hideLLVMOptions();
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "Comprehend: compile, run and autotune tensor kernels\n\n"
          "  comprehend <command> --help  shows the options of a command\n",
          &errs()))
    return ExitUsage;

  struct CommandEntry {
    cl::SubCommand *command;
    int (*run)();
  };
  const CommandEntry commands[] = {
      {&CheckCommand, runCheck},   {&CompileCommand, runCompile},
      {&RangesCommand, runRanges}, {&RunCommand, runRun},
      {&TuneCommand, runTune},     {&DevicesCommand, runDevices},
      {&GradCommand, runGrad},
  };
  for (const CommandEntry &entry : commands) {
    if (!*entry.command)
      continue;
    if (entry.command != &DevicesCommand && InputFilename.empty()) {
      errs() << "comprehend " << entry.command->getName()
             << ": no input file (use '-' for standard input)\n";
      return ExitUsage;
    }
    startPhaseTimes();
    int code = entry.run();
    reportPhaseTimes(errs());
    return code;
  }
  errs() << "comprehend: no command given; try 'comprehend --help'\n";
  return ExitUsage;
}
