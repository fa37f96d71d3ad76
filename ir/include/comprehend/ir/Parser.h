//===- Parser.h - Reading tensor-language source ----------------*- C++ -*-===//
//
// Parses the tensor language (docs/instructions.md lists its instructions)
// with its preprocessor (Preprocessor.h) into a Program. Syntax errors, unknown
// names and malformed types are reported through the DiagnosticEngine as
// `file:line:col: error: ...`; the parser stops at a function's first error
// and continues with the next function. The semantic rules of the language
// are checked by the verifier (Verifier.h), not here.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_PARSER_H
#define COMPREHEND_IR_PARSER_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

namespace comprehend::ir {

class Context;

/// The deepest nesting of regions, types and attributes the parser accepts;
/// deeper input is rejected with a diagnostic instead of exhausting the
/// stack.
inline constexpr unsigned kMaxNestingDepth = 256;

/// Parses buffer \p bufferId of the engine's SourceMgr. Returns null if any
/// error was reported.
std::unique_ptr<Program> parseSource(Context &ctx, DiagnosticEngine &diags,
                                     unsigned bufferId);

/// Adds \p source to the engine's SourceMgr under \p bufferName and parses
/// it. Returns null if any error was reported.
std::unique_ptr<Program> parseSource(Context &ctx, DiagnosticEngine &diags,
                                     llvm::StringRef source,
                                     llvm::StringRef bufferName = "<string>");

} // namespace comprehend::ir

#endif // COMPREHEND_IR_PARSER_H
