//===- Token.cpp - A token of the tensor language -------------------------===//
#include "Token.h"

#include "llvm/ADT/SmallString.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace comprehend::ir;

std::optional<int64_t> Token::getIntegerValue() const {
  llvm::StringRef digits = spelling;
  bool negative = digits.consume_front("-");
  if (!negative)
    digits.consume_front("+");
  uint64_t magnitude = 0;
  // getAsInteger fails on overflow of uint64_t; the language range is the
  // symmetric int64 range without INT64_MIN.
  if (digits.getAsInteger(10, magnitude) ||
      magnitude > static_cast<uint64_t>(kMaxIntegerConstant))
    return std::nullopt;
  int64_t value = static_cast<int64_t>(magnitude);
  return negative ? -value : value;
}

std::optional<double> Token::getFloatingValue() const {
  llvm::SmallString<32> text(spelling);
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size())
    return std::nullopt;
  // strtod reports ERANGE for overflow (±HUGE_VAL) and for underflow; only
  // overflow leaves the double range, underflow rounds towards zero.
  if (errno == ERANGE && std::isinf(value))
    return std::nullopt;
  return value;
}

llvm::StringRef Token::getStringValue() const {
  return spelling.drop_front().drop_back();
}

llvm::StringRef Token::getIdentifierName() const {
  return spelling.drop_front();
}

llvm::StringRef Token::getKindName(Kind kind) {
  switch (kind) {
  case eof:
    return "end of input";
  case error:
    return "invalid token";
  case bare_identifier:
    return "identifier";
  case local_identifier:
    return "local identifier";
  case global_identifier:
    return "global identifier";
  case def_identifier:
    return "compile-time variable";
  case modifier:
    return "modifier";
  case integer:
    return "integer constant";
  case floating:
    return "floating constant";
  case string:
    return "string";
#define TOK_PUNCTUATION(NAME, SPELLING)                                        \
  case NAME:                                                                   \
    return "'" SPELLING "'";
#define TOK_KEYWORD(SPELLING)                                                  \
  case kw_##SPELLING:                                                          \
    return "'" #SPELLING "'";
#include "TokenKinds.def"
  }
  return "token";
}
