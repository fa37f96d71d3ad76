//===- CustomParsers.cpp - `custom<...>` hooks of instruction formats -----===//
//
// The instructions whose syntax the format directives cannot describe: they
// introduce region parameters (for, foreach, foreach_tile,
// cooperative_matrix_apply), declare result types in a list (for, if), or mix
// constants and values in index lists (subview, expand).
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

namespace {

/// Shared state of one hook invocation.
class CustomParser {
public:
  CustomParser(Parser &parser, Instruction &inst,
               Parser::PendingOperands &operands)
      : parser(parser), inst(inst), desc(inst.getDescriptor()),
        operands(operands) {}

  LogicalResult parseConstant();
  LogicalResult parseFor();
  LogicalResult parseIf();
  LogicalResult parseForeach() { return parseForeach(/*tiled=*/false); }
  LogicalResult parseForeachTile() { return parseForeach(/*tiled=*/true); }
  LogicalResult parseForeach(bool tiled);
  LogicalResult parseSubview();
  LogicalResult parseExpand();
  LogicalResult parseCoopApply();

private:
  const Token &tok() const { return parser.getToken(); }

  /// The index of operand group / property \p name; reports a table
  /// mismatch otherwise.
  LogicalResult operandIndex(llvm::StringRef name, unsigned &index);
  LogicalResult propertyIndex(llvm::StringRef name, unsigned &index);

  /// "(" local-identifier-list ")", new names.
  LogicalResult parseNameList(llvm::SmallVectorImpl<Token> &names);
  /// "(" local-identifier-list ")", uses, into operand group \p group.
  LogicalResult parseUseList(unsigned group);
  /// "(" type *("," type) ")"
  LogicalResult parseTypeList(llvm::SmallVectorImpl<const Type *> &types);
  /// integer-constant-or-identifier: a constant, or kDynamic and a value in
  /// operand group \p group.
  LogicalResult parseConstantOrValue(unsigned group, int64_t &value,
                                     llvm::StringRef what);
  /// Adds parameters named \p names with types \p types to region \p r.
  void addParameters(Region &r, llvm::ArrayRef<Token> names,
                     llvm::ArrayRef<const Type *> types);

  Parser &parser;
  Instruction &inst;
  const InstDescriptor &desc;
  Parser::PendingOperands &operands;
};

} // namespace

LogicalResult CustomParser::operandIndex(llvm::StringRef name,
                                         unsigned &index) {
  if (std::optional<unsigned> found = desc.findOperand(name)) {
    index = *found;
    return success();
  }
  return parser.emitError(inst.getLoc())
         << "'" << desc.mnemonic << "' has no operand '" << name
         << "' in the instruction table";
}

LogicalResult CustomParser::propertyIndex(llvm::StringRef name,
                                          unsigned &index) {
  if (std::optional<unsigned> found = desc.findProperty(name)) {
    index = *found;
    return success();
  }
  return parser.emitError(inst.getLoc())
         << "'" << desc.mnemonic << "' has no property '" << name
         << "' in the instruction table";
}

LogicalResult CustomParser::parseNameList(llvm::SmallVectorImpl<Token> &names) {
  if (failed(parser.parseToken(Token::l_paren)))
    return failure();
  do {
    if (tok().isNot(Token::local_identifier))
      return parser.emitExpected("local identifier");
    names.push_back(tok());
    parser.consumeToken();
  } while (parser.consumeIf(Token::comma));
  return parser.parseToken(Token::r_paren);
}

LogicalResult CustomParser::parseUseList(unsigned group) {
  if (failed(parser.parseToken(Token::l_paren)))
    return failure();
  do {
    if (failed(operands.parse(parser, group)))
      return failure();
  } while (parser.consumeIf(Token::comma));
  return parser.parseToken(Token::r_paren);
}

LogicalResult
CustomParser::parseTypeList(llvm::SmallVectorImpl<const Type *> &types) {
  if (failed(parser.parseToken(Token::l_paren)))
    return failure();
  // return-type-list = return-type *("," return-type): the spec has no empty
  // list; an instruction without results leaves out "-> (...)".
  if (tok().is(Token::r_paren))
    return parser.emitError(tok().getRange())
           << "expected a type: a return type list is not empty (leave out "
              "'-> ()' for no results)";
  do {
    const Type *type = nullptr;
    if (failed(parser.parseType(type)))
      return failure();
    types.push_back(type);
  } while (parser.consumeIf(Token::comma));
  return parser.parseToken(Token::r_paren);
}

