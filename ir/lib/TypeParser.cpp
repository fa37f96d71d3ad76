//===- TypeParser.cpp - Types ---------------------------------------------===//
//
// Shapes are written without separators between sizes (`f32x4x?`), so the
// lexer returns identifiers such as `f32x4x` or `x8`; the parser splits them
// by re-lexing from inside the identifier (Parser::resetToken).
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

bool Parser::isAtType() const {
  if (tok.is(Token::def_identifier))
    return true;
  if (tok.isNot(Token::bare_identifier))
    return false;
  llvm::StringRef word = tok.getSpelling();
  return word == "void" || word == "bool" || word == "memref" ||
         word == "group" || word == "coopmatrix" ||
         parseScalarKind(word).has_value();
}

namespace {

/// Parsers of the composite types; they share the shape-splitting helpers.
class TypeParser {
public:
  explicit TypeParser(Parser &parser)
      : parser(parser), ctx(parser.getContext()) {}

  LogicalResult parseType(const Type *&type);

private:
  const Token &tok() const { return parser.getToken(); }

  /// number-type at the start of a shape: `f32`, `f32x4...`, or `$t`.
  LogicalResult parseElementKind(ScalarKind &kind);
  /// Consumes an `x` separator, splitting `x4x8` into `x` and `4x8`.
  bool consumeX() { return parser.consumeShapeSeparator(); }
  /// *("x" constant-or-dynamic)
  LogicalResult parseShape(llvm::SmallVectorImpl<int64_t> &shape);

  LogicalResult parseMemRef(const Type *&type, llvm::SMLoc start);
  LogicalResult parseGroup(const Type *&type);
  LogicalResult parseCoopMatrix(const Type *&type);
  LogicalResult parseVector(const Type *&type);

  Parser &parser;
  Context &ctx;
};

} // namespace

LogicalResult TypeParser::parseElementKind(ScalarKind &kind) {
  if (tok().is(Token::def_identifier)) {
    Token nameTok = tok();
    const Definition *def = parser.resolveDefinition();
    if (!def)
      return failure();
    if (const auto *scalar =
            llvm::dyn_cast_or_null<ScalarType>(def->getType())) {
      kind = scalar->getScalarKind();
      return success();
    }
    return (parser.emitError(nameTok.getRange())
            << "expected number type, but '" << nameTok.getSpelling() << "' is "
            << def->getDescription())
        .note(def->loc, "assigned here");
  }
  if (tok().isNot(Token::bare_identifier))
    return parser.emitExpected("number type");
  llvm::StringRef word = tok().getSpelling();
  if (std::optional<ScalarKind> whole = parseScalarKind(word)) {
    kind = *whole;
    parser.consumeToken();
    return success();
  }
  // `f32x4x8`: the longest prefix before an `x` that names a number type.
  for (size_t pos = word.find('x'); pos != llvm::StringRef::npos;
       pos = word.find('x', pos + 1)) {
    if (std::optional<ScalarKind> prefix =
            parseScalarKind(word.take_front(pos))) {
      kind = *prefix;
      parser.resetToken(word.data() + pos);
      return success();
    }
  }
  return parser.emitExpected("number type");
}

LogicalResult TypeParser::parseShape(llvm::SmallVectorImpl<int64_t> &shape) {
  while (consumeX()) {
    int64_t size = 0;
    if (failed(parser.parseIntegerOrDynamic(size, "mode size")))
      return failure();
    shape.push_back(size);
  }
  return success();
}

/// memref-type = "memref<" number-type tensor-shape ["," memory-layout]
///               ["," address-space] ">"
LogicalResult TypeParser::parseMemRef(const Type *&type, llvm::SMLoc start) {
  ScalarKind elem;
  llvm::SmallVector<int64_t, 4> shape, stride;
  AddressSpace space = AddressSpace::Global;
  if (failed(parser.parseToken(Token::less, "after 'memref'")) ||
      failed(parseElementKind(elem)) || failed(parseShape(shape)))
    return failure();
  bool hasLayout = false;
  while (parser.consumeIf(Token::comma)) {
    if (!hasLayout && tok().isWord("strided")) {
      hasLayout = true;
      parser.consumeToken();
      if (failed(parser.parseToken(Token::less, "after 'strided'")))
        return failure();
      if (tok().isNot(Token::greater)) {
        do {
          int64_t s = 0;
          if (failed(parser.parseIntegerOrDynamic(s, "stride")))
            return failure();
          stride.push_back(s);
        } while (parser.consumeIf(Token::comma));
      }
      if (failed(parser.parseToken(Token::greater, "after strides")))
        return failure();
      continue;
    }
    if (std::optional<AddressSpace> parsed =
            tok().is(Token::bare_identifier)
                ? parseAddressSpace(tok().getSpelling())
                : std::nullopt) {
      space = *parsed;
      parser.consumeToken();
      break;
    }
    return parser.emitExpected(hasLayout ? "address space ('global' or "
                                           "'local')"
                                         : "'strided' layout or address space");
  }
  if (failed(parser.parseToken(Token::greater, "to end memref type")))
    return failure();
  Location loc = parser.rangeFrom(start);
  // The layout rule needs the stride count first: an empty `strided<>` on a
  // non-scalar memref must not silently mean "packed".
  if (hasLayout && stride.size() != shape.size())
    return parser.emitError(loc)
           << "strided layout of a memref of order " << shape.size()
           << " must have " << shape.size() << " entries, but has "
           << stride.size();
  type = MemRefType::getChecked(ctx, elem, shape, stride, space,
                                [&] { return parser.emitError(loc); });
  return success(type != nullptr);
}

