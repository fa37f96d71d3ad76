//===- GradCommand.cpp - `comprehend grad`: the derived backward def ------===//
//
// Prints the backward def of a TC def (tc::deriveBackward): the text goes
// to stdout, diagnostics to stderr; exit 1 when the gradient cannot be
// derived, 2 on a usage error.
//
//===----------------------------------------------------------------------===//
#include "Input.h"
#include "Options.h"

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/Grad.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace comprehend::tools {

int runGrad() {
  if (getInputLang() == InputLang::IR) {
    errs() << "comprehend grad: only .tc input has gradients\n";
    return ExitUsage;
  }
  SourceMgr sourceMgr;
  if (failed(loadInputFile(InputFilename, sourceMgr)))
    return ExitUsage;
  DiagnosticEngine diags(sourceMgr);
  tc::GradOptions options;
  SmallVector<StringRef, 4> names;
  StringRef(Wrt).split(names, ',', -1, /*KeepEmpty=*/false);
  for (StringRef name : names)
    options.wrt.push_back(name.trim().str());
  StringRef source =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  Expected<tc::BackwardDef> backward =
      tc::deriveBackward(source, Entry, options, diags);
  if (!backward) {
    std::string message = toString(backward.takeError());
    // Located errors are printed already; say what else went wrong.
    if (!diags.hasErrors())
      errs() << "comprehend grad: error: " << message << "\n";
    return ExitInvalidInput;
  }
  outs() << backward->source;
  return ExitSuccess;
}

} // namespace comprehend::tools
