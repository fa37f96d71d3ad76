//===- Frontend.h - One-call entry points of the TC frontend ----*- C++ -*-===//
#ifndef COMPREHEND_TC_FRONTEND_H
#define COMPREHEND_TC_FRONTEND_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/AST.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringMap.h"

#include <memory>

namespace comprehend::tc {

/// Parses and checks buffer \p bufferId of the engine's SourceMgr: syntax,
/// Sema, and (with \p inferAllRanges) range inference of every def with
/// symbolic sizes, so that ranges that cannot be inferred are reported too.
/// Returns null if an error was reported.
std::unique_ptr<Program> loadProgram(DiagnosticEngine &diags, unsigned bufferId,
                                     bool inferAllRanges = true);

/// The def called \p name, or the last def of the file when \p name is
/// empty (a file's last def usually calls the others). Null if none.
const Def *findEntry(const Program &program, llvm::StringRef name);

/// Writes the `comprehend ranges` JSON object (docs/tc.md, "`ranges`
/// output") for \p def:
/// entry, the given sizes, output shapes (with an `offset` list when an
/// output's inferred lower bound is not 0) and each statement's ranges (call
/// statements list the callee and its results instead).
void printRangesJson(llvm::raw_ostream &os, const Def &def,
                     const DefRanges &ranges,
                     const llvm::StringMap<int64_t> &sizes,
                     const llvm::SourceMgr &sourceMgr);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_FRONTEND_H