LogicalResult CustomParser::parseConstantOrValue(unsigned group, int64_t &value,
                                                 llvm::StringRef what) {
  if (tok().is(Token::local_identifier)) {
    value = kDynamic;
    return operands.parse(parser, group);
  }
  if (tok().isNot(Token::integer) && tok().isNot(Token::def_identifier))
    return parser.emitExpected(what + " (integer constant or local "
                                      "identifier)");
  return parser.parseNonNegativeInteger(value, what);
}

void CustomParser::addParameters(Region &r, llvm::ArrayRef<Token> names,
                                 llvm::ArrayRef<const Type *> types) {
  for (unsigned i = 0; i < names.size(); ++i)
    r.addParameter(types[i], names[i].getRange());
}

/// "constant" constant ":" type
LogicalResult CustomParser::parseConstant() {
  unsigned index = 0;
  ConstantValue value;
  if (failed(propertyIndex("value", index)) ||
      failed(parser.parseConstant(value)))
    return failure();
  inst.setProperty(index, value);
  return success();
}

/// "for" local-identifier "=" local-identifier "," local-identifier
///       ["," local-identifier]
///       ["init" "(" init-value-list ")" "->" "(" return-type-list ")"] region
LogicalResult CustomParser::parseFor() {
  unsigned fromGroup, toGroup, stepGroup, initGroup;
  if (failed(operandIndex("from", fromGroup)) ||
      failed(operandIndex("to", toGroup)) ||
      failed(operandIndex("step", stepGroup)) ||
      failed(operandIndex("init", initGroup)))
    return failure();
  if (tok().isNot(Token::local_identifier))
    return parser.emitExpected("loop variable");
  llvm::SmallVector<Token, 4> names{tok()};
  parser.consumeToken();
  if (failed(parser.parseToken(Token::equal, "after loop variable")) ||
      failed(operands.parse(parser, fromGroup)) ||
      failed(parser.parseToken(Token::comma, "after loop start")) ||
      failed(operands.parse(parser, toGroup)))
    return failure();
  if (parser.consumeIf(Token::comma) &&
      failed(operands.parse(parser, stepGroup)))
    return failure();

  llvm::SmallVector<const Type *, 4> types{
      operands.groups[fromGroup].front()->getType()};
  if (parser.consumeIfWord("init")) {
    if (failed(parser.parseToken(Token::l_paren, "after 'init'")))
      return failure();
    do {
      if (tok().isNot(Token::local_identifier))
        return parser.emitExpected("loop-carried value name");
      names.push_back(tok());
      parser.consumeToken();
      if (failed(parser.parseToken(Token::equal, "after loop-carried value")) ||
          failed(operands.parse(parser, initGroup)))
        return failure();
    } while (parser.consumeIf(Token::comma));
    if (failed(parser.parseToken(Token::r_paren, "after init values")) ||
        failed(parser.parseToken(Token::arrow, "before loop result types")))
      return failure();
    Location typesLoc = tok().getRange();
    llvm::SmallVector<const Type *, 4> resultTypes;
    if (failed(parseTypeList(resultTypes)))
      return failure();
    size_t numInit = operands.groups[initGroup].size();
    if (resultTypes.size() != numInit)
      return parser.emitError(typesLoc)
             << "'for' has " << numInit << " loop-carried "
             << (numInit == 1 ? "value" : "values") << ", but "
             << resultTypes.size() << " result "
             << (resultTypes.size() == 1 ? "type" : "types");
    for (const Type *type : resultTypes) {
      types.push_back(type);
      inst.addResult(type);
    }
  }
  Region &body = inst.getRegion(0);
  addParameters(body, names, types);
  return parser.parseRegion(body, names);
}

/// "if" local-identifier ["->" "(" return-type-list ")"] region
///      ["else" region]
LogicalResult CustomParser::parseIf() {
  unsigned condGroup;
  if (failed(operandIndex("condition", condGroup)) ||
      failed(operands.parse(parser, condGroup)))
    return failure();
  if (parser.consumeIf(Token::arrow)) {
    llvm::SmallVector<const Type *, 4> types;
    if (failed(parseTypeList(types)))
      return failure();
    for (const Type *type : types)
      inst.addResult(type);
  }
  if (failed(parser.parseRegion(inst.getRegion(0))))
    return failure();
  if (parser.consumeIfWord("else"))
    return parser.parseRegion(inst.getRegion(1));
  return success();
}

