//===- Lexer.cpp - Lexer of Tensor Comprehensions -------------------------===//
#include "comprehend/tc/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>

using namespace comprehend;
using namespace comprehend::tc;

llvm::StringRef tc::getTokenKindName(TokenKind kind) {
  switch (kind) {
#define TC_TOKEN(Kind, Description)                                            \
  case TokenKind::Kind:                                                        \
    return Description;
#define TC_PUNCT(Kind, Spelling)                                               \
  case TokenKind::Kind:                                                        \
    return "'" Spelling "'";
#define TC_KEYWORD(Kind, Spelling)                                             \
  case TokenKind::Kind:                                                        \
    return "'" Spelling "'";
#define TC_TYPE(Kind, Spelling, ScalarType)                                    \
  case TokenKind::Kind:                                                        \
    return "'" Spelling "'";
#include "comprehend/tc/TokenKinds.def"
  }
  return "<invalid token>";
}

std::optional<ScalarType> tc::getTypeKeywordScalar(TokenKind kind) {
  switch (kind) {
#define TC_TYPE(Kind, Spelling, Scalar)                                        \
  case TokenKind::Kind:                                                        \
    return ScalarType::Scalar;
#include "comprehend/tc/TokenKinds.def"
  default:
    return std::nullopt;
  }
}

Location Token::getLoc() const {
  return Location(llvm::SMLoc::getFromPointer(spelling.begin()),
                  llvm::SMLoc::getFromPointer(spelling.end()));
}

static bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
static bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
static bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c));
}
static bool isHexDigit(char c) {
  return std::isxdigit(static_cast<unsigned char>(c));
}

Token Lexer::makeToken(TokenKind kind, const char *start) const {
  return Token(kind, llvm::StringRef(start, current - start));
}

Token Lexer::error(const char *start, const llvm::Twine &message) {
  Token token = makeToken(TokenKind::Error, start);
  diags.emitError(token.getLoc(), message).report();
  return token;
}

void Lexer::skipWhitespaceAndComments() {
  while (current != buffer.end()) {
    if (std::isspace(static_cast<unsigned char>(*current))) {
      ++current;
    } else if (*current == '#') {
      while (current != buffer.end() && *current != '\n')
        ++current;
    } else {
      return;
    }
  }
}

Token Lexer::lex() {
  Token token = [&] {
    skipWhitespaceAndComments();
    const char *start = current;
    if (current == buffer.end())
      return makeToken(TokenKind::Eof, start);
    char c = *current;
    // `T.1` is a dimension access; `.5` elsewhere is a number.
    if (c == '.' && previous == TokenKind::Ident) {
      ++current;
      return makeToken(TokenKind::Dot, start);
    }
    if (isDigit(c) ||
        (c == '.' && current + 1 != buffer.end() && isDigit(current[1])))
      return lexNumber(start);
    if (isIdentStart(c))
      return lexIdentifier(start);

    ++current;
    auto next = [&](char expected) {
      if (current == buffer.end() || *current != expected)
        return false;
      ++current;
      return true;
    };
    switch (c) {
    case '(':
      return makeToken(TokenKind::LParen, start);
    case ')':
      return makeToken(TokenKind::RParen, start);
    case '{':
      return makeToken(TokenKind::LBrace, start);
    case '}':
      return makeToken(TokenKind::RBrace, start);
    case ',':
      return makeToken(TokenKind::Comma, start);
    case ':':
      return makeToken(TokenKind::Colon, start);
    case '?':
      return makeToken(TokenKind::Question, start);
    case '-':
      return makeToken(next('>') ? TokenKind::Arrow : TokenKind::Minus, start);
    case '+':
      if (next('='))
        return makeToken(
            next('!') ? TokenKind::PlusEqualBang : TokenKind::PlusEqual, start);
      return makeToken(TokenKind::Plus, start);
    case '*':
      if (next('='))
        return makeToken(
            next('!') ? TokenKind::StarEqualBang : TokenKind::StarEqual, start);
      return makeToken(TokenKind::Star, start);
    case '/':
      return makeToken(TokenKind::Slash, start);
    case '%':
      return makeToken(TokenKind::Percent, start);
    case '!':
      return makeToken(next('=') ? TokenKind::NotEqual : TokenKind::Bang,
                       start);
    case '<':
      return makeToken(next('=') ? TokenKind::LessEqual : TokenKind::Less,
                       start);
    case '>':
      return makeToken(next('=') ? TokenKind::GreaterEqual : TokenKind::Greater,
                       start);
    case '=':
      return makeToken(next('=') ? TokenKind::EqualEqual : TokenKind::Equal,
                       start);
    case '&':
      if (next('&'))
        return makeToken(TokenKind::AmpAmp, start);
      return error(start, "unexpected character '&'; did you mean '&&'");
    case '|':
      if (next('|'))
        return makeToken(TokenKind::PipePipe, start);
      return error(start, "unexpected character '|'; did you mean '||'");
    default:
      break;
    }
    if (std::isprint(static_cast<unsigned char>(c)))
      return error(start, "unexpected character '" + llvm::Twine(c) + "'");
    return error(start,
                 "unexpected byte 0x" +
                     llvm::Twine::utohexstr(static_cast<unsigned char>(c)));
  }();
  previous = token.getKind();
  return token;
}

