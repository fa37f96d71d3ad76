//===- Parser.cpp - Parser of Tensor Comprehensions -----------------------===//
#include "comprehend/tc/Parser.h"
#include "comprehend/tc/Lexer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <vector>

using namespace comprehend;
using namespace comprehend::tc;

namespace {

/// A binary operator token: its binding strength (higher binds tighter) and
/// the operation it makes.
struct BinaryOperator {
  TokenKind token;
  int precedence;
  BinaryOp op;
};

constexpr BinaryOperator kBinaryOperators[] = {
    {TokenKind::PipePipe, 1, BinaryOp::Or},
    {TokenKind::AmpAmp, 2, BinaryOp::And},
    {TokenKind::EqualEqual, 3, BinaryOp::Equal},
    {TokenKind::NotEqual, 3, BinaryOp::NotEqual},
    {TokenKind::Less, 4, BinaryOp::Less},
    {TokenKind::Greater, 4, BinaryOp::Greater},
    {TokenKind::LessEqual, 4, BinaryOp::LessEqual},
    {TokenKind::GreaterEqual, 4, BinaryOp::GreaterEqual},
    {TokenKind::Plus, 5, BinaryOp::Add},
    {TokenKind::Minus, 5, BinaryOp::Sub},
    {TokenKind::Star, 6, BinaryOp::Mul},
    {TokenKind::Slash, 6, BinaryOp::Div},
    {TokenKind::Percent, 6, BinaryOp::Mod},
};

/// The binary operator \p kind spells, or null if it spells none.
const BinaryOperator *lookupBinaryOperator(TokenKind kind) {
  for (const BinaryOperator &entry : kBinaryOperators)
    if (entry.token == kind)
      return &entry;
  return nullptr;
}

/// The assignment tokens: the reduction each makes and whether it has `!`
/// (the output starts from the reduction's identity).
struct Assignment {
  TokenKind token;
  ReductionKind reduction;
  bool bang;
};
constexpr Assignment kAssignments[] = {
    {TokenKind::Equal, ReductionKind::None, false},
    {TokenKind::PlusEqual, ReductionKind::Add, false},
    {TokenKind::StarEqual, ReductionKind::Mul, false},
    {TokenKind::MinEqual, ReductionKind::Min, false},
    {TokenKind::MaxEqual, ReductionKind::Max, false},
    {TokenKind::PlusEqualBang, ReductionKind::Add, true},
    {TokenKind::StarEqualBang, ReductionKind::Mul, true},
    {TokenKind::MinEqualBang, ReductionKind::Min, true},
    {TokenKind::MaxEqualBang, ReductionKind::Max, true},
};

/// The reduction of an assignment token, or nullopt if it is none.
std::optional<std::pair<ReductionKind, bool>> getAssignment(TokenKind kind) {
  for (const Assignment &assignment : kAssignments)
    if (assignment.token == kind)
      return std::make_pair(assignment.reduction, assignment.bang);
  return std::nullopt;
}

Location joinLocs(Location first, Location last) {
  return Location(first.Start, last.End);
}

class Parser {
public:
  Parser(llvm::StringRef buffer, DiagnosticEngine &diags) : diags(diags) {
    Lexer lexer(buffer, diags);
    do {
      tokens.push_back(lexer.lex());
    } while (!tokens.back().is(TokenKind::Eof));
    // Defs may call defs written further down; knowing every def name up
    // front tells `a = f(x)` (a call) from `a = T(x)` (a 0-d comprehension).
    for (size_t i = 0; i + 1 < tokens.size(); ++i)
      if (tokens[i].is(TokenKind::KwDef) && tokens[i + 1].is(TokenKind::Ident))
        defNames.insert(tokens[i + 1].getSpelling());
  }

