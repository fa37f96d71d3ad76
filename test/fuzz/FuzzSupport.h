//===- FuzzSupport.h - What the fuzz targets share --------------*- C++ -*-===//
//
// A fuzz target reports a bug by aborting (libFuzzer and the replay driver
// then keep the input); invalid input is not a bug. `fuzzCheck` is an
// assertion that stays on in release builds.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TEST_FUZZ_FUZZSUPPORT_H
#define COMPREHEND_TEST_FUZZ_FUZZSUPPORT_H

#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>

namespace comprehend::fuzz {

[[noreturn]] inline void fail(llvm::StringRef what, llvm::StringRef detail) {
  llvm::errs() << "fuzz target found a bug: " << what << "\n" << detail << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Collects the diagnostics of an engine instead of printing them, and
/// remembers whether one of them says "compiler bug" (an internal check of
/// the backend or lowering failed on input the verifier accepted).
struct DiagnosticSink {
  std::string text;
  bool compilerBug = false;

  void attach(DiagnosticEngine &diags) {
    diags.setHandler([this, &diags](const Diagnostic &diag) {
      llvm::raw_string_ostream os(text);
      diags.print(diag, os);
      if (llvm::StringRef(diag.message).contains("compiler bug"))
        compilerBug = true;
    });
  }
};

} // namespace comprehend::fuzz

#endif // COMPREHEND_TEST_FUZZ_FUZZSUPPORT_H
