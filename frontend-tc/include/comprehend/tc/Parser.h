//===- Parser.h - Parser of Tensor Comprehensions ---------------*- C++ -*-===//
//
// Recursive descent for definitions and statements, precedence climbing for
// expressions with C's operator precedence (lowest first):
//
//   ?: (right-assoc.)   ||   &&   == !=   < > <= >=   + -   * / %   unary - !
//
// A syntax error ends the def it occurs in; parsing resumes at the next
// `def`, so one run reports the first syntax error of every def.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_PARSER_H
#define COMPREHEND_TC_PARSER_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/AST.h"

namespace comprehend::tc {

/// Parses every def of \p buffer (which must live in the SourceMgr of
/// \p diags) into \p program. Defs with syntax errors are left out; fails if
/// any error was reported.
LogicalResult parseProgram(llvm::StringRef buffer, DiagnosticEngine &diags,
                           Program &program);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_PARSER_H
