//===- Commands.h - Per-language halves of the driver's commands -*- C++ -*-===//
#ifndef COMPREHEND_TOOLS_COMMANDS_H
#define COMPREHEND_TOOLS_COMMANDS_H

namespace comprehend::tools {

// IrCommands.cpp: the tensor language.
int checkIrFile();
int compileIrFile();

// TcCommands.cpp: Tensor Comprehensions.
int checkTcFile();
int compileTcFile();

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_COMMANDS_H
