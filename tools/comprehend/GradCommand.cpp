//===- GradCommand.cpp - `comprehend grad`: the derived backward def ------===//
//
// Prints the backward def of a TC def (tc::deriveBackward): the text goes
// to stdout, diagnostics to stderr; exit 1 when the input does not check or
// the gradient cannot be derived, 2 on a usage error (an unknown --entry).
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "TcInput.h"

#include "comprehend/tc/Grad.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace comprehend::tools {

int runGrad() {
  if (getInputLang() == InputLang::IR) {
    errs() << "comprehend grad: only .tc input has gradients\n";
    return ExitUsage;
  }
  // Check the file and the entry as the other commands do.
  TcInput input;
  if (int code = loadTcInput(input, /*inferAllRanges=*/true))
    return code;
  const tc::Def *entry = nullptr;
  StringMap<int64_t> sizes;
  if (int code = selectTcEntry("grad", *input.program, entry, sizes))
    return code;
  // deriveBackward checks the source again: print only its errors, the
  // warnings were printed above.
  DiagnosticEngine diags(input.sourceMgr);
  diags.setHandler([&](const Diagnostic &diag) {
    if (diag.severity != Severity::Warning)
      diags.print(diag, errs());
  });
  tc::GradOptions options;
  SmallVector<StringRef, 4> names;
  StringRef(Wrt).split(names, ',', -1, /*KeepEmpty=*/false);
  for (StringRef name : names)
    options.wrt.push_back(name.trim().str());
  StringRef source =
      input.sourceMgr.getMemoryBuffer(input.sourceMgr.getMainFileID())
          ->getBuffer();
  Expected<tc::BackwardDef> backward =
      tc::deriveBackward(source, entry->getName().name, options, diags);
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
