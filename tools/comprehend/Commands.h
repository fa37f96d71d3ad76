//===- Commands.h - Per-language halves of the driver's commands -*- C++
//-*-===//
#ifndef COMPREHEND_TOOLS_COMMANDS_H
#define COMPREHEND_TOOLS_COMMANDS_H

namespace comprehend {
class DiagnosticEngine;
namespace ir {
class Program;
} // namespace ir
} // namespace comprehend

namespace comprehend::tools {

// IrCommands.cpp: the tensor language.
int checkIrFile();
int compileIrFile();

// BackendCommands.cpp: `compile --emit lowered-ir|spirv|spirv-asm` of a
// verified program, with --target, -O, --verify and --passes.
int emitBackendOutput(ir::Program &program, DiagnosticEngine &diags);

// TcCommands.cpp: Tensor Comprehensions.
int checkTcFile();
int compileTcFile();

// TcRunCommand.cpp: `run` of a TC def, with --check against the evaluator.
int runTcFile();
int tuneTcFile();

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_COMMANDS_H