  LogicalResult parseProgram(Program &program);

private:
  const Token &tok() const { return tokens[pos]; }
  const Token &peek(size_t n) const {
    return tokens[std::min(pos + n, tokens.size() - 1)];
  }
  Token consume() {
    Token token = tokens[pos];
    if (pos + 1 < tokens.size())
      ++pos;
    return token;
  }
  bool consumeIf(TokenKind kind) {
    if (!tok().is(kind))
      return false;
    consume();
    return true;
  }
  /// Reports "expected X but found Y" at the current token. Lexer errors
  /// were reported already, so they only fail.
  LogicalResult expected(const llvm::Twine &what) {
    if (tok().is(TokenKind::Error))
      return failure();
    if (tok().is(TokenKind::Eof))
      return diags.emitError(tok().getLoc())
             << "expected " << what << " but found end of file";
    return diags.emitError(tok().getLoc())
           << "expected " << what << " but found '" << tok().getSpelling()
           << "'";
  }
  LogicalResult expect(TokenKind kind, Token *out = nullptr) {
    if (!tok().is(kind))
      return expected(getTokenKindName(kind));
    Token token = consume();
    if (out)
      *out = token;
    return success();
  }
  LogicalResult parseIdent(const llvm::Twine &what, Ident &out) {
    if (!tok().is(TokenKind::Ident))
      return expected(what);
    Token token = consume();
    out = Ident{token.getSpelling(), token.getLoc()};
    return success();
  }
  Location prevLoc() const { return tokens[pos == 0 ? 0 : pos - 1].getLoc(); }

  std::unique_ptr<Def> parseDef();
  LogicalResult parseParams(std::vector<Param> &params);
  LogicalResult parseType(TensorType &type);
  std::unique_ptr<Stmt> parseStmt();
  std::unique_ptr<Stmt> parseCall();
  std::unique_ptr<Stmt> parseComprehension();
  LogicalResult parseWhere(std::vector<WhereClause> &wheres);
  ExprPtr parseExpr();
  ExprPtr parseBinary(int minPrecedence);
  ExprPtr parseUnary();
  ExprPtr parsePrimary();
  LogicalResult parseExprList(llvm::SmallVectorImpl<ExprPtr> &exprs);
  bool isCallStart() const;

  DiagnosticEngine &diags;
  std::vector<Token> tokens;
  size_t pos = 0;
  llvm::StringSet<> defNames;
  /// Current nesting of expressions and unary operators.
  unsigned depth = 0;
  static constexpr unsigned kMaxDepth = 256;
  static constexpr unsigned kMaxChain = 4096;
};

} // namespace

LogicalResult Parser::parseProgram(Program &program) {
  bool ok = true;
  while (!tok().is(TokenKind::Eof)) {
    if (!tok().is(TokenKind::KwDef)) {
      (void)expected("'def'");
      ok = false;
    } else if (std::unique_ptr<Def> def = parseDef()) {
      program.addDef(std::move(def));
      continue;
    } else {
      ok = false;
    }
    // Resume at the next def.
    consume();
    while (!tok().is(TokenKind::Eof) && !tok().is(TokenKind::KwDef))
      consume();
  }
  return success(ok);
}

std::unique_ptr<Def> Parser::parseDef() {
  Token defTok = consume();
  Ident name;
  std::vector<Param> inputs, outputs;
  if (failed(parseIdent("a function name", name)) ||
      failed(expect(TokenKind::LParen)) || failed(parseParams(inputs)) ||
      failed(expect(TokenKind::RParen)) || failed(expect(TokenKind::Arrow)) ||
      failed(expect(TokenKind::LParen)) || failed(parseParams(outputs)) ||
      failed(expect(TokenKind::RParen)) || failed(expect(TokenKind::LBrace)))
    return nullptr;
  std::vector<std::unique_ptr<Stmt>> body;
  while (!tok().is(TokenKind::RBrace)) {
    std::unique_ptr<Stmt> stmt = parseStmt();
    if (!stmt)
      return nullptr;
    body.push_back(std::move(stmt));
  }
  Token rbrace = consume();
  return std::make_unique<Def>(joinLocs(defTok.getLoc(), rbrace.getLoc()), name,
                               std::move(inputs), std::move(outputs),
                               std::move(body));
}