Token Lexer::lexIdentifier(const char *start) {
  while (current != buffer.end() && isIdentChar(*current))
    ++current;
  llvm::StringRef text(start, current - start);
  // `min=`, `max=` and their `!` forms are single tokens (longest match).
  if ((text == "min" || text == "max") && current != buffer.end() &&
      *current == '=' && (current + 1 == buffer.end() || current[1] != '=')) {
    ++current;
    bool bang = current != buffer.end() && *current == '!';
    if (bang)
      ++current;
    if (text == "min")
      return makeToken(bang ? TokenKind::MinEqualBang : TokenKind::MinEqual,
                       start);
    return makeToken(bang ? TokenKind::MaxEqualBang : TokenKind::MaxEqual,
                     start);
  }
  TokenKind kind = llvm::StringSwitch<TokenKind>(text)
#define TC_KEYWORD(Kind, Spelling) .Case(Spelling, TokenKind::Kind)
#define TC_TYPE(Kind, Spelling, ScalarType) .Case(Spelling, TokenKind::Kind)
#include "comprehend/tc/TokenKinds.def"
                       .Default(TokenKind::Ident);
  return makeToken(kind, start);
}

Token Lexer::lexNumber(const char *start) {
  bool isFloat = false;
  auto digits = [&](bool hex) {
    while (current != buffer.end() &&
           (hex ? isHexDigit(*current) : isDigit(*current)))
      ++current;
  };
  auto exponent = [&](char lower, char upper) -> bool {
    if (current == buffer.end() || (*current != lower && *current != upper))
      return true;
    ++current;
    isFloat = true;
    if (current != buffer.end() && (*current == '+' || *current == '-'))
      ++current;
    const char *digitsStart = current;
    digits(/*hex=*/false);
    return current != digitsStart;
  };

  bool hex = current + 1 < buffer.end() && current[0] == '0' &&
             (current[1] == 'x' || current[1] == 'X');
  bool exponentOk = true;
  if (hex) {
    current += 2;
    digits(true);
    if (current != buffer.end() && *current == '.') {
      ++current;
      isFloat = true;
      digits(true);
    }
    exponentOk = exponent('p', 'P');
    if (isFloat && exponentOk &&
        !llvm::StringRef(start, current - start).contains_insensitive("p"))
      exponentOk = false;
  } else {
    digits(false);
    if (current != buffer.end() && *current == '.') {
      ++current;
      isFloat = true;
      digits(false);
    }
    exponentOk = exponent('e', 'E');
  }
  const char *numberEnd = current;
  while (current != buffer.end() && isIdentChar(*current))
    ++current;
  if (!exponentOk)
    return error(start, "exponent of numeric literal has no digits");
  llvm::StringRef text(start, numberEnd - start);
  llvm::StringRef suffix(numberEnd, current - numberEnd);

  if (isFloat) {
    std::string lower = suffix.lower();
    if (!lower.empty() && lower != "f" && lower != "l")
      return error(start,
                   "invalid suffix '" + suffix + "' on floating-point literal");
    Token token = makeToken(TokenKind::FloatLit, start);
    std::string copy = text.str();
    token.floatValue = std::strtod(copy.c_str(), nullptr);
    token.literalType = lower == "l" ? ScalarType::Double : ScalarType::Float;
    return token;
  }

  std::string lower = suffix.lower();
  bool isUnsignedLit = llvm::StringRef(lower).contains('u');
  size_t numLs = llvm::StringRef(lower).count('l');
  bool validSuffix = lower.empty() || lower == "u" || lower == "l" ||
                     lower == "ll" || lower == "ul" || lower == "lu" ||
                     lower == "ull" || lower == "llu";
  if (!validSuffix)
    return error(start, "invalid suffix '" + suffix + "' on integer literal");
  uint64_t value = 0;
  // Radix 0 follows C: 0x hexadecimal, a leading 0 octal.
  if (text.getAsInteger(0, value))
    return error(start, "integer literal '" + text + "' is too large");
  Token token = makeToken(TokenKind::IntLit, start);
  constexpr uint64_t int32Max = std::numeric_limits<int32_t>::max();
  constexpr uint64_t uint32Max = std::numeric_limits<uint32_t>::max();
  constexpr uint64_t int64Max = std::numeric_limits<int64_t>::max();
  if (isUnsignedLit) {
    token.literalType = value <= uint32Max && numLs == 0 ? ScalarType::UInt32
                                                         : ScalarType::UInt64;
    if (value > int64Max)
      return error(start,
                   "integer literal '" + text + "' does not fit in 63 bits");
  } else if (value > int64Max) {
    return error(start, "integer literal '" + text + "' is too large");
  } else {
    token.literalType =
        value <= int32Max && numLs == 0 ? ScalarType::Int32 : ScalarType::Int64;
  }
  token.intValue = static_cast<int64_t>(value);
  return token;
}
