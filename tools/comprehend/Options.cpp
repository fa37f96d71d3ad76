//===- Options.cpp - Command-line options of the comprehend driver --------===//
#include "Options.h"

#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace comprehend::tools {

cl::SubCommand CheckCommand("check", "Parse and verify a .ir or .tc file");
cl::SubCommand CompileCommand("compile",
                              "Compile a .ir or .tc file to IR, SPIR-V or PTX");
cl::SubCommand
    RangesCommand("ranges",
                  "Print the inferred index ranges of a .tc file as JSON");
cl::SubCommand RunCommand("run", "Run a kernel on an OpenCL or CUDA device");
cl::SubCommand TuneCommand("tune",
                           "Autotune a kernel on an OpenCL or CUDA device");
cl::SubCommand
    DevicesCommand("devices",
                   "List OpenCL and CUDA devices and their core info");
cl::SubCommand GradCommand("grad",
                           "Print the derived backward def of a .tc def");

static cl::OptionCategory category("comprehend options");

cl::opt<std::string> InputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::sub(CheckCommand),
                                   cl::sub(CompileCommand),
                                   cl::sub(RangesCommand), cl::sub(RunCommand),
                                   cl::sub(TuneCommand), cl::sub(GradCommand),
                                   cl::cat(category));

cl::opt<InputLang>
    Lang("lang", cl::desc("Input language (default: from the file extension)"),
         cl::values(clEnumValN(InputLang::IR, "ir", "tensor language"),
                    clEnumValN(InputLang::TC, "tc", "Tensor Comprehensions")),
         cl::init(InputLang::Auto), cl::sub(CheckCommand),
         cl::sub(CompileCommand), cl::sub(RangesCommand), cl::sub(RunCommand),
         cl::sub(TuneCommand), cl::cat(category));