LogicalResult Parser::parseParams(std::vector<Param> &params) {
  if (tok().is(TokenKind::RParen))
    return success();
  do {
    Param param;
    if (tok().isTypeKeyword()) {
      param.type.emplace();
      if (failed(parseType(*param.type)))
        return failure();
    }
    if (failed(parseIdent("a parameter name", param.name)))
      return failure();
    params.push_back(std::move(param));
  } while (consumeIf(TokenKind::Comma));
  return success();
}

LogicalResult Parser::parseType(TensorType &type) {
  Token scalar = consume();
  type.scalar = *getTypeKeywordScalar(scalar.getKind());
  type.loc = scalar.getLoc();
  if (!consumeIf(TokenKind::LParen))
    return success();
  if (!tok().is(TokenKind::RParen)) {
    do {
      TensorType::Dim dim;
      dim.loc = tok().getLoc();
      if (tok().is(TokenKind::Ident)) {
        dim.sizeVar = consume().getSpelling();
      } else if (tok().is(TokenKind::IntLit)) {
        dim.constant = consume().getIntValue();
      } else {
        return expected("a size variable or an integer");
      }
      type.dims.push_back(dim);
    } while (consumeIf(TokenKind::Comma));
  }
  if (failed(expect(TokenKind::RParen)))
    return failure();
  type.loc = joinLocs(type.loc, prevLoc());
  return success();
}

bool Parser::isCallStart() const {
  if (!tok().is(TokenKind::Ident))
    return false;
  if (peek(1).is(TokenKind::Comma))
    return true;
  return peek(1).is(TokenKind::Equal) && peek(2).is(TokenKind::Ident) &&
         peek(3).is(TokenKind::LParen) &&
         defNames.contains(peek(2).getSpelling());
}

std::unique_ptr<Stmt> Parser::parseStmt() {
  if (isCallStart())
    return parseCall();
  return parseComprehension();
}

std::unique_ptr<Stmt> Parser::parseCall() {
  Location start = tok().getLoc();
  llvm::SmallVector<Ident, 2> results;
  do {
    Ident result;
    if (failed(parseIdent("a result name", result)))
      return nullptr;
    results.push_back(result);
  } while (consumeIf(TokenKind::Comma));
  Ident callee;
  if (failed(expect(TokenKind::Equal)) ||
      failed(parseIdent("a function name", callee)) ||
      failed(expect(TokenKind::LParen)))
    return nullptr;
  llvm::SmallVector<Ident, 4> args;
  if (!tok().is(TokenKind::RParen)) {
    do {
      Ident arg;
      if (failed(parseIdent("a tensor name", arg)))
        return nullptr;
      args.push_back(arg);
    } while (consumeIf(TokenKind::Comma));
  }
  if (failed(expect(TokenKind::RParen)))
    return nullptr;
  return std::make_unique<CallStmt>(
      joinLocs(start, prevLoc()), std::move(results), callee, std::move(args));
}

std::unique_ptr<Stmt> Parser::parseComprehension() {
  Ident lhs;
  if (failed(parseIdent("a tensor name", lhs)))
    return nullptr;
  llvm::SmallVector<Ident, 4> indices;
  if (consumeIf(TokenKind::LParen) && !consumeIf(TokenKind::RParen)) {
    do {
      Ident index;
      if (failed(parseIdent("an index variable", index)))
        return nullptr;
      indices.push_back(index);
    } while (consumeIf(TokenKind::Comma));
    if (!tok().is(TokenKind::RParen)) {
      (void)expected("',' or ')'");
      return nullptr;
    }
    consume();
  }
  std::optional<std::pair<ReductionKind, bool>> assign =
      getAssignment(tok().getKind());
  if (!assign) {
    (void)expected("an assignment operator ('=', '+=', '*=', 'min=', "
                   "'max=' or a '!' form)");
    return nullptr;
  }
  Location opLoc = consume().getLoc();
  ExprPtr rhs = parseExpr();
  if (!rhs)
    return nullptr;
  std::vector<WhereClause> wheres;
  if (consumeIf(TokenKind::KwWhere) && failed(parseWhere(wheres)))
    return nullptr;
  return std::make_unique<ComprehensionStmt>(
      joinLocs(lhs.loc, prevLoc()), lhs, std::move(indices), assign->first,
      assign->second, opLoc, std::move(rhs), std::move(wheres));
}

