//===- Sema.h - Semantic checks of Tensor Comprehensions --------*- C++ -*-===//
//
// Resolves every name, types every expression (TC's promotion rules), finds
// the index and reduction variables of each statement, builds each def's
// tensor table and checks calls between defs. Every broken rule is reported
// with a location through the DiagnosticEngine; checking continues after an
// error so one run reports them all (statements after a failed one in the
// same def are still checked).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_SEMA_H
#define COMPREHEND_TC_SEMA_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/AST.h"

namespace comprehend::tc {

/// Checks every def of \p program in textual order and annotates the tree.
/// Fails if any error was reported (warnings do not fail).
LogicalResult checkProgram(Program &program, DiagnosticEngine &diags);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_SEMA_H
