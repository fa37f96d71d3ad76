//===- RunReport.h - What `comprehend run` prints -----------------*- C++
//-*-===//
//
// The parts of a run's report that both languages share: the timing fields
// of the JSON object, the first words of the text line, and the output
// files written. Each command adds what is its own (TC sizes and --check;
// the .ir grid and work-group).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_RUNREPORT_H
#define COMPREHEND_TOOLS_RUNREPORT_H

#include "comprehend/runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace comprehend::tools {

/// `entry`, `device`, `runs`, `median_ms`, `median_wall_ms`, `times_ms`.
void writeRunTiming(llvm::json::OStream &json, llvm::StringRef entry,
                    llvm::StringRef device, const runtime::Timing &timing);
/// `outputs`: the files written with --out.
void writeRunOutputs(llvm::json::OStream &json,
                     llvm::ArrayRef<std::string> written);
/// `<label> on <device>: median <ms> ms over <n> runs (` on stdout; the
/// caller closes the parenthesis.
void printRunTiming(llvm::StringRef label, llvm::StringRef device,
                    const runtime::Timing &timing);
/// `wrote <path>` per file written with --out.
void printRunOutputs(llvm::ArrayRef<std::string> written);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_RUNREPORT_H
