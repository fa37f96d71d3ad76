//===- TuneReport.h - What `comprehend tune` prints ---------------*- C++
//-*-===//
//
// One report for both languages: the options every tune shares (budgets,
// launches, --exhaustive) and the printed result, as text or as one JSON
// object.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_TUNEREPORT_H
#define COMPREHEND_TOOLS_TUNEREPORT_H

#include "comprehend/runtime/Tuner.h"

#include "llvm/ADT/StringRef.h"

namespace comprehend::runtime {
class SearchSpace;
} // namespace comprehend::runtime

namespace comprehend::tools {

/// The tuner options from --budget, --evals, --repeat and --exhaustive.
runtime::TunerOptions getTunerOptions();

/// Prints `result` of tuning `entry` on `device` (JSON with --json; the
/// text names the entry as `label`, e.g. `'matmul'` or `@gemm`); with
/// --exhaustive also how well the genetic search finds the measured best.
/// `cachePath` is empty when nothing was stored.
void printTuneReport(llvm::StringRef entry, llvm::StringRef label,
                     llvm::StringRef device, const runtime::SearchSpace &space,
                     const runtime::TunerResult &result,
                     llvm::StringRef cachePath);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_TUNEREPORT_H
