//===- Lexer.cpp - Lexer of the tensor language ---------------------------===//
#include "Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace comprehend::ir;

static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

Lexer::Lexer(DiagnosticEngine &diags, unsigned bufferId) : diags(diags) {
  const llvm::MemoryBuffer *buffer =
      diags.getSourceMgr().getMemoryBuffer(bufferId);
  bufferBegin = buffer->getBufferStart();
  bufferEnd = buffer->getBufferEnd();
  curPtr = bufferBegin;
}

Token Lexer::emitError(const char *loc, const llvm::Twine &message) {
  llvm::SMLoc start = llvm::SMLoc::getFromPointer(loc);
  if (!suppressDiagnostics)
    diags.emitError(Location(start, start), message).report();
  return Token(Token::error,
               llvm::StringRef(loc, curPtr > loc ? curPtr - loc : 0));
}

void Lexer::skipWhitespaceAndComments() {
  while (curPtr != bufferEnd) {
    char c = *curPtr;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++curPtr;
      continue;
    }
    if (c != ';')
      return;
    while (curPtr != bufferEnd && *curPtr != '\n')
      ++curPtr;
  }
}

Token Lexer::lex() {
  skipWhitespaceAndComments();
  const char *tokStart = curPtr;
  if (curPtr == bufferEnd)
    return makeToken(Token::eof, tokStart);

  char c = *curPtr++;
  switch (c) {
  case '(':
    return makeToken(Token::l_paren, tokStart);
  case ')':
    return makeToken(Token::r_paren, tokStart);
  case '{':
    return makeToken(Token::l_brace, tokStart);
  case '}':
    return makeToken(Token::r_brace, tokStart);
  case '[':
    return makeToken(Token::l_square, tokStart);
  case ']':
    return makeToken(Token::r_square, tokStart);
  case '>':
    return makeToken(Token::greater, tokStart);
  case ',':
    return makeToken(Token::comma, tokStart);
  case ':':
    return makeToken(Token::colon, tokStart);
  case '=':
    return makeToken(Token::equal, tokStart);
  case '?':
    return makeToken(Token::question, tokStart);
  case '!':
    return makeToken(Token::exclaim, tokStart);
  case '*':
    return makeToken(Token::star, tokStart);
  case '/':
    return makeToken(Token::slash, tokStart);
  case '^':
    return makeToken(Token::caret, tokStart);
  case '<':
    if (curPtr != bufferEnd && *curPtr == '=') {
      ++curPtr;
      return makeToken(Token::less_equal, tokStart);
    }
    return makeToken(Token::less, tokStart);
  case '%':
    if (curPtr != bufferEnd && isIdentifierChar(*curPtr))
      return lexPrefixedIdentifier(tokStart, Token::local_identifier);
    return makeToken(Token::percent, tokStart);
  case '@':
    return lexPrefixedIdentifier(tokStart, Token::global_identifier);
  case '$':
    return lexPrefixedIdentifier(tokStart, Token::def_identifier);
  case '"':
    return lexString(tokStart);
  case '.':
    if (curPtr != bufferEnd && llvm::isAlpha(*curPtr)) {
      while (curPtr != bufferEnd && isIdentifierChar(*curPtr))
        ++curPtr;
      return makeToken(Token::modifier, tokStart);
    }
    if (curPtr != bufferEnd && llvm::isDigit(*curPtr))
      return lexNumber(tokStart);
    return emitError(tokStart, "unexpected character '.'");
  case '-':
  case '+': {
    if (c == '-' && curPtr != bufferEnd && *curPtr == '>') {
      ++curPtr;
      return makeToken(Token::arrow, tokStart);
    }
    llvm::StringRef rest(curPtr, bufferEnd - curPtr);
    bool startsNumber =
        !rest.empty() &&
        (llvm::isDigit(rest[0]) ||
         (rest[0] == '.' && rest.size() > 1 && llvm::isDigit(rest[1])));
    bool startsSpecial = (rest.startswith("inf") || rest.startswith("nan")) &&
                         (rest.size() == 3 || !isIdentifierChar(rest[3]));
    if (startsNumber)
      return lexNumber(tokStart);
    if (startsSpecial) {
      curPtr += 3;
      return makeToken(Token::floating, tokStart);
    }
    return makeToken(c == '-' ? Token::minus : Token::plus, tokStart);
  }
  default:
    break;
  }
  if (llvm::isDigit(c))
    return lexNumber(tokStart);
  if (llvm::isAlpha(c) || c == '_')
    return lexIdentifierOrKeyword(tokStart);
  if (llvm::isPrint(c))
    return emitError(tokStart, llvm::Twine("unexpected character '") +
                                   llvm::Twine(c) + "'");
  std::string hex;
  llvm::raw_string_ostream(hex)
      << llvm::format_hex(static_cast<unsigned char>(c), 4);
  return emitError(tokStart, "unexpected byte " + hex);
}

