//===- Parser.cpp - Programs, functions, regions and values ---------------===//
#include "ParserImpl.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

Parser::Parser(Context &ctx, DiagnosticEngine &diags, unsigned bufferId)
    : ctx(ctx), diags(diags), lexer(diags, bufferId) {
  tok = lexer.lex();
  prevEnd = tok.getLoc();
}

//===----------------------------------------------------------------------===//
// Tokens and diagnostics
//===----------------------------------------------------------------------===//

void Parser::consumeToken() {
  // Never move past the end or past a lexing error: callers stop there.
  if (tok.isAny(Token::eof, Token::error))
    return;
  prevEnd = tok.getEndLoc();
  tok = lexer.lex();
}

void Parser::resetToken(const char *ptr) {
  lexer.resetPointer(ptr);
  tok = lexer.lex();
}

bool Parser::consumeIf(Token::Kind kind) {
  if (tok.isNot(kind))
    return false;
  consumeToken();
  return true;
}

bool Parser::consumeIfWord(llvm::StringRef word) {
  if (!tok.isWord(word))
    return false;
  consumeToken();
  return true;
}

LogicalResult Parser::parseToken(Token::Kind kind, llvm::StringRef context) {
  if (consumeIf(kind))
    return success();
  llvm::Twine what = Token::getKindName(kind);
  if (context.empty())
    return emitExpected(what);
  return emitExpected(what + " " + context);
}

LogicalResult Parser::parseWord(llvm::StringRef word, llvm::StringRef context) {
  if (consumeIfWord(word))
    return success();
  if (context.empty())
    return emitExpected("'" + word + "'");
  return emitExpected("'" + word + "' " + context);
}

InFlightDiagnostic Parser::emitError(Location loc, const llvm::Twine &message) {
  InFlightDiagnostic diag = diags.emitError(loc, message);
  if (!regionsOpenAtError)
    regionsOpenAtError = openRegions;
  // The lexer has reported the real problem at this token already.
  if (tok.is(Token::error) && loc.Start == tok.getLoc())
    diag.abandon();
  return diag;
}

InFlightDiagnostic Parser::emitError(const llvm::Twine &message) {
  return emitError(tok.getRange(), message);
}

std::string Parser::describeToken() const {
  if (tok.is(Token::eof))
    return "end of input";
  return ("'" + tok.getSpelling() + "'").str();
}

InFlightDiagnostic Parser::emitExpected(const llvm::Twine &what) {
  return emitError("expected " + what + ", but found " + describeToken());
}

LogicalResult Parser::enterNesting(llvm::StringRef what) {
  if (depth >= kMaxNestingDepth)
    return emitError() << what << " nested too deeply: more than "
                       << kMaxNestingDepth << " levels";
  ++depth;
  return success();
}

//===----------------------------------------------------------------------===//
// Scopes and values
//===----------------------------------------------------------------------===//

void Parser::pushScope() {
  definitions.pushScope();
  valueScopes.emplace_back();
}

void Parser::popScope() {
  definitions.popScope();
  valueScopes.pop_back();
}

LogicalResult Parser::parseValueUse(Value *&value, Location &loc) {
  if (tok.isNot(Token::local_identifier))
    return emitExpected("local identifier");
  loc = tok.getRange();
  llvm::StringRef name = tok.getIdentifierName();
  for (const llvm::StringMap<Value *> &scope : llvm::reverse(valueScopes)) {
    auto it = scope.find(name);
    if (it != scope.end()) {
      value = it->second;
      consumeToken();
      return success();
    }
  }
  return emitError() << "use of undefined value '" << tok.getSpelling() << "'";
}

