//===- Preprocessor.h - Compile-time variables and !calc --------*- C++ -*-===//
//
// The tensor language's preprocessor lives in the parser: `$name = rhs` binds
// a constant, a type or an attribute in the current scope (global scope or a
// region), and later uses of `$name` are replaced while parsing. Nothing of
// it reaches the IR.
//
// Scoping (spec: "assigned only once within a scope and the scope's
// sub-scopes", "assignment must precede the use"): a definition is visible
// from its assignment to the end of its scope, including nested regions; a
// name that is visible cannot be assigned again. Sibling regions may reuse a
// name.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_PREPROCESSOR_H
#define COMPREHEND_IR_LIB_PREPROCESSOR_H

#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <complex>
#include <cstdint>
#include <optional>
#include <variant>

namespace comprehend::ir {

class Type;
class Attribute;

/// A constant as written in the source: boolean, integer, floating or
/// complex.
using ConstantLiteral =
    std::variant<bool, int64_t, double, std::complex<double>>;

/// What a compile-time variable stands for.
struct Definition {
  enum class Kind { Constant, Type, Attribute };

  Kind getKind() const {
    if (std::holds_alternative<ConstantLiteral>(value))
      return Kind::Constant;
    if (std::holds_alternative<const Type *>(value))
      return Kind::Type;
    return Kind::Attribute;
  }
  const ConstantLiteral *getConstant() const {
    return std::get_if<ConstantLiteral>(&value);
  }
  const Type *getType() const {
    auto *type = std::get_if<const Type *>(&value);
    return type ? *type : nullptr;
  }
  const Attribute *getAttribute() const {
    auto *attr = std::get_if<const Attribute *>(&value);
    return attr ? *attr : nullptr;
  }
  /// "an integer constant", "a type", "an attribute"... for diagnostics.
  llvm::StringRef getDescription() const;

  std::variant<ConstantLiteral, const Type *, const Attribute *> value;
  /// Where the variable was assigned.
  Location loc;
};

/// The scoped table of compile-time variables.
class DefinitionTable {
public:
  DefinitionTable() { scopes.emplace_back(); }

  /// Opens a region scope.
  void pushScope() { scopes.emplace_back(); }
  /// Closes the innermost region scope; the global scope is never closed.
  void popScope() {
    if (scopes.size() > 1)
      scopes.pop_back();
  }
  unsigned getDepth() const { return scopes.size(); }

  /// The visible definition of \p name, or null.
  const Definition *lookup(llvm::StringRef name) const;

  /// Binds \p name in the innermost scope. If \p name is already visible the
  /// table is unchanged and the earlier definition is returned.
  const Definition *define(llvm::StringRef name, Definition definition);

private:
  llvm::SmallVector<llvm::StringMap<Definition>, 8> scopes;
};

/// The operators of `!calc(...)`.
enum class CalcOperator { Power, Sub, Add, Mul, Div, Rem, Min, Max };

/// The operator spelled \p spelling (`^ - + * / % min max`), if any.
std::optional<CalcOperator> lookupCalcOperator(llvm::StringRef spelling);

/// Applies \p op to \p lhs and \p rhs with overflow checking. Division and
/// remainder truncate towards zero (C semantics). The result must be an
/// integer constant of the language (-2^63+1 .. 2^63-1); failures return an
/// error whose message is a diagnostic text.
llvm::Expected<int64_t> applyCalcOperator(CalcOperator op, int64_t lhs,
                                          int64_t rhs);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_PREPROCESSOR_H
