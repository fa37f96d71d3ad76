//===- PhaseTimes.h - --time-phases: where a command spends its time -*- C++
//-*-===//
//
// The libraries mark their phases with llvm::TimeTraceScope (parse, range
// inference, lowering, the backend, the SPIR 1.2 bridge, the OpenCL build);
// the scopes cost nothing unless the time-trace profiler runs. --time-phases
// runs it for one command and prints the time spent in each phase.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_PHASETIMES_H
#define COMPREHEND_TOOLS_PHASETIMES_H

#include "llvm/Support/raw_ostream.h"

namespace comprehend::tools {

/// Starts the time-trace profiler when --time-phases is given.
void startPhaseTimes();
/// Prints one line per phase (calls, total milliseconds, in the order the
/// phases first began) and the whole command's time to `os`, and stops the
/// profiler; does nothing when --time-phases is not given.
void reportPhaseTimes(llvm::raw_ostream &os);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_PHASETIMES_H
