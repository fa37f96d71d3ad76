//===- RuntimeCommands.cpp - run, tune and devices ------------------------===//
#include "Options.h"

#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

static int unavailable(const char *what) {
  llvm::errs() << "comprehend: " << what << " is not built yet\n";
  return ExitUsage;
}

int runRun() { return unavailable("run"); }
int runTune() { return unavailable("tune"); }
int runDevices() { return unavailable("devices"); }

} // namespace comprehend::tools
