//===- Lexer.h - Lexer of the tensor language -------------------*- C++ -*-===//
//
// Turns one SourceMgr buffer into tokens. Invalid input yields an `error`
// token after a diagnostic has been reported, so the parser only has to stop.
//
// Shapes such as `f32x4x?` lex as bare identifiers (`f32x4x`, `?`); the type
// parser splits them by moving the lexer back into the identifier with
// resetPointer(), the way MLIR lexes dimension lists.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_LEXER_H
#define COMPREHEND_IR_LIB_LEXER_H

#include "Token.h"

#include "comprehend/ir/Diagnostics.h"

namespace comprehend::ir {

class Lexer {
public:
  /// Lexes buffer \p bufferId of the engine's SourceMgr.
  Lexer(DiagnosticEngine &diags, unsigned bufferId);

  /// Returns the next token; `eof` at the end, `error` after a diagnostic.
  Token lex();

  /// While set, invalid input yields `error` tokens without diagnostics (the
  /// parser skips input after an error).
  void setSuppressDiagnostics(bool value) { suppressDiagnostics = value; }

  /// Continues lexing at \p ptr, which must point into the buffer.
  void resetPointer(const char *ptr) { curPtr = ptr; }

  const char *getBufferStart() const { return bufferBegin; }
  const char *getBufferEnd() const { return bufferEnd; }
  DiagnosticEngine &getDiagnostics() const { return diags; }

private:
  Token makeToken(Token::Kind kind, const char *tokStart) const {
    return Token(kind, llvm::StringRef(tokStart, curPtr - tokStart));
  }
  Token emitError(const char *loc, const llvm::Twine &message);

  void skipWhitespaceAndComments();
  Token lexIdentifierOrKeyword(const char *tokStart);
  Token lexPrefixedIdentifier(const char *tokStart, Token::Kind kind);
  Token lexNumber(const char *tokStart);
  Token lexString(const char *tokStart);

  DiagnosticEngine &diags;
  const char *bufferBegin;
  const char *bufferEnd;
  const char *curPtr;
  bool suppressDiagnostics = false;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_LEXER_H