LogicalResult Parser::defineValue(const Token &nameTok, Value *value) {
  llvm::StringRef name = nameTok.getIdentifierName();
  for (const llvm::StringMap<Value *> &scope : llvm::reverse(valueScopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return (emitError(nameTok.getRange())
              << "redefinition of value '" << nameTok.getSpelling() << "'")
          .note(it->second->getLoc(), "previous definition here");
  }
  valueScopes.back().try_emplace(name, value);
  value->setLoc(nameTok.getRange());
  if (!llvm::isDigit(name.front()))
    value->setName(name);
  return success();
}

//===----------------------------------------------------------------------===//
// Preprocessor definitions
//===----------------------------------------------------------------------===//

const Definition *Parser::resolveDefinition() {
  const Definition *def = definitions.lookup(tok.getIdentifierName());
  if (!def) {
    (void)(emitError() << "use of undefined compile-time variable '"
                       << tok.getSpelling() << "'");
    return nullptr;
  }
  consumeToken();
  return def;
}

/// def-rhs = boolean-constant / floating-constant / integer-constant /
///           array-attribute / dictionary-attribute / string-attribute /
///           data-type / def-identifier / "!calc" "(" rpn-expr ")"
LogicalResult Parser::parseDefinition() {
  Token nameTok = tok;
  consumeToken();
  if (failed(parseToken(Token::equal, "after compile-time variable")))
    return failure();

  Definition def;
  switch (tok.getKind()) {
  case Token::def_identifier: {
    const Definition *aliased = resolveDefinition();
    if (!aliased)
      return failure();
    def.value = aliased->value;
    break;
  }
  case Token::exclaim: {
    int64_t value = 0;
    if (failed(parseCalc(value)))
      return failure();
    def.value = ConstantLiteral(value);
    break;
  }
  case Token::kw_true:
  case Token::kw_false:
  case Token::integer:
  case Token::floating: {
    ConstantValue value;
    if (failed(parseConstant(value)))
      return failure();
    def.value = value;
    break;
  }
  case Token::l_square: {
    // A complex constant if the first entry is a floating constant, an array
    // attribute otherwise.
    consumeToken();
    if (tok.is(Token::floating)) {
      std::complex<double> complex;
      if (failed(parseComplexParts(complex)))
        return failure();
      def.value = ConstantLiteral(complex);
      break;
    }
    const Attribute *attr = nullptr;
    if (failed(parseArrayAttr(attr, /*bracketConsumed=*/true)))
      return failure();
    def.value = attr;
    break;
  }
  case Token::l_brace:
  case Token::string: {
    const Attribute *attr = nullptr;
    if (failed(parseAttribute(attr)))
      return failure();
    def.value = attr;
    break;
  }
  default: {
    if (!isAtType())
      return emitExpected("constant, type, attribute, '!calc' or "
                          "compile-time variable after '='");
    const Type *type = nullptr;
    if (failed(parseType(type)))
      return failure();
    def.value = type;
    break;
  }
  }
  def.loc = nameTok.getRange();
  if (const Definition *previous =
          definitions.define(nameTok.getIdentifierName(), def))
    return (emitError(nameTok.getRange())
            << "compile-time variable '" << nameTok.getSpelling()
            << "' is already assigned")
        .note(previous->loc, "previous assignment here");
  return success();
}

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

LogicalResult Parser::parseRegion(Region &region,
                                  llvm::ArrayRef<Token> paramNames) {
  NestingGuard guard(*this, "region");
  if (guard.failed())
    return failure();
  if (failed(parseToken(Token::l_brace, "to begin a region")))
    return failure();
  pushScope();
  ++openRegions;
  auto scopeExit = llvm::make_scope_exit([&] {
    popScope();
    --openRegions;
  });
  for (unsigned i = 0; i < paramNames.size(); ++i)
    if (failed(defineValue(paramNames[i], region.getParameter(i))))
      return failure();
  while (!consumeIf(Token::r_brace)) {
    if (tok.is(Token::eof))
      return emitExpected("'}' to end the region");
    LogicalResult result = tok.is(Token::def_identifier)
                               ? parseDefinition()
                               : parseInstruction(region);
    if (failed(result))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Functions and programs
//===----------------------------------------------------------------------===//

/// argument = local-identifier ":" type [dictionary-attribute]
LogicalResult Parser::parseFunction(Program &program) {
  consumeToken(); // func
  if (tok.isNot(Token::global_identifier))
    return emitExpected("function name");
  Token nameTok = tok;
  consumeToken();
  llvm::StringRef name = nameTok.getIdentifierName();
  if (Function *previous = program.lookupFunction(name))
    return (emitError(nameTok.getRange())
            << "redefinition of function '" << nameTok.getSpelling() << "'")
        .note(previous->getLoc(), "previous definition here");

  auto function = std::make_unique<Function>(ctx, name, nameTok.getRange());
  if (failed(parseToken(Token::l_paren, "after function name")))
    return failure();
  llvm::SmallVector<Token, 8> paramNames;
  if (tok.isNot(Token::r_paren)) {
    do {
      if (tok.isNot(Token::local_identifier))
        return emitExpected("parameter name");
      paramNames.push_back(tok);
      consumeToken();
      const Type *type = nullptr;
      const DictionaryAttr *attrs = nullptr;
      if (failed(parseToken(Token::colon, "after parameter name")) ||
          failed(parseType(type)) || failed(parseOptionalDictionaryAttr(attrs)))
        return failure();
      function->addParameter(type, {}, paramNames.back().getRange(), attrs);
    } while (consumeIf(Token::comma));
  }
  if (failed(parseToken(Token::r_paren, "after parameter list")))
    return failure();
  if (consumeIf(Token::kw_attributes)) {
    const DictionaryAttr *attrs = nullptr;
    if (failed(parseDictionaryAttr(attrs)))
      return failure();
    function->setAttributes(attrs);
  }
  if (failed(parseRegion(function->getBody(), paramNames)))
    return failure();
  program.addFunction(std::move(function));
  return success();
}

/// True if only blanks precede \p tok on its line.
static bool isFirstOnLine(const Token &tok, const char *bufferStart) {
  const char *p = tok.getSpelling().data();
  while (p != bufferStart && (p[-1] == ' ' || p[-1] == '\t'))
    --p;
  return p == bufferStart || p[-1] == '\n' || p[-1] == '\r';
}

void Parser::skipAfterError() {
  // Braces still open where the error was found; a global definition may
  // follow once they are closed.
  int open = regionsOpenAtError.value_or(0);
  regionsOpenAtError.reset();
  lexer.setSuppressDiagnostics(true);
  auto restore =
      llvm::make_scope_exit([&] { lexer.setSuppressDiagnostics(false); });
  while (tok.isNot(Token::eof) && tok.isNot(Token::kw_func)) {
    if (open <= 0 && tok.is(Token::def_identifier) &&
        isFirstOnLine(tok, lexer.getBufferStart()))
      return;
    if (tok.is(Token::error)) {
      // Resume lexing after the offending character.
      const char *next = tok.getSpelling().data() + 1;
      resetToken(std::min(std::max(next, tok.getSpelling().end()),
                          lexer.getBufferEnd()));
      continue;
    }
    if (tok.is(Token::l_brace))
      ++open;
    else if (tok.is(Token::r_brace))
      --open;
    consumeToken();
  }
}

std::unique_ptr<Program> Parser::parseProgram() {
  auto program = std::make_unique<Program>(ctx);
  unsigned errorsBefore = diags.getNumErrors();
  while (tok.isNot(Token::eof)) {
    LogicalResult result = failure();
    if (tok.is(Token::kw_func)) {
      result = parseFunction(*program);
    } else if (tok.is(Token::def_identifier)) {
      result = parseDefinition();
    } else {
      result = emitExpected("'func' or compile-time variable assignment");
    }
    if (failed(result)) {
      // Value scopes of the failed function are gone; definitions of the
      // global scope stay.
      valueScopes.clear();
      while (definitions.getDepth() > 1)
        definitions.popScope();
      depth = 0;
      skipAfterError();
    }
  }
  if (diags.getNumErrors() != errorsBefore)
    return nullptr;
  return program;
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

/// Integer `div`/`rem` whose divisor is written as a `constant 0` is
/// rejected: its behaviour is undefined wherever it runs (SPIR-V
/// OpSDiv/OpSRem) and no program means it. The spec is silent; tinytc rejects
/// it too. This is a check of what the user wrote, not a verifier invariant:
/// constant folding may still turn a divisor into 0, and that must not make
/// the lowered program invalid. (Floating-point division by zero is IEEE
/// arithmetic and stays.)
static void checkIntegerDivisionByZero(const Region &region,
                                       DiagnosticEngine &diags) {
  for (const Instruction &inst : region) {
    for (const Region *child : inst.getRegions())
      checkIntegerDivisionByZero(*child, diags);
    if ((inst.getKind() != InstKind::Div && inst.getKind() != InstKind::Rem) ||
        inst.getNumOperands() != 2)
      continue;
    const Value *divisor = llvm::cast<ArithBinaryView>(&inst).getB();
    if (!divisor)
      continue;
    const Type *type = divisor->getType();
    ScalarKind kind;
    if (const auto *scalar = llvm::dyn_cast_or_null<ScalarType>(type))
      kind = scalar->getScalarKind();
    else if (const auto *coop = llvm::dyn_cast_or_null<CoopMatrixType>(type))
      kind = coop->getComponentKind();
    else
      continue;
    auto constant = llvm::dyn_cast_or_null<ConstantInst>(
        divisor->getDefiningInstruction());
    if (!isInteger(kind) || !constant)
      continue;
    const ConstantValue &value = constant.getValue();
    const auto *integer = std::get_if<int64_t>(&value);
    if (integer && *integer == 0)
      diags.emitError(inst.getOperandLoc(1))
          << "integer "
          << (inst.getKind() == InstKind::Div ? "division" : "remainder")
          << " by zero: the divisor of '" << inst.getName()
          << "' is the constant 0";
  }
}

std::unique_ptr<Program> comprehend::ir::parseSource(Context &ctx,
                                                     DiagnosticEngine &diags,
                                                     unsigned bufferId) {
  std::unique_ptr<Program> program =
      Parser(ctx, diags, bufferId).parseProgram();
  if (!program)
    return program;
  unsigned errors = diags.getNumErrors();
  for (const Function &function : *program)
    checkIntegerDivisionByZero(function.getBody(), diags);
  if (diags.getNumErrors() != errors)
    return nullptr;
  return program;
}

std::unique_ptr<Program>
comprehend::ir::parseSource(Context &ctx, DiagnosticEngine &diags,
                            llvm::StringRef source,
                            llvm::StringRef bufferName) {
  unsigned bufferId = diags.getSourceMgr().AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  return parseSource(ctx, diags, bufferId);
}
