//===- ConstantParser.cpp - Constants and the !calc calculator ------------===//
#include "ParserImpl.h"

#include "llvm/ADT/SmallVector.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

/// Reports an integer token outside -2^63+1 .. 2^63-1.
static InFlightDiagnostic emitIntegerRangeError(Parser &parser) {
  return parser.emitError()
         << "integer constant " << parser.getToken().getSpelling()
         << " is out of range [" << kMinIntegerConstant << ", "
         << kMaxIntegerConstant << "]";
}

/// A `$name` that must stand for a constant of kind \p Alt.
template <typename Alt>
static LogicalResult resolveConstantDefinition(Parser &parser, Alt &value,
                                               llvm::StringRef what) {
  Token nameTok = parser.getToken();
  const Definition *def = parser.resolveDefinition();
  if (!def)
    return failure();
  if (const ConstantLiteral *constant = def->getConstant())
    if (const Alt *alt = std::get_if<Alt>(constant)) {
      value = *alt;
      return success();
    }
  return (parser.emitError(nameTok.getRange())
          << "expected " << what << ", but '" << nameTok.getSpelling()
          << "' is " << def->getDescription())
      .note(def->loc, "assigned here");
}

LogicalResult Parser::parseInteger(int64_t &value, llvm::StringRef what) {
  if (tok.is(Token::def_identifier))
    return resolveConstantDefinition(*this, value, what);
  if (tok.isNot(Token::integer))
    return emitExpected(what);
  std::optional<int64_t> parsed = tok.getIntegerValue();
  if (!parsed)
    return emitIntegerRangeError(*this);
  value = *parsed;
  consumeToken();
  return success();
}

LogicalResult Parser::parseNonNegativeInteger(int64_t &value,
                                              llvm::StringRef what) {
  Location loc = tok.getRange();
  if (failed(parseInteger(value, what)))
    return failure();
  if (value < 0)
    return emitError(loc) << "expected non-negative " << what << ", but found "
                          << value;
  return success();
}

LogicalResult Parser::parseIntegerOrDynamic(int64_t &value,
                                            llvm::StringRef what) {
  if (consumeIf(Token::question)) {
    value = kDynamic;
    return success();
  }
  if (tok.isNot(Token::integer) && tok.isNot(Token::def_identifier))
    return emitExpected(what + " or '?'");
  return parseNonNegativeInteger(value, what);
}

LogicalResult Parser::parseFloating(double &value) {
  if (tok.is(Token::def_identifier)) {
    Token nameTok = tok;
    const Definition *def = resolveDefinition();
    if (!def)
      return failure();
    if (const ConstantLiteral *constant = def->getConstant()) {
      if (const double *d = std::get_if<double>(constant)) {
        value = *d;
        return success();
      }
      if (const int64_t *i = std::get_if<int64_t>(constant)) {
        value = static_cast<double>(*i);
        return success();
      }
    }
    return (emitError(nameTok.getRange())
            << "expected floating constant, but '" << nameTok.getSpelling()
            << "' is " << def->getDescription())
        .note(def->loc, "assigned here");
  }
  if (tok.is(Token::integer)) {
    std::optional<int64_t> parsed = tok.getIntegerValue();
    if (!parsed)
      return emitIntegerRangeError(*this);
    value = static_cast<double>(*parsed);
    consumeToken();
    return success();
  }
  if (tok.isNot(Token::floating))
    return emitExpected("floating constant");
  std::optional<double> parsed = tok.getFloatingValue();
  if (!parsed)
    return emitError() << "floating constant " << tok.getSpelling()
                       << " is out of the range of double precision";
  value = *parsed;
  consumeToken();
  return success();
}

LogicalResult Parser::parseComplexParts(std::complex<double> &value) {
  double re = 0, im = 0;
  if (failed(parseFloating(re)) ||
      failed(parseToken(Token::comma, "in complex constant")) ||
      failed(parseFloating(im)) ||
      failed(parseToken(Token::r_square, "after complex constant")))
    return failure();
  value = std::complex<double>(re, im);
  return success();
}

LogicalResult Parser::parseConstant(ConstantValue &value) {
  switch (tok.getKind()) {
  case Token::kw_true:
  case Token::kw_false:
    value = tok.is(Token::kw_true);
    consumeToken();
    return success();
  case Token::integer: {
    int64_t i = 0;
    if (failed(parseInteger(i, "integer constant")))
      return failure();
    value = i;
    return success();
  }
  case Token::floating: {
    double d = 0;
    if (failed(parseFloating(d)))
      return failure();
    value = d;
    return success();
  }
  case Token::l_square: {
    consumeToken();
    std::complex<double> complex;
    if (failed(parseComplexParts(complex)))
      return failure();
    value = complex;
    return success();
  }
  case Token::def_identifier: {
    Token nameTok = tok;
    const Definition *def = resolveDefinition();
    if (!def)
      return failure();
    if (const ConstantLiteral *constant = def->getConstant()) {
      value = *constant;
      return success();
    }
    return (emitError(nameTok.getRange())
            << "expected constant, but '" << nameTok.getSpelling() << "' is "
            << def->getDescription())
        .note(def->loc, "assigned here");
  }
  default:
    return emitExpected("constant");
  }
}

/// "!calc" "(" rpn-expr ")" with
///   rpn-expr   = int-or-def / rpn-expr rpn-expr operator
///   int-or-def = integer-constant / def-identifier
LogicalResult Parser::parseCalc(int64_t &value) {
  llvm::SMLoc start = tok.getLoc();
  consumeToken(); // !
  if (!tok.isWord("calc"))
    return emitExpected("'calc' after '!'");
  consumeToken();
  if (failed(parseToken(Token::l_paren, "after '!calc'")))
    return failure();

  llvm::SmallVector<int64_t, 8> stack;
  while (!consumeIf(Token::r_paren)) {
    if (tok.isAny(Token::integer, Token::def_identifier)) {
      int64_t operand = 0;
      if (failed(parseInteger(operand, "integer operand in '!calc'")))
        return failure();
      stack.push_back(operand);
      continue;
    }
    std::optional<CalcOperator> op;
    if (tok.isAny(Token::caret, Token::minus, Token::plus, Token::star,
                  Token::slash, Token::percent, Token::bare_identifier))
      op = lookupCalcOperator(tok.getSpelling());
    if (!op)
      return emitExpected("integer, compile-time variable or operator "
                          "(^ - + * / % min max) in '!calc'");
    if (stack.size() < 2)
      return emitError() << "operator '" << tok.getSpelling()
                         << "' needs two operands in '!calc', but has "
                         << stack.size();
    int64_t rhs = stack.pop_back_val();
    int64_t lhs = stack.pop_back_val();
    llvm::Expected<int64_t> result = applyCalcOperator(*op, lhs, rhs);
    if (!result)
      return emitError() << llvm::toString(result.takeError());
    stack.push_back(*result);
    consumeToken();
  }
  if (stack.size() != 1)
    return emitError(rangeFrom(start))
           << "'!calc' must compute exactly one value, but leaves "
           << stack.size();
  value = stack.front();
  return success();
}
