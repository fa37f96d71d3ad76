//===- ParserImpl.h - Recursive-descent parser state ------------*- C++ -*-===//
//
// The parser of the tensor language, split by grammar category:
//   Parser.cpp            program, functions, regions, values, preprocessor
//                         definitions
//   ConstantParser.cpp    constants, integers, `!calc`
//   AttributeParser.cpp   attributes and dictionaries
//   TypeParser.cpp        types
//   InstructionParser.cpp instructions, driven by the descriptors' formats
//   CustomParsers.cpp     `custom<...>` hooks (for, if, foreach, subview, ...)
//
// Every parseX returns failure() after reporting a diagnostic (or after the
// lexer reported one), and carries its grammar production as doc comment.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_PARSERIMPL_H
#define COMPREHEND_IR_LIB_PARSERIMPL_H

#include "AsmFormat.h"
#include "Lexer.h"
#include "Preprocessor.h"

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Region.h"
#include "comprehend/ir/Types.h"

#include "llvm/ADT/StringMap.h"

#include <complex>
#include <memory>

namespace comprehend::ir::detail {

class Parser {
public:
  Parser(Context &ctx, DiagnosticEngine &diags, unsigned bufferId);

  /// program = *(def-assign / function-definition)
  std::unique_ptr<Program> parseProgram();

  //===--------------------------------------------------------------------===//
  // Tokens and diagnostics (Parser.cpp)
  //===--------------------------------------------------------------------===//

  const Token &getToken() const { return tok; }
  /// Advances to the next token.
  void consumeToken();
  /// Consumes the current token if it has kind \p kind.
  bool consumeIf(Token::Kind kind);
  /// Consumes the current token if it is the bare word \p word.
  bool consumeIfWord(llvm::StringRef word);
  /// Consumes a token of kind \p kind or reports "expected <kind>, but found
  /// ..." (with \p context appended, e.g. "after the operand list").
  LogicalResult parseToken(Token::Kind kind, llvm::StringRef context = {});
  /// Consumes the bare word \p word or reports an error.
  LogicalResult parseWord(llvm::StringRef word, llvm::StringRef context = {});
  /// Lexes again from \p ptr inside the current token (shape splitting).
  void resetToken(const char *ptr);

  /// Reports at \p loc; suppressed when the lexer already reported an error
  /// for the current token.
  InFlightDiagnostic emitError(Location loc, const llvm::Twine &message = {});
  /// Reports at the current token.
  InFlightDiagnostic emitError(const llvm::Twine &message = {});
  /// "expected <what>, but found <current token>" at the current token.
  InFlightDiagnostic emitExpected(const llvm::Twine &what);
  /// The current token as quoted in diagnostics.
  std::string describeToken() const;

  /// The range from \p start to the end of the previous token.
  Location rangeFrom(llvm::SMLoc start) const { return {start, prevEnd}; }

  /// Guards recursion: fails with a diagnostic beyond kMaxNestingDepth.
  LogicalResult enterNesting(llvm::StringRef what);
  void exitNesting() { --depth; }

  Context &getContext() const { return ctx; }

  //===--------------------------------------------------------------------===//
  // Preprocessor (Parser.cpp, ConstantParser.cpp)
  //===--------------------------------------------------------------------===//

  /// def-assign = def-identifier "=" def-rhs
  LogicalResult parseDefinition();
  /// The definition named by the current `$name` token; reports an error if
  /// it is not (yet) assigned.
  const Definition *resolveDefinition();
  /// rpn-expr inside "!calc" "(" ... ")"; the current token is `!`.
  LogicalResult parseCalc(int64_t &value);

  //===--------------------------------------------------------------------===//
  // Constants (ConstantParser.cpp)
  //===--------------------------------------------------------------------===//

  /// integer-constant (or a `$name` bound to one); \p what names the value
  /// in diagnostics ("mode size").
  LogicalResult parseInteger(int64_t &value, llvm::StringRef what);
  /// A non-negative integer-constant.
  LogicalResult parseNonNegativeInteger(int64_t &value, llvm::StringRef what);
  /// constant-or-dynamic = integer-constant / "?"
  LogicalResult parseIntegerOrDynamic(int64_t &value, llvm::StringRef what);
  /// constant = boolean-constant / integer-constant / floating-constant /
  ///            complex-constant
  LogicalResult parseConstant(ConstantValue &value);
  /// floating-constant, also accepting an integer-constant.
  LogicalResult parseFloating(double &value);
  /// The rest of a complex-constant after its "[": re "," im "]".
  LogicalResult parseComplexParts(std::complex<double> &value);

  //===--------------------------------------------------------------------===//
  // Attributes (AttributeParser.cpp)
  //===--------------------------------------------------------------------===//

