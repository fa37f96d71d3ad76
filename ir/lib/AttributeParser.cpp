//===- AttributeParser.cpp - Attributes and dictionaries ------------------===//
#include "ParserImpl.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

/// A `$name` in attribute position: an attribute, or a boolean or integer
/// constant standing for the boolean or integer attribute.
static LogicalResult resolveAttributeDefinition(Parser &parser,
                                                const Attribute *&attr) {
  Token nameTok = parser.getToken();
  const Definition *def = parser.resolveDefinition();
  if (!def)
    return failure();
  if (const Attribute *defined = def->getAttribute()) {
    attr = defined;
    return success();
  }
  if (const ConstantLiteral *constant = def->getConstant()) {
    if (const bool *b = std::get_if<bool>(constant)) {
      attr = BoolAttr::get(parser.getContext(), *b);
      return success();
    }
    if (const int64_t *i = std::get_if<int64_t>(constant)) {
      attr = IntegerAttr::get(parser.getContext(), *i);
      return success();
    }
  }
  return (parser.emitError(nameTok.getRange())
          << "expected attribute, but '" << nameTok.getSpelling() << "' is "
          << def->getDescription())
      .note(def->loc, "assigned here");
}

LogicalResult Parser::parseAttribute(const Attribute *&attr) {
  switch (tok.getKind()) {
  case Token::l_square:
    return parseArrayAttr(attr, /*bracketConsumed=*/false);
  case Token::l_brace: {
    const DictionaryAttr *dict = nullptr;
    if (failed(parseDictionaryAttr(dict)))
      return failure();
    attr = dict;
    return success();
  }
  case Token::kw_true:
  case Token::kw_false:
    attr = BoolAttr::get(ctx, tok.is(Token::kw_true));
    consumeToken();
    return success();
  case Token::integer: {
    int64_t value = 0;
    if (failed(parseInteger(value, "integer attribute")))
      return failure();
    attr = IntegerAttr::get(ctx, value);
    return success();
  }
  case Token::string:
    attr = StringAttr::get(ctx, tok.getStringValue());
    consumeToken();
    return success();
  case Token::def_identifier:
    return resolveAttributeDefinition(*this, attr);
  default:
    return emitExpected("attribute");
  }
}

LogicalResult Parser::parseArrayAttr(const Attribute *&attr,
                                     bool bracketConsumed) {
  NestingGuard guard(*this, "attribute");
  if (guard.failed())
    return failure();
  if (!bracketConsumed && failed(parseToken(Token::l_square)))
    return failure();
  llvm::SmallVector<const Attribute *, 4> elements;
  if (!consumeIf(Token::r_square)) {
    do {
      const Attribute *element = nullptr;
      if (failed(parseAttribute(element)))
        return failure();
      elements.push_back(element);
    } while (consumeIf(Token::comma));
    if (failed(parseToken(Token::r_square, "in array attribute")))
      return failure();
  }
  attr = ArrayAttr::get(ctx, elements);
  return success();
}

/// named-attribute = attribute-name "=" attribute
/// attribute-name  = identifier / string-attribute
LogicalResult Parser::parseDictionaryAttr(const DictionaryAttr *&attr) {
  if (tok.is(Token::def_identifier)) {
    Token nameTok = tok;
    const Attribute *defined = nullptr;
    if (failed(resolveAttributeDefinition(*this, defined)))
      return failure();
    attr = llvm::dyn_cast<DictionaryAttr>(defined);
    if (!attr)
      return emitError(nameTok.getRange())
             << "expected dictionary attribute, but '" << nameTok.getSpelling()
             << "' is " << *defined;
    return success();
  }
  NestingGuard guard(*this, "attribute");
  if (guard.failed())
    return failure();
  if (failed(parseToken(Token::l_brace)))
    return failure();
  llvm::SmallVector<NamedAttribute, 4> entries;
  llvm::StringMap<Location> seen;
  if (!consumeIf(Token::r_brace)) {
    do {
      if (!tok.isAny(Token::bare_identifier, Token::string, Token::kw_func,
                     Token::kw_attributes, Token::kw_true, Token::kw_false))
        return emitExpected("attribute name");
      Location nameLoc = tok.getRange();
      llvm::StringRef name =
          tok.is(Token::string) ? tok.getStringValue() : tok.getSpelling();
      consumeToken();
      auto [it, inserted] = seen.try_emplace(name, nameLoc);
      if (!inserted)
        return (emitError(nameLoc)
                << "duplicate attribute name '" << name << "' in dictionary")
            .note(it->second, "previous entry here");
      const Attribute *value = nullptr;
      if (failed(parseToken(Token::equal, "after attribute name")) ||
          failed(parseAttribute(value)))
        return failure();
      entries.push_back({ctx.allocateCopy(name), value});
    } while (consumeIf(Token::comma));
    if (failed(parseToken(Token::r_brace, "in dictionary attribute")))
      return failure();
  }
  attr = DictionaryAttr::get(ctx, entries);
  return success();
}

LogicalResult Parser::parseOptionalDictionaryAttr(const DictionaryAttr *&attr) {
  attr = nullptr;
  if (tok.isNot(Token::l_brace) && tok.isNot(Token::def_identifier))
    return success();
  return parseDictionaryAttr(attr);
}