/// "foreach" "(" vars ")" "=" "(" from ")" "," "(" to ")" region
/// "foreach_tile" "(" vars ")" "=" "(" from ")" "," "(" to ")"
///      "as" "(" sizes ")" "<=" "(" integer-list ")" region
LogicalResult CustomParser::parseForeach(bool tiled) {
  unsigned fromGroup, toGroup;
  if (failed(operandIndex("from", fromGroup)) ||
      failed(operandIndex("to", toGroup)))
    return failure();
  llvm::SmallVector<Token, 4> vars;
  if (failed(parseNameList(vars)) ||
      failed(parser.parseToken(Token::equal, "after loop variables")))
    return failure();
  Location fromLoc = tok().getRange();
  if (failed(parseUseList(fromGroup)) ||
      failed(parser.parseToken(Token::comma, "after loop start")))
    return failure();
  Location toLoc = tok().getRange();
  if (failed(parseUseList(toGroup)))
    return failure();
  auto checkCount = [&](Location loc, size_t count, llvm::StringRef what) {
    if (count == vars.size())
      return success();
    return LogicalResult(parser.emitError(loc)
                         << "'" << desc.mnemonic << "' has " << vars.size()
                         << " loop variables, but " << count << " " << what);
  };
  if (failed(checkCount(fromLoc, operands.groups[fromGroup].size(),
                        "start values")) ||
      failed(checkCount(toLoc, operands.groups[toGroup].size(), "end values")))
    return failure();

  llvm::SmallVector<Token, 8> names(vars.begin(), vars.end());
  llvm::SmallVector<const Type *, 8> types;
  for (Value *from : operands.groups[fromGroup])
    types.push_back(from->getType());
  if (tiled) {
    unsigned shapeProp;
    if (failed(propertyIndex("tile_shape", shapeProp)) ||
        failed(parser.parseWord("as", "before tile sizes")))
      return failure();
    llvm::SmallVector<Token, 4> sizes;
    Location sizesLoc = tok().getRange();
    if (failed(parseNameList(sizes)) ||
        failed(checkCount(sizesLoc, sizes.size(), "tile sizes")) ||
        failed(parser.parseToken(Token::less_equal, "after tile sizes")) ||
        failed(parser.parseToken(Token::l_paren)))
      return failure();
    Location shapeLoc = tok().getRange();
    IntegerList shape;
    do {
      Location loc = tok().getRange();
      int64_t extent = 0;
      if (failed(parser.parseInteger(extent, "tile shape")))
        return failure();
      if (extent <= 0)
        return parser.emitError(loc)
               << "expected positive tile shape, but found " << extent;
      shape.push_back(extent);
    } while (parser.consumeIf(Token::comma));
    if (failed(parser.parseToken(Token::r_paren)) ||
        failed(checkCount(shapeLoc, shape.size(), "tile shape entries")))
      return failure();
    inst.setProperty(shapeProp, std::move(shape));
    for (unsigned i = 0; i < sizes.size(); ++i) {
      names.push_back(sizes[i]);
      types.push_back(types[i]);
    }
  }
  Region &body = inst.getRegion(0);
  addParameters(body, names, types);
  return parser.parseRegion(body, names);
}

