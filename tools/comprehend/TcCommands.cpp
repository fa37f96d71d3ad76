//===- TcCommands.cpp - The Tensor Comprehensions half of the driver ------===//
#include "Commands.h"
#include "Options.h"

#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

int checkTcFile() {
  llvm::errs() << "comprehend: the TC frontend is not built yet\n";
  return ExitUsage;
}

int compileTcFile() { return checkTcFile(); }

int runRanges() { return checkTcFile(); }

} // namespace comprehend::tools
