//===- IncomingOutputs.h - Outputs a TC def reads before writing -*- C++
//-*-===//
//
// TC semantics (docs/tc.md's `+=` without `!`): which outputs of a def take
// an incoming value from the caller.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_INCOMINGOUTPUTS_H
#define COMPREHEND_TC_INCOMINGOUTPUTS_H

#include "comprehend/tc/AST.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace comprehend::tc {

/// The outputs of \p def (in declaration order) whose incoming values the
/// def reads: a statement reads them (a reduction without `!` into them, or
/// an access on a right-hand side) before any statement has written them.
/// The caller supplies their initial contents; the def writes every other
/// output before reading it.
llvm::SmallVector<std::string, 2> getIncomingOutputs(const Def &def);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_INCOMINGOUTPUTS_H