/// "subview" local-identifier "[" [index-or-slice-list] "]"
/// index-or-slice = integer-constant-or-identifier
///                  [":" integer-constant-or-identifier]
LogicalResult CustomParser::parseSubview() {
  unsigned operandGroup, offsetGroup, sizeGroup, offsetProp, sizeProp;
  if (failed(operandIndex("operand", operandGroup)) ||
      failed(operandIndex("offsets", offsetGroup)) ||
      failed(operandIndex("sizes", sizeGroup)) ||
      failed(propertyIndex("static_offsets", offsetProp)) ||
      failed(propertyIndex("static_sizes", sizeProp)) ||
      failed(operands.parse(parser, operandGroup)) ||
      failed(parser.parseToken(Token::l_square, "after subview operand")))
    return failure();
  IntegerList offsets, sizes;
  if (tok().isNot(Token::r_square)) {
    do {
      int64_t offset = 0, size = 0;
      if (failed(parseConstantOrValue(offsetGroup, offset, "offset")))
        return failure();
      // A single index is sugar for `offset:0` (the mode is removed).
      if (parser.consumeIf(Token::colon) &&
          failed(parseConstantOrValue(sizeGroup, size, "size")))
        return failure();
      offsets.push_back(offset);
      sizes.push_back(size);
    } while (parser.consumeIf(Token::comma));
  }
  if (failed(parser.parseToken(Token::r_square, "after subview indices")))
    return failure();
  inst.setProperty(offsetProp, std::move(offsets));
  inst.setProperty(sizeProp, std::move(sizes));
  return success();
}

/// "expand" local-identifier "[" integer-constant "->" expand-shape "]"
/// expand-shape = integer-constant-or-identifier
///                1*("x" integer-constant-or-identifier)
LogicalResult CustomParser::parseExpand() {
  unsigned operandGroup, shapeGroup, modeProp, shapeProp;
  if (failed(operandIndex("operand", operandGroup)) ||
      failed(operandIndex("expand_shape", shapeGroup)) ||
      failed(propertyIndex("mode", modeProp)) ||
      failed(propertyIndex("static_expand_shape", shapeProp)) ||
      failed(operands.parse(parser, operandGroup)) ||
      failed(parser.parseToken(Token::l_square, "after expand operand")))
    return failure();
  int64_t mode = 0;
  if (failed(parser.parseNonNegativeInteger(mode, "mode")) ||
      failed(parser.parseToken(Token::arrow, "after expanded mode")))
    return failure();
  IntegerList shape;
  do {
    int64_t size = 0;
    if (failed(parseConstantOrValue(shapeGroup, size, "expand shape entry")))
      return failure();
    shape.push_back(size);
  } while (parser.consumeShapeSeparator());
  if (shape.size() < 2)
    return parser.emitExpected("'x' and at least two expand shape entries");
  if (failed(parser.parseToken(Token::r_square, "after expand shape")))
    return failure();
  inst.setProperty(modeProp, mode);
  inst.setProperty(shapeProp, std::move(shape));
  return success();
}

/// "cooperative_matrix_apply" "(" local-identifier "," local-identifier ","
///     local-identifier ")" "=" local-identifier "->" coopmatrix-type region
LogicalResult CustomParser::parseCoopApply() {
  unsigned matrixGroup;
  if (failed(operandIndex("a", matrixGroup)))
    return failure();
  llvm::SmallVector<Token, 3> names;
  Location namesLoc = tok().getRange();
  if (failed(parseNameList(names)))
    return failure();
  if (names.size() != 3)
    return parser.emitError(namesLoc)
           << "expected 3 names (row, column, value), but found "
           << names.size();
  if (failed(parser.parseToken(Token::equal, "after component names")) ||
      failed(operands.parse(parser, matrixGroup)) ||
      failed(parser.parseToken(Token::arrow, "before result type")))
    return failure();
  Location typeLoc = tok().getRange();
  const Type *type = nullptr;
  if (failed(parser.parseType(type)))
    return failure();
  const auto *coop = llvm::dyn_cast<CoopMatrixType>(type);
  if (!coop)
    return parser.emitError(typeLoc)
           << "expected coopmatrix type, but found " << *type;
  inst.addResult(type);
  Context &ctx = parser.getContext();
  const Type *i32 = ScalarType::get(ctx, ScalarKind::I32);
  Region &body = inst.getRegion(0);
  addParameters(body, names, {i32, i32, coop->getComponentType()});
  return parser.parseRegion(body, names);
}

LogicalResult Parser::parseCustom(Instruction &inst,
                                  const FormatElement &element,
                                  PendingOperands &operands) {
  CustomParser hooks(*this, inst, operands);
  switch (static_cast<CustomFormat>(element.index)) {
#define COMPREHEND_CUSTOM_FORMAT(Name)                                         \
  case CustomFormat::Name:                                                     \
    return hooks.parse##Name();
#include "comprehend/ir/InstCustomFormats.inc"
  }
  llvm_unreachable("AsmFormat resolves every custom format");
}
