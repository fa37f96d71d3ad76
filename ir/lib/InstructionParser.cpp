//===- InstructionParser.cpp - Instructions, driven by their formats ------===//
#include "ParserImpl.h"

#include "llvm/ADT/StringSwitch.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

LogicalResult Parser::PendingOperands::parse(Parser &parser, unsigned group) {
  Value *value = nullptr;
  Location loc;
  if (failed(parser.parseValueUse(value, loc)))
    return failure();
  groups[group].push_back(value);
  locs[group].push_back(loc);
  return success();
}

/// The token kind of a punctuation literal of a format, if it is one.
static std::optional<Token::Kind> getPunctuationKind(llvm::StringRef text) {
  return llvm::StringSwitch<std::optional<Token::Kind>>(text)
#define TOK_PUNCTUATION(NAME, SPELLING) .Case(SPELLING, Token::NAME)
#include "TokenKinds.def"
      .Default(std::nullopt);
}

/// "'.x', '.y' or '.z'" for the spellings of \p prop.
static std::string listSpellings(const PropertyDescriptor &prop) {
  std::string result;
  llvm::SmallVector<llvm::StringRef, 8> spellings;
  for (llvm::StringRef spelling : prop.spellings)
    if (!spelling.empty())
      spellings.push_back(spelling);
  for (unsigned i = 0; i < spellings.size(); ++i) {
    if (i != 0)
      result += i + 1 == spellings.size() ? " or " : ", ";
    result += ("'" + spellings[i] + "'").str();
  }
  return result;
}

LogicalResult Parser::parseModifiers(Instruction &inst,
                                     const FormatElement &element) {
  const InstDescriptor &desc = inst.getDescriptor();
  llvm::SmallVector<bool, 4> assigned(element.indices.size(), false);
  while (tok.is(Token::modifier)) {
    llvm::StringRef spelling = tok.getSpelling();
    bool known = false;
    bool matched = false;
    // The first unassigned property accepting the spelling takes it, so
    // repeated enums are positional (`gemm.t.n`: transpose_a, transpose_b).
    for (unsigned i = 0; i < element.indices.size() && !matched; ++i) {
      unsigned propIndex = element.indices[i];
      const PropertyDescriptor &prop = desc.properties[propIndex];
      for (unsigned e = 0; e < prop.spellings.size(); ++e) {
        if (prop.spellings[e] != spelling)
          continue;
        known = true;
        if (assigned[i])
          break;
        assigned[i] = true;
        matched = true;
        if (prop.kind == PropertyKind::Flag)
          inst.setProperty(propIndex, true);
        else
          inst.setProperty(propIndex, static_cast<int64_t>(e));
        break;
      }
    }
    if (!matched)
      return emitError() << (known ? "duplicate" : "unknown") << " modifier '"
                         << spelling << "' for '" << desc.mnemonic << "'";
    consumeToken();
  }
  // Enums that are always written (`group_id.x`) have no default spelling.
  for (unsigned i = 0; i < element.indices.size(); ++i) {
    const PropertyDescriptor &prop = desc.properties[element.indices[i]];
    if (!assigned[i] && prop.kind == PropertyKind::Enum && prop.alwaysPrint)
      return emitExpected("modifier " + listSpellings(prop) + " after '" +
                          desc.mnemonic + "'");
  }
  return success();
}

LogicalResult Parser::parseIntegerList(IntegerList &values) {
  if (failed(parseToken(Token::l_square)))
    return failure();
  if (tok.isNot(Token::r_square)) {
    do {
      int64_t value = 0;
      if (failed(parseInteger(value, "integer constant")))
        return failure();
      values.push_back(value);
    } while (consumeIf(Token::comma));
  }
  return parseToken(Token::r_square);
}

LogicalResult Parser::parsePropertyElement(Instruction &inst,
                                           const FormatElement &element) {
  const PropertyDescriptor &prop =
      inst.getDescriptor().properties[element.index];
  switch (prop.kind) {
  case PropertyKind::Integer: {
    int64_t value = 0;
    if (failed(parseInteger(value, "integer constant")))
      return failure();
    inst.setProperty(element.index, value);
    break;
  }
  case PropertyKind::Constant: {
    ConstantValue value;
    if (failed(parseConstant(value)))
      return failure();
    inst.setProperty(element.index, value);
    break;
  }
  case PropertyKind::Dictionary: {
    const DictionaryAttr *dict = nullptr;
    if (failed(parseOptionalDictionaryAttr(dict)))
      return failure();
    inst.setProperty(element.index, dict);
    break;
  }
  case PropertyKind::IntegerList: {
    IntegerList values;
    if (failed(parseIntegerList(values)))
      return failure();
    inst.setProperty(element.index, std::move(values));
    break;
  }
  case PropertyKind::Flag:
  case PropertyKind::Enum:
    break; // handled as Modifiers
  }
  return success();
}

LogicalResult Parser::parseOperandElement(const InstDescriptor &desc,
                                          const FormatElement &element,
                                          PendingOperands &operands) {
  switch (desc.operands[element.index].arity) {
  case Arity::Single:
    return operands.parse(*this, element.index);
  case Arity::Optional:
    if (tok.is(Token::local_identifier))
      return operands.parse(*this, element.index);
    return success();
  case Arity::Variadic:
    if (tok.isNot(Token::local_identifier))
      return success();
    do {
      if (failed(operands.parse(*this, element.index)))
        return failure();
    } while (consumeIf(Token::comma));
    return success();
  }
  return success();
}

