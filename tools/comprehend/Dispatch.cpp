//===- Dispatch.cpp - Commands that take either language ------------------===//
#include "Commands.h"
#include "Options.h"

#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

static int dispatch(llvm::StringRef command, int (*ir)(), int (*tc)()) {
  switch (getInputLang()) {
  case InputLang::IR:
    return ir();
  case InputLang::TC:
    return tc();
  case InputLang::Auto:
    break;
  }
  llvm::errs() << "comprehend " << command << ": cannot tell the language of '"
               << InputFilename << "'; name it .ir or .tc or pass --lang\n";
  return ExitUsage;
}

int runCheck() { return dispatch("check", checkIrFile, checkTcFile); }

int runCompile() { return dispatch("compile", compileIrFile, compileTcFile); }

} // namespace comprehend::tools