LogicalResult Parser::parseWhere(std::vector<WhereClause> &wheres) {
  do {
    Location start = tok().getLoc();
    if (consumeIf(TokenKind::KwExists)) {
      ExprPtr value = parseExpr();
      if (!value)
        return failure();
      wheres.emplace_back(WhereClause::Kind::Exists, joinLocs(start, prevLoc()),
                          Ident{}, std::move(value));
      continue;
    }
    Ident var;
    if (failed(parseIdent("a variable name or 'exists'", var)))
      return failure();
    if (consumeIf(TokenKind::Equal)) {
      ExprPtr value = parseExpr();
      if (!value)
        return failure();
      wheres.emplace_back(WhereClause::Kind::Let, joinLocs(start, prevLoc()),
                          var, std::move(value));
      continue;
    }
    if (!consumeIf(TokenKind::KwIn))
      return expected("'in' or '='");
    ExprPtr lo = parseExpr();
    if (!lo || failed(expect(TokenKind::Colon)))
      return failure();
    ExprPtr hi = parseExpr();
    if (!hi)
      return failure();
    wheres.emplace_back(WhereClause::Kind::Range, joinLocs(start, prevLoc()),
                        var, std::move(lo), std::move(hi));
  } while (consumeIf(TokenKind::Comma));
  return success();
}

ExprPtr Parser::parseExpr() {
  // Recursion depth is bounded so that hostile input cannot overflow the
  // stack.
  if (depth >= kMaxDepth) {
    (void)(diags.emitError(tok().getLoc())
           << "expression is nested more than " << kMaxDepth << " levels deep");
    return nullptr;
  }
  ++depth;
  auto restore = llvm::make_scope_exit([&] { --depth; });
  ExprPtr cond = parseBinary(1);
  if (!cond || !consumeIf(TokenKind::Question))
    return cond;
  ExprPtr trueValue = parseExpr();
  if (!trueValue || failed(expect(TokenKind::Colon)))
    return nullptr;
  ExprPtr falseValue = parseExpr();
  if (!falseValue)
    return nullptr;
  Location loc = joinLocs(cond->getLoc(), falseValue->getLoc());
  return std::make_unique<TernaryExpr>(
      loc, std::move(cond), std::move(trueValue), std::move(falseValue));
}