LogicalResult Parser::parseAttrDictElement(Instruction &inst,
                                           const FormatElement &element) {
  const DictionaryAttr *dict = nullptr;
  if (element.kind == FormatElement::Kind::AttrDictWithKeyword) {
    if (consumeIf(Token::kw_attributes) && failed(parseDictionaryAttr(dict)))
      return failure();
  } else if (failed(parseOptionalDictionaryAttr(dict))) {
    return failure();
  }
  inst.setProperty(element.index, dict);
  return success();
}

LogicalResult Parser::parseFormatElement(Instruction &inst,
                                         const FormatElement &element,
                                         PendingOperands &operands) {
  switch (element.kind) {
  case FormatElement::Kind::Literal:
    if (std::optional<Token::Kind> kind = getPunctuationKind(element.text))
      return parseToken(*kind);
    return parseWord(element.text);
  case FormatElement::Kind::Modifiers:
    return parseModifiers(inst, element);
  case FormatElement::Kind::Property:
    return parsePropertyElement(inst, element);
  case FormatElement::Kind::Operand:
    return parseOperandElement(inst.getDescriptor(), element, operands);
  case FormatElement::Kind::Region:
    return parseRegion(inst.getRegion(element.index));
  case FormatElement::Kind::Type: {
    const Type *type = nullptr;
    if (failed(parseToken(Token::colon, "before result type")) ||
        failed(parseType(type)))
      return failure();
    inst.addResult(type);
    return success();
  }
  case FormatElement::Kind::AttrDict:
  case FormatElement::Kind::AttrDictWithKeyword:
    return parseAttrDictElement(inst, element);
  case FormatElement::Kind::Custom:
    return parseCustom(inst, element, operands);
  }
  return success();
}

LogicalResult Parser::parseFormat(Instruction &inst, const AsmFormat &format,
                                  PendingOperands &operands) {
  if (tok.is(Token::modifier) &&
      (format.elements.empty() ||
       format.elements.front().kind != FormatElement::Kind::Modifiers))
    return emitError() << "unknown modifier '" << tok.getSpelling() << "' for '"
                       << inst.getDescriptor().mnemonic << "'";
  for (const FormatElement &element : format.elements)
    if (failed(parseFormatElement(inst, element, operands)))
      return failure();
  return success();
}

/// instruction = [local-identifier-list "="] mnemonic modifiers operands
///               [":" type]
LogicalResult Parser::parseInstruction(Region &region) {
  llvm::SmallVector<Token, 2> resultNames;
  if (tok.is(Token::local_identifier)) {
    do {
      if (tok.isNot(Token::local_identifier))
        return emitExpected("result name");
      resultNames.push_back(tok);
      consumeToken();
    } while (consumeIf(Token::comma));
    if (failed(parseToken(Token::equal, "after result names")))
      return failure();
  }
  if (tok.isNot(Token::bare_identifier))
    return emitExpected("instruction");
  Token mnemonicTok = tok;
  std::optional<InstKind> kind = lookupMnemonic(tok.getSpelling());
  if (!kind)
    return emitError() << "unknown instruction '" << tok.getSpelling() << "'";
  consumeToken();

  std::string formatError;
  const AsmFormat *format = getAsmFormat(*kind, &formatError);
  if (!format)
    return emitError(mnemonicTok.getRange())
           << "cannot parse '" << mnemonicTok.getSpelling()
           << "': " << formatError;

  std::unique_ptr<Instruction> inst =
      Instruction::create(*kind, mnemonicTok.getRange());
  const InstDescriptor &desc = inst->getDescriptor();
  PendingOperands operands;
  operands.groups.resize(desc.operands.size());
  operands.locs.resize(desc.operands.size());
  if (failed(parseFormat(*inst, *format, operands)))
    return failure();

  llvm::SmallVector<Value *, 8> values;
  llvm::SmallVector<unsigned, 6> segmentSizes;
  llvm::SmallVector<Location, 8> locs;
  for (unsigned g = 0; g < operands.groups.size(); ++g) {
    llvm::append_range(values, operands.groups[g]);
    llvm::append_range(locs, operands.locs[g]);
    segmentSizes.push_back(operands.groups[g].size());
  }
  inst->setOperands(values, segmentSizes);
  inst->setOperandLocs(locs);

  // Multi-value instructions (for, if) may drop their names altogether.
  bool namesOptional = resultNames.empty() && !desc.results.empty() &&
                       desc.results.front().arity == Arity::Variadic;
  if (!namesOptional && resultNames.size() != inst->getNumResults()) {
    Location loc = resultNames.empty() ? mnemonicTok.getRange()
                                       : resultNames.front().getRange();
    return emitError(loc) << "'" << desc.mnemonic << "' returns "
                          << inst->getNumResults()
                          << (inst->getNumResults() == 1 ? " value" : " values")
                          << ", but " << resultNames.size()
                          << (resultNames.size() == 1 ? " name is"
                                                      : " names are")
                          << " given";
  }
  for (unsigned i = 0; i < resultNames.size(); ++i)
    if (failed(defineValue(resultNames[i], inst->getResult(i))))
      return failure();
  region.push_back(std::move(inst));
  return success();
}