Token Lexer::lexIdentifierOrKeyword(const char *tokStart) {
  while (curPtr != bufferEnd && isIdentifierChar(*curPtr))
    ++curPtr;
  llvm::StringRef spelling(tokStart, curPtr - tokStart);
  Token::Kind kind = llvm::StringSwitch<Token::Kind>(spelling)
#define TOK_KEYWORD(SPELLING) .Case(#SPELLING, Token::kw_##SPELLING)
#include "TokenKinds.def"
                         .Cases("inf", "nan", Token::floating)
                         .Default(Token::bare_identifier);
  return makeToken(kind, tokStart);
}

/// identifier = 1*DIGIT / ALPHA *(ALPHA / DIGIT / "_")
/// An unnamed identifier stops after its digits, as a number does, so that
/// `4x%1x5` lexes as `4`, `x`, `%1`, `x5` (an expand or type shape).
Token Lexer::lexPrefixedIdentifier(const char *tokStart, Token::Kind kind) {
  if (curPtr != bufferEnd && llvm::isDigit(*curPtr)) {
    while (curPtr != bufferEnd && llvm::isDigit(*curPtr))
      ++curPtr;
    return makeToken(kind, tokStart);
  }
  while (curPtr != bufferEnd && isIdentifierChar(*curPtr))
    ++curPtr;
  llvm::StringRef name(tokStart + 1, curPtr - tokStart - 1);
  bool unnamed = !name.empty() && llvm::all_of(name, llvm::isDigit);
  bool named = !name.empty() && llvm::isAlpha(name[0]);
  if (!unnamed && !named)
    return emitError(tokStart,
                     llvm::Twine("invalid identifier '") +
                         llvm::StringRef(tokStart, curPtr - tokStart) +
                         "': expected a number or a letter followed by "
                         "letters, digits or underscores");
  return makeToken(kind, tokStart);
}

/// Decimal integers, decimal floats and hexadecimal floats (see the grammar of
/// floating-constant-dec/-hex). A number stops before any letter that cannot
/// continue it, so `4x8` lexes as `4` followed by `x8`.
Token Lexer::lexNumber(const char *tokStart) {
  const char *p = tokStart;
  if (*p == '-' || *p == '+')
    ++p;
  auto isHex = [](char c) { return llvm::isHexDigit(c); };
  auto scan = [&](const char *q, auto pred) {
    while (q != bufferEnd && pred(*q))
      ++q;
    return q;
  };
  auto scanExponent = [&](const char *q, char marker) -> const char * {
    if (q == bufferEnd || llvm::toLower(*q) != marker)
      return nullptr;
    const char *e = q + 1;
    if (e != bufferEnd && (*e == '+' || *e == '-'))
      ++e;
    if (e == bufferEnd || !llvm::isDigit(*e))
      return nullptr;
    return scan(e, llvm::isDigit);
  };

  // Hexadecimal float: "0x" (mantissa-hex ["p" exponent] / 1*HEXDIG "p" exp).
  if (p + 1 < bufferEnd && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    const char *q = scan(p + 2, isHex);
    bool intDigits = q != p + 2;
    bool hasDot = false, fracDigits = false;
    if (q != bufferEnd && *q == '.') {
      hasDot = true;
      const char *f = scan(q + 1, isHex);
      fracDigits = f != q + 1;
      q = f;
    }
    const char *e = scanExponent(q, 'p');
    bool valid = (intDigits || fracDigits) && (hasDot || e);
    if (valid) {
      curPtr = e ? e : q;
      return makeToken(Token::floating, tokStart);
    }
    // Not a hex float: `0` followed by an identifier such as `x8`.
  }

  const char *q = scan(p, llvm::isDigit);
  bool intDigits = q != p;
  bool isFloat = false;
  if (q != bufferEnd && *q == '.') {
    const char *f = scan(q + 1, llvm::isDigit);
    bool fracDigits = f != q + 1;
    if (intDigits || fracDigits) {
      isFloat = true;
      q = f;
    }
  }
  if (const char *e = scanExponent(q, 'e')) {
    isFloat = true;
    q = e;
  }
  curPtr = q;
  if (!intDigits && !isFloat)
    return emitError(tokStart, "expected digits in numeric constant");
  return makeToken(isFloat ? Token::floating : Token::integer, tokStart);
}

/// string-attribute = %x22 *(%x20-21 / %x23-7E) %x22
Token Lexer::lexString(const char *tokStart) {
  while (curPtr != bufferEnd) {
    char c = *curPtr;
    if (c == '"') {
      ++curPtr;
      return makeToken(Token::string, tokStart);
    }
    if (c == '\n' || c == '\r')
      break;
    if (!llvm::isPrint(c))
      return emitError(curPtr, "invalid character in string");
    ++curPtr;
  }
  return emitError(tokStart, "unterminated string");
}