ExprPtr Parser::parseBinary(int minPrecedence) {
  ExprPtr lhs = parseUnary();
  // Left-associative chains nest as deeply as they are long; later passes
  // recurse over them.
  unsigned chain = 0;
  while (lhs) {
    const BinaryOperator *binary = lookupBinaryOperator(tok().getKind());
    if (!binary || binary->precedence < minPrecedence)
      return lhs;
    if (++chain > kMaxChain) {
      (void)(diags.emitError(tok().getLoc())
             << "expression has more than " << kMaxChain
             << " operators in a row");
      return nullptr;
    }
    consume();
    BinaryOp op = binary->op;
    ExprPtr rhs = parseBinary(binary->precedence + 1);
    if (!rhs)
      return nullptr;
    Location loc = joinLocs(lhs->getLoc(), rhs->getLoc());
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (!tok().is(TokenKind::Minus) && !tok().is(TokenKind::Bang))
    return parsePrimary();
  if (depth >= kMaxDepth) {
    (void)(diags.emitError(tok().getLoc())
           << "expression is nested more than " << kMaxDepth << " levels deep");
    return nullptr;
  }
  ++depth;
  auto restore = llvm::make_scope_exit([&] { --depth; });
  Token opTok = consume();
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  Location loc = joinLocs(opTok.getLoc(), operand->getLoc());
  return std::make_unique<UnaryExpr>(
      loc, opTok.is(TokenKind::Minus) ? UnaryOp::Neg : UnaryOp::Not,
      std::move(operand));
}

LogicalResult Parser::parseExprList(llvm::SmallVectorImpl<ExprPtr> &exprs) {
  if (failed(expect(TokenKind::LParen)))
    return failure();
  if (consumeIf(TokenKind::RParen))
    return success();
  do {
    ExprPtr expr = parseExpr();
    if (!expr)
      return failure();
    exprs.push_back(std::move(expr));
  } while (consumeIf(TokenKind::Comma));
  if (!tok().is(TokenKind::RParen))
    return expected("',' or ')'");
  consume();
  return success();
}

ExprPtr Parser::parsePrimary() {
  const Token &token = tok();
  Location start = token.getLoc();
  switch (token.getKind()) {
  case TokenKind::IntLit: {
    Token lit = consume();
    return std::make_unique<IntLitExpr>(lit.getLoc(), lit.getIntValue(),
                                        lit.getLiteralType());
  }
  case TokenKind::FloatLit: {
    Token lit = consume();
    return std::make_unique<FloatLitExpr>(lit.getLoc(), lit.getFloatValue(),
                                          lit.getLiteralType());
  }
  case TokenKind::LParen: {
    consume();
    ExprPtr inner = parseExpr();
    if (!inner)
      return nullptr;
    Location close = tok().getLoc();
    if (failed(expect(TokenKind::RParen)))
      return nullptr;
    inner->setLoc(joinLocs(start, close));
    return inner;
  }
  case TokenKind::KwMin:
  case TokenKind::KwMax: {
    BinaryOp op =
        consume().is(TokenKind::KwMin) ? BinaryOp::Min : BinaryOp::Max;
    llvm::SmallVector<ExprPtr, 4> args;
    if (failed(parseExprList(args)))
      return nullptr;
    Location loc = joinLocs(start, prevLoc());
    if (args.size() != 2) {
      (void)(diags.emitError(loc)
             << "'" << getSpelling(op) << "' expects 2 arguments but found "
             << args.size());
      return nullptr;
    }
    return std::make_unique<BinaryExpr>(loc, op, std::move(args[0]),
                                        std::move(args[1]));
  }
  case TokenKind::Ident: {
    Ident name{token.getSpelling(), token.getLoc()};
    consume();
    if (consumeIf(TokenKind::Dot)) {
      if (!tok().is(TokenKind::IntLit)) {
        (void)expected("a dimension number");
        return nullptr;
      }
      int64_t dim = consume().getIntValue();
      return std::make_unique<DimAccessExpr>(joinLocs(start, prevLoc()), name,
                                             dim);
    }
    if (!tok().is(TokenKind::LParen))
      return std::make_unique<IdentExpr>(name);
    llvm::SmallVector<ExprPtr, 4> args;
    if (failed(parseExprList(args)))
      return nullptr;
    return std::make_unique<ApplyExpr>(joinLocs(start, prevLoc()), name,
                                       std::move(args));
  }
  default:
    break;
  }
  if (std::optional<ScalarType> type = getTypeKeywordScalar(token.getKind())) {
    consume();
    llvm::SmallVector<ExprPtr, 4> args;
    if (failed(parseExprList(args)))
      return nullptr;
    Location loc = joinLocs(start, prevLoc());
    if (args.size() != 1) {
      (void)(diags.emitError(loc)
             << "conversion to '" << getSpelling(*type)
             << "' expects 1 argument but found " << args.size());
      return nullptr;
    }
    return std::make_unique<CastExpr>(loc, *type, std::move(args[0]));
  }
  (void)expected("an expression");
  return nullptr;
}

LogicalResult tc::parseProgram(llvm::StringRef buffer, DiagnosticEngine &diags,
                               Program &program) {
  Parser parser(buffer, diags);
  return parser.parseProgram(program);
}