/// group-type = "group<" memref-type "x" constant-or-dynamic
///              ["," "offset" ":" constant-or-dynamic] ">"
LogicalResult TypeParser::parseGroup(const Type *&type) {
  if (failed(parser.parseToken(Token::less, "after 'group'")))
    return failure();
  Location memrefLoc = tok().getRange();
  const Type *element = nullptr;
  if (failed(parseType(element)))
    return failure();
  const auto *memref = llvm::dyn_cast<MemRefType>(element);
  if (!memref)
    return parser.emitError(memrefLoc)
           << "expected memref type in group, but found " << *element;
  if (!consumeX())
    return parser.emitExpected("'x' and group size");
  int64_t size = 0, offset = 0;
  if (failed(parser.parseIntegerOrDynamic(size, "group size")))
    return failure();
  if (parser.consumeIf(Token::comma)) {
    if (failed(parser.parseWord("offset", "in group type")) ||
        failed(parser.parseToken(Token::colon, "after 'offset'")) ||
        failed(parser.parseIntegerOrDynamic(offset, "group offset")))
      return failure();
  }
  if (failed(parser.parseToken(Token::greater, "to end group type")))
    return failure();
  type = GroupType::get(ctx, memref, size, offset);
  return success();
}

/// The largest number of rows or columns of a coopmatrix type. A subgroup
/// holds the matrix in registers; the bound keeps every product of sizes,
/// subgroup size and component bytes far from 64 bits.
static constexpr int64_t kMaxCoopMatrixSize = 65536;

/// coopmatrix-type = "coopmatrix<" number-type 2*2("x" integer-constant) ","
///                   matrix-use ">"
LogicalResult TypeParser::parseCoopMatrix(const Type *&type) {
  ScalarKind component;
  int64_t dims[2] = {0, 0};
  if (failed(parser.parseToken(Token::less, "after 'coopmatrix'")) ||
      failed(parseElementKind(component)))
    return failure();
  for (int64_t &dim : dims) {
    if (!consumeX())
      return parser.emitExpected("'x' and matrix size");
    Location loc = tok().getRange();
    if (failed(parser.parseInteger(dim, "matrix size")))
      return failure();
    if (dim <= 0)
      return parser.emitError(loc)
             << "expected positive matrix size, but found " << dim;
    if (dim > kMaxCoopMatrixSize)
      return parser.emitError(loc) << "matrix size must be at most "
                                   << kMaxCoopMatrixSize << ", but is " << dim;
  }
  if (failed(parser.parseToken(Token::comma, "before matrix use")))
    return failure();
  std::optional<MatrixUse> use = tok().is(Token::bare_identifier)
                                     ? parseMatrixUse(tok().getSpelling())
                                     : std::nullopt;
  if (!use)
    return parser.emitExpected("matrix use ('matrix_a', 'matrix_b' or "
                               "'matrix_acc')");
  parser.consumeToken();
  if (failed(parser.parseToken(Token::greater, "to end coopmatrix type")))
    return failure();
  type = CoopMatrixType::get(ctx, component, dims[0], dims[1], *use);
  return success();
}

/// vector-type = "vector<" number-type "x" integer-constant ">"
/// (lower-coopmatrix's per-work-item parts; widths 2 to 16).
LogicalResult TypeParser::parseVector(const Type *&type) {
  ScalarKind element;
  int64_t width = 0;
  if (failed(parser.parseToken(Token::less, "after 'vector'")) ||
      failed(parseElementKind(element)))
    return failure();
  if (!consumeX())
    return parser.emitExpected("'x' and vector width");
  Location loc = tok().getRange();
  if (failed(parser.parseInteger(width, "vector width")))
    return failure();
  if (width < 2 || width > 16)
    return parser.emitError(loc)
           << "expected vector width from 2 to 16, but found " << width;
  if (failed(parser.parseToken(Token::greater, "to end vector type")))
    return failure();
  type = VectorType::get(ctx, element, static_cast<unsigned>(width));
  return success();
}

LogicalResult TypeParser::parseType(const Type *&type) {
  NestingGuard guard(parser, "type");
  if (guard.failed())
    return failure();
  if (tok().is(Token::def_identifier)) {
    Token nameTok = tok();
    const Definition *def = parser.resolveDefinition();
    if (!def)
      return failure();
    type = def->getType();
    if (type)
      return success();
    return (parser.emitError(nameTok.getRange())
            << "expected type, but '" << nameTok.getSpelling() << "' is "
            << def->getDescription())
        .note(def->loc, "assigned here");
  }
  if (tok().isNot(Token::bare_identifier))
    return parser.emitExpected("type");
  llvm::SMLoc start = tok().getLoc();
  llvm::StringRef word = tok().getSpelling();
  if (std::optional<ScalarKind> kind = parseScalarKind(word)) {
    parser.consumeToken();
    type = ScalarType::get(ctx, *kind);
    return success();
  }
  if (word == "void" || word == "bool") {
    parser.consumeToken();
    type = word == "void" ? static_cast<const Type *>(VoidType::get(ctx))
                          : BoolType::get(ctx);
    return success();
  }
  if (word == "memref") {
    parser.consumeToken();
    return parseMemRef(type, start);
  }
  if (word == "group") {
    parser.consumeToken();
    return parseGroup(type);
  }
  if (word == "coopmatrix") {
    parser.consumeToken();
    return parseCoopMatrix(type);
  }
  if (word == "vector") {
    parser.consumeToken();
    return parseVector(type);
  }
  return parser.emitExpected("type");
}

bool Parser::consumeShapeSeparator() {
  if (tok.isNot(Token::bare_identifier) || !tok.getSpelling().startswith("x"))
    return false;
  if (tok.getSpelling() == "x")
    consumeToken();
  else
    resetToken(tok.getSpelling().data() + 1);
  return true;
}

LogicalResult Parser::parseType(const Type *&type) {
  return TypeParser(*this).parseType(type);
}
