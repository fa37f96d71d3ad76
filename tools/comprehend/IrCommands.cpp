//===- IrCommands.cpp - The tensor-language half of the driver ------------===//
#include "Commands.h"
#include "Options.h"

#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

int checkIrFile() {
  llvm::errs() << "comprehend: the tensor-language parser is not built yet\n";
  return ExitUsage;
}

int compileIrFile() { return checkIrFile(); }

} // namespace comprehend::tools
