//===- Commands.h - Per-language halves of the commands --------*- C++ -*-===//
#ifndef COMPREHEND_TOOLS_COMMANDS_H
#define COMPREHEND_TOOLS_COMMANDS_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"

#include <optional>

namespace comprehend {
class DiagnosticEngine;
namespace ir {
class Program;
} // namespace ir
namespace api {
class Pipeline;
} // namespace api
} // namespace comprehend

namespace comprehend::tools {

// IrCommands.cpp: the tensor language.
int checkIrFile();
int compileIrFile();

// BackendCommands.cpp: the core `compile` targets (--target or --device;
// nullopt after printing why, with the exit code in \p exitCode), and
// `compile --emit lowered-ir|spirv|spirv-asm` of a verified program for it,
// with -O, --verify, --passes and (for a .ir file) --config.
std::optional<backend::CoreInfo> getCompileTarget(int &exitCode);
int emitBackendOutput(ir::Program &program, const backend::CoreInfo &core,
                      DiagnosticEngine &diags);
/// The same for a program lowered from a .tc file by \p pipeline, which
/// --config configured (its launch shapes are set already).
int emitBackendOutput(ir::Program &program, const api::Pipeline &pipeline,
                      DiagnosticEngine &diags);

// TcCommands.cpp: Tensor Comprehensions.
int checkTcFile();
int compileTcFile();

// TcRunCommand.cpp: `run` of a TC def, with --check against the evaluator.
int runTcFile();
int tuneTcFile();

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_COMMANDS_H
