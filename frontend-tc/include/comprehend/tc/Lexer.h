//===- Lexer.h - Tokens and lexer of Tensor Comprehensions ------*- C++ -*-===//
//
// Whitespace (newlines included) separates tokens and nothing else; `#`
// starts a comment that runs to the end of the line. Numbers follow C's
// literal syntax (decimal, hexadecimal, exponents, `u`/`l`/`f` suffixes).
// A `.` directly after an identifier is the dimension-access token (`T.1`).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LEXER_H
#define COMPREHEND_TC_LEXER_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/Types.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace comprehend::tc {

enum class TokenKind : uint8_t {
#define TC_TOKEN(Kind, Description) Kind,
#define TC_PUNCT(Kind, Spelling) Kind,
#define TC_KEYWORD(Kind, Spelling) Kind,
#define TC_TYPE(Kind, Spelling, ScalarType) Kind,
#include "comprehend/tc/TokenKinds.def"
};

/// How a token kind is shown in "expected X but found Y" messages: the
/// spelling for punctuation and keywords, a description otherwise.
llvm::StringRef getTokenKindName(TokenKind kind);

/// The scalar type a type keyword names, if \p kind is one.
std::optional<ScalarType> getTypeKeywordScalar(TokenKind kind);

class Token {
public:
  Token() = default;
  Token(TokenKind kind, llvm::StringRef spelling)
      : kind(kind), spelling(spelling) {}

  TokenKind getKind() const { return kind; }
  bool is(TokenKind k) const { return kind == k; }
  bool isTypeKeyword() const { return getTypeKeywordScalar(kind).has_value(); }
  /// The exact source text of the token (empty at end of file).
  llvm::StringRef getSpelling() const { return spelling; }
  Location getLoc() const;

  /// Integer literals: value and type (int32 if it fits, else int64;
  /// `u` suffix: uint32/uint64; `l`/`ll`: int64).
  int64_t getIntValue() const { return intValue; }
  /// Floating-point literals: the value in double precision.
  double getFloatValue() const { return floatValue; }
  /// The type of a literal (floating-point literals are `float`, as in TC,
  /// unless written with an `l` suffix, which makes them `double`).
  ScalarType getLiteralType() const { return literalType; }

private:
  friend class Lexer;
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef spelling;
  int64_t intValue = 0;
  double floatValue = 0;
  ScalarType literalType = ScalarType::Int32;
};

/// Splits one source buffer into tokens; reports malformed input (stray
/// characters, bad numeric literals) through \p diags and returns an Error
/// token for it.
class Lexer {
public:
  Lexer(llvm::StringRef buffer, DiagnosticEngine &diags)
      : buffer(buffer), current(buffer.begin()), diags(diags) {}

  /// Returns the next token; Eof repeatedly at the end.
  Token lex();

private:
  Token makeToken(TokenKind kind, const char *start) const;
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  Token error(const char *start, const llvm::Twine &message);
  void skipWhitespaceAndComments();

  llvm::StringRef buffer;
  const char *current;
  DiagnosticEngine &diags;
  TokenKind previous = TokenKind::Eof;
};

} // namespace comprehend::tc

#endif // COMPREHEND_TC_LEXER_H
