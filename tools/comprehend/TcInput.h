//===- TcInput.h - Loading a TC file and choosing its entry -----*- C++ -*-===//
//
// Shared by check, compile, ranges and run on .tc input.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_TCINPUT_H
#define COMPREHEND_TOOLS_TCINPUT_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace comprehend::tools {

/// The source, diagnostics and checked program of one TC input file.
struct TcInput {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  std::unique_ptr<tc::Program> program;
};

/// Loads and checks the input file; returns the exit code to use when it
/// is not ExitSuccess.
int loadTcInput(TcInput &input, bool inferAllRanges);

/// Picks the def named by --entry (default: the last one) and parses --sizes,
/// whose names must be size variables of that def. Prints a one-line reason
/// prefixed by `comprehend <command>` and returns the exit code on failure.
int selectTcEntry(llvm::StringRef command, const tc::Program &program,
                  const tc::Def *&entry, llvm::StringMap<int64_t> &sizes);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_TCINPUT_H
