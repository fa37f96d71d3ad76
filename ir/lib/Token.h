//===- Token.h - A token of the tensor language -----------------*- C++ -*-===//
//
// A token is a kind plus its spelling, a StringRef into the source buffer, so
// its location is the spelling's address. Values (integers, floats, strings,
// identifier names) are decoded on demand.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_TOKEN_H
#define COMPREHEND_IR_LIB_TOKEN_H

#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>

namespace comprehend::ir {

/// The smallest and largest integer constants the language allows:
/// -2^63+1 .. 2^63-1 (INT64_MIN is reserved for dynamic sizes).
inline constexpr int64_t kMinIntegerConstant = -INT64_MAX;
inline constexpr int64_t kMaxIntegerConstant = INT64_MAX;

class Token {
public:
  enum Kind {
#define TOK_MARKER(NAME) NAME,
#define TOK_IDENTIFIER(NAME) NAME,
#define TOK_LITERAL(NAME) NAME,
#define TOK_PUNCTUATION(NAME, SPELLING) NAME,
#define TOK_KEYWORD(SPELLING) kw_##SPELLING,
#include "TokenKinds.def"
  };

  Token() = default;
  Token(Kind kind, llvm::StringRef spelling) : kind(kind), spelling(spelling) {}

  Kind getKind() const { return kind; }
  bool is(Kind k) const { return kind == k; }
  bool isNot(Kind k) const { return kind != k; }
  template <typename... Ks> bool isAny(Ks... ks) const {
    return ((kind == ks) || ...);
  }
  /// True for a bare identifier spelled exactly \p word (contextual keywords
  /// such as `else`, `init` or `x`).
  bool isWord(llvm::StringRef word) const {
    return kind == bare_identifier && spelling == word;
  }

  llvm::StringRef getSpelling() const { return spelling; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data() + spelling.size());
  }
  Location getRange() const { return {getLoc(), getEndLoc()}; }

  /// The value of an integer token, or nullopt if it is outside
  /// [kMinIntegerConstant, kMaxIntegerConstant].
  std::optional<int64_t> getIntegerValue() const;
  /// The value of a floating token (strtod), or nullopt if it is not finite
  /// although written as a finite number (out of double range).
  std::optional<double> getFloatingValue() const;
  /// The contents of a string token without the quotes.
  llvm::StringRef getStringValue() const;
  /// The name of a local, global or def identifier without its sigil, or the
  /// modifier without its dot.
  llvm::StringRef getIdentifierName() const;

  /// A human readable name of \p kind for "expected ..." messages.
  static llvm::StringRef getKindName(Kind kind);

private:
  Kind kind = eof;
  llvm::StringRef spelling;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_TOKEN_H