cl::opt<std::string> OutputFilename("o", cl::desc("Output file (default: -)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::sub(CompileCommand), cl::cat(category));

cl::opt<std::string> Entry("entry", cl::desc("Function (def) to use"),
                           cl::value_desc("name"), cl::sub(CompileCommand),
                           cl::sub(RangesCommand), cl::sub(RunCommand),
                           cl::sub(TuneCommand), cl::sub(GradCommand),
                           cl::cat(category));

cl::opt<std::string>
    Wrt("wrt",
        cl::desc("Inputs to differentiate, e.g. --wrt A,B (default: every "
                 "floating-point input)"),
        cl::value_desc("A,B"), cl::sub(GradCommand), cl::cat(category));

cl::opt<std::string> Sizes("sizes",
                           cl::desc("Size variables, e.g. --sizes M=64,N=32"),
                           cl::value_desc("M=..,N=.."), cl::sub(CompileCommand),
                           cl::sub(RangesCommand), cl::sub(RunCommand),
                           cl::sub(TuneCommand), cl::cat(category));

cl::opt<std::string> Target(
    "target",
    cl::desc(
        "Target core preset (pocl-cpu, generic-sg8, "
        "generic-sg16, generic-sg32, nvidia-sm80); --device instead compiles "
        "for an OpenCL device's core, as run does"),
    cl::value_desc("core"), cl::init("pocl-cpu"), cl::sub(CompileCommand),
    cl::cat(category));

cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to emit"),
    cl::values(clEnumValN(EmitKind::IR, "ir", "the tensor language program"),
               clEnumValN(EmitKind::LoweredIR, "lowered-ir",
                          "the program after the backend passes"),
               clEnumValN(EmitKind::Spirv, "spirv", "SPIR-V binary"),
               clEnumValN(EmitKind::SpirvAsm, "spirv-asm", "SPIR-V assembly"),
               clEnumValN(EmitKind::Ptx, "ptx",
                          "PTX for an NVIDIA target (e.g. nvidia-sm80)"),
               clEnumValN(EmitKind::Schedule, "schedule",
                          "the mapped isl schedule and AST (.tc only)")),
    cl::init(EmitKind::IR), cl::sub(CompileCommand), cl::cat(category));

cl::opt<char> OptLevel("O", cl::desc("Optimization level (-O0, -O1, -O2)"),
                       cl::Prefix, cl::init('2'), cl::sub(CompileCommand),
                       cl::sub(RunCommand), cl::sub(TuneCommand),
                       cl::cat(category));

cl::opt<bool> VerifySpirv("verify",
                          cl::desc("Validate the SPIR-V with SPIRV-Tools"),
                          cl::init(false), cl::sub(CompileCommand),
                          cl::cat(category));

cl::opt<std::string> Passes("passes",
                            cl::desc("Run exactly these backend passes"),
                            cl::value_desc("a,b,..."), cl::Hidden,
                            cl::sub(CompileCommand), cl::cat(category));

cl::list<std::string> PrintDefAfter(
    "print-def-after",
    cl::desc("Print the def as TC source on stderr after these def-level "
             "passes of the TC lowering"),
    cl::value_desc("a,b,..."), cl::CommaSeparated, cl::sub(CompileCommand),
    cl::cat(category));

cl::opt<bool> PrintDefAfterAll(
    "print-def-after-all",
    cl::desc("Print the def as TC source on stderr after every def-level "
             "pass of the TC lowering"),
    cl::init(false), cl::sub(CompileCommand), cl::cat(category));

cl::opt<std::string>
    Config("config", cl::desc("Tuning configuration (JSON text or file)"),
           cl::value_desc("json"), cl::sub(CompileCommand), cl::sub(RunCommand),
           cl::cat(category));

cl::opt<std::string> Grid("grid", cl::desc("Number of work-groups (.ir only)"),
                          cl::value_desc("X,Y,Z"), cl::sub(RunCommand),
                          cl::sub(TuneCommand), cl::cat(category));

cl::list<std::string> Args("arg",
                           cl::desc("Argument value: NAME=FILE.npy or "
                                    "NAME=VALUE (random where not given)"),
                           cl::value_desc("NAME=FILE.npy|VALUE"),
                           cl::sub(RunCommand), cl::sub(TuneCommand),
                           cl::cat(category));

cl::opt<std::string> OutDir("out", cl::desc("Write outputs as .npy here"),
                            cl::value_desc("dir"), cl::sub(RunCommand),
                            cl::cat(category));

cl::opt<std::string> Device(
    "device",
    cl::desc("Device: index, cuda[:N], opencl[:N] or name substring (default: "
             "$COMPREHEND_DEVICE, else the first device that runs our "
             "SPIR-V); for compile, instead of --target"),
    cl::value_desc("N|name"), cl::sub(CompileCommand), cl::sub(RunCommand),
    cl::sub(TuneCommand), cl::sub(DevicesCommand), cl::cat(category));

cl::opt<bool> Check("check",
                    cl::desc("Compare with the reference evaluator (.tc)"),
                    cl::init(false), cl::sub(RunCommand), cl::cat(category));

cl::opt<unsigned> Repeat("repeat", cl::desc("Timed launches (median)"),
                         cl::init(10), cl::sub(RunCommand),
                         cl::sub(TuneCommand), cl::cat(category));

cl::opt<bool> Json("json", cl::desc("Print one JSON object on stdout"),
                   cl::init(false), cl::sub(RunCommand), cl::sub(TuneCommand),
                   cl::sub(DevicesCommand), cl::cat(category));

cl::opt<double> Budget("budget", cl::desc("Tuning time budget in seconds"),
                       cl::init(0), cl::sub(TuneCommand), cl::cat(category));

cl::opt<unsigned> Evals("evals", cl::desc("Tuning budget in evaluations"),
                        cl::init(0), cl::sub(TuneCommand), cl::cat(category));

cl::opt<bool> Exhaustive(
    "exhaustive",
    cl::desc("Time every legal configuration (small spaces) and report how "
             "well the genetic search finds the best one"),
    cl::init(false), cl::sub(TuneCommand), cl::cat(category));

cl::opt<std::string>
    CachePath("cache",
              cl::desc("Tuning cache file (default: "
                       "$XDG_CACHE_HOME/comprehend/tuning.json)"),
              cl::value_desc("path"), cl::sub(RunCommand), cl::sub(TuneCommand),
              cl::cat(category));

cl::opt<bool> WarningsAsErrors("Werror", cl::desc("Treat warnings as errors"),
                               cl::init(false), cl::sub(CheckCommand),
                               cl::sub(CompileCommand), cl::sub(RangesCommand),
                               cl::sub(RunCommand), cl::cat(category));

cl::opt<bool> DumpAst("dump-ast",
                      cl::desc("Print the checked TC program, every binary "
                               "operation parenthesised (.tc only)"),
                      cl::init(false), cl::sub(CheckCommand),
                      cl::cat(category));

cl::opt<bool> TimePhases(
    "time-phases",
    cl::desc("Print the time spent in each phase (parse, ranges, lowering, "
             "backend, SPIR 1.2 bridge, device build, run) on stderr"),
    cl::init(false), cl::sub(CheckCommand), cl::sub(CompileCommand),
    cl::sub(RunCommand), cl::sub(TuneCommand), cl::cat(category));

void hideLLVMOptions() { cl::HideUnrelatedOptions(category); }

InputLang getInputLang() {
  if (Lang != InputLang::Auto)
    return Lang;
  StringRef name = InputFilename;
  if (name.endswith(".tc"))
    return InputLang::TC;
  if (name.endswith(".ir"))
    return InputLang::IR;
  return InputLang::Auto;
}

} // namespace comprehend::tools