  /// attribute = array / boolean / dictionary / integer / string attribute
  LogicalResult parseAttribute(const Attribute *&attr);
  /// array-attribute = "[" [attribute *("," attribute)] "]"; the current
  /// token is `[`, or the `[` has been consumed already.
  LogicalResult parseArrayAttr(const Attribute *&attr, bool bracketConsumed);
  /// dictionary-attribute = "{" [named-attribute *("," named-attribute)] "}"
  LogicalResult parseDictionaryAttr(const DictionaryAttr *&attr);
  /// A dictionary or a `$name` bound to one, if the current token starts
  /// one; null otherwise.
  LogicalResult parseOptionalDictionaryAttr(const DictionaryAttr *&attr);

  //===--------------------------------------------------------------------===//
  // Types (TypeParser.cpp)
  //===--------------------------------------------------------------------===//

  /// type = void / bool / number / memref / group / coopmatrix
  LogicalResult parseType(const Type *&type);
  /// True if the current token can start a type.
  bool isAtType() const;

  //===--------------------------------------------------------------------===//
  // Values (Parser.cpp)
  //===--------------------------------------------------------------------===//

  /// local-identifier naming a visible value.
  LogicalResult parseValueUse(Value *&value, Location &loc);
  /// Binds \p nameTok (`%x`) to \p value in the innermost scope; names `%x`
  /// values, leaves `%0` unnamed.
  LogicalResult defineValue(const Token &nameTok, Value *value);

  //===--------------------------------------------------------------------===//
  // Regions and instructions (Parser.cpp, InstructionParser.cpp)
  //===--------------------------------------------------------------------===//

  /// region = "{" *(instruction / def-assign) "}"
  /// \p params are `%name` tokens bound to the region's parameters.
  LogicalResult parseRegion(Region &region,
                            llvm::ArrayRef<Token> paramNames = {});
  /// instruction = [local-identifier-list "="] mnemonic ...
  LogicalResult parseInstruction(Region &region);
  /// Operands collected while parsing one instruction, by operand group;
  /// they are set on the instruction once it is complete.
  struct PendingOperands {
    llvm::SmallVector<llvm::SmallVector<Value *, 2>, 6> groups;
    llvm::SmallVector<llvm::SmallVector<Location, 2>, 6> locs;
    /// Parses a local identifier into group \p group.
    LogicalResult parse(Parser &parser, unsigned group);
  };

  /// Interprets the format of \p inst's descriptor.
  LogicalResult parseFormat(Instruction &inst, const AsmFormat &format,
                            PendingOperands &operands);
  /// Consecutive flag and enum properties, in any order.
  LogicalResult parseModifiers(Instruction &inst, const FormatElement &element);
  /// One element of an instruction's format.
  LogicalResult parseFormatElement(Instruction &inst,
                                   const FormatElement &element,
                                   PendingOperands &operands);
  /// A property written as a value (integer, constant, dictionary, list).
  LogicalResult parsePropertyElement(Instruction &inst,
                                     const FormatElement &element);
  /// The operands of one operand group, by the group's arity.
  LogicalResult parseOperandElement(const InstDescriptor &desc,
                                    const FormatElement &element,
                                    PendingOperands &operands);
  /// `attr-dict` (optional dictionary) or `attr-dict-with-keyword`.
  LogicalResult parseAttrDictElement(Instruction &inst,
                                     const FormatElement &element);
  /// integer-list = "[" [integer ("," integer)*] "]"
  LogicalResult parseIntegerList(IntegerList &values);
  /// Dispatches `custom<Name>(...)` to the hooks of CustomParsers.cpp.
  LogicalResult parseCustom(Instruction &inst, const FormatElement &element,
                            PendingOperands &operands);

  /// Consumes an `x` shape separator, splitting `x4x8` into `x` and `4x8`.
  bool consumeShapeSeparator();

private:
  /// function-definition = "func" global-identifier "(" [argument-list] ")"
  ///                       ["attributes" dictionary-attribute] region
  LogicalResult parseFunction(Program &program);
  /// Skips to where parsing can resume after an error: the next `func`, or
  /// a line starting with `$name` outside any function.
  void skipAfterError();
  void pushScope();
  void popScope();

  Context &ctx;
  DiagnosticEngine &diags;
  Lexer lexer;
  Token tok;
  llvm::SMLoc prevEnd;
  unsigned depth = 0;
  /// Regions being parsed, and how many were open at the first error since
  /// the last recovery.
  unsigned openRegions = 0;
  std::optional<unsigned> regionsOpenAtError;

  DefinitionTable definitions;
  llvm::SmallVector<llvm::StringMap<Value *>, 8> valueScopes;
};

/// RAII nesting guard around Parser::enterNesting/exitNesting.
class NestingGuard {
public:
  NestingGuard(Parser &parser, llvm::StringRef what)
      : parser(parser), result(parser.enterNesting(what)) {}
  ~NestingGuard() {
    if (succeeded(result))
      parser.exitNesting();
  }
  bool failed() const { return result.failed(); }

private:
  Parser &parser;
  LogicalResult result;
};

} // namespace comprehend::ir::detail

#endif // COMPREHEND_IR_LIB_PARSERIMPL_H
