//===- Checker.h - The state of one def's semantic check --------*- C++ -*-===//
//
// Private to Sema: the DefChecker holds what one def's check knows (its size
// variables, tensors, which of them hold a value) and its member functions
// are split by concern over this folder: Names.cpp (declarations, lookup and
// redeclaration rules), Expressions.cpp (types, promotion, builtins, reads),
// Calls.cpp (calls of other defs) and Statements.cpp (comprehensions, `where`
// clauses, defs and the program).
//
// Names live in one namespace per def (size variables, tensors) plus, per
// statement, the index variables and `where` lets. Lookup order inside a
// statement: index, let, size variable, tensor.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_SEMA_CHECKER_H
#define COMPREHEND_TC_LIB_SEMA_CHECKER_H

#include "comprehend/tc/AST.h"
#include "comprehend/tc/Types.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace comprehend::tc::sema {

inline std::string plural(size_t count, llvm::StringRef noun) {
  return std::to_string(count) + " " + noun.str() + (count == 1 ? "" : "s");
}

inline std::string quoted(ScalarType type) {
  return ("'" + getSpelling(type) + "'").str();
}

/// Where an expression occurs; decides which names and reads are allowed.
enum class ExprContext {
  Value, ///< RHS, lets, `exists`: unknown names become index variables
  Bound, ///< `where` range bounds: size expressions only
};

/// The per-statement scope.
struct StmtScope {
  llvm::SmallVector<std::string, 4> indexVars;
  llvm::StringMap<Location> indexLocs;
  llvm::StringMap<const WhereClause *> lets;
  llvm::StringMap<Location> constrained; ///< `where v in lo:hi` per var
};

/// What binds a size variable of a called def: a size variable or constant
/// of the caller, and the argument that bound it first.
struct SizeBinding {
  std::string value;
  Ident arg;
};

class ExprChecker;

class DefChecker {
  friend class ExprChecker;

public:
  DefChecker(const Program &program, Def &def, DiagnosticEngine &diags,
             const llvm::DenseSet<const Def *> &validDefs)
      : program(program), def(def), diags(diags), validDefs(validDefs),
        tensors(def.getTensorsMutable()) {}

  LogicalResult check();

private:
  InFlightDiagnostic error(Location loc) {
    failedAny = true;
    return diags.emitError(loc);
  }
  /// Reports `'x' is already defined as a ...` with a note at the earlier
  /// definition if \p name is taken in the def or in \p scope.
  LogicalResult checkNewName(const Ident &name, const StmtScope *scope);
  LogicalResult checkNotBuiltin(const Ident &name);

  void declareParams();
  void checkStmt(ComprehensionStmt &stmt);
  void checkCall(CallStmt &call);
  /// The def \p call calls if it is defined above this def and valid;
  /// reports why not otherwise (quietly for a def that failed Sema).
  const Def *resolveCallee(const CallStmt &call);
  LogicalResult checkCallArity(const CallStmt &call, const Def &callee);
  /// Checks the arguments' types and ranks against the parameters and binds
  /// the callee's size variables by the arguments' declared extents.
  LogicalResult checkCallArgs(const CallStmt &call, const Def &callee);
  LogicalResult checkArgType(const Ident &arg, const TensorInfo &info,
                             const Param &param, const Ident &calleeName);
  LogicalResult bindArgExtents(const Ident &arg, const TensorInfo &info,
                               const Param &param, const Ident &calleeName,
                               llvm::StringMap<SizeBinding> &bindings);
  /// Defines the call's results with the types of the callee's outputs.
  void defineCallResults(const CallStmt &call, const Def &callee);
  LogicalResult checkWhere(WhereClause &where, StmtScope &scope);
  LogicalResult checkExpr(Expr &expr, StmtScope &scope, ExprContext context);
  LogicalResult checkIdent(IdentExpr &ident, StmtScope &scope,
                           ExprContext context);
  LogicalResult checkApply(ApplyExpr &apply, StmtScope &scope,
                           ExprContext context);
  LogicalResult expectBool(const Expr &expr);
  /// The tensor \p name if it may be read here; reports an error otherwise.
  const TensorInfo *lookupReadable(const Ident &name);
  /// Records a write of \p lhs with \p rank dimensions and element type
  /// \p type; checks inputs, annotations and earlier definitions.
  LogicalResult defineTensor(const Ident &lhs, unsigned rank, ScalarType type,
                             Location valueLoc);
  void addIndex(StmtScope &scope, llvm::StringRef name, Location loc) {
    scope.indexVars.push_back(name.str());
    scope.indexLocs.try_emplace(name, loc);
  }

  const Program &program;
  Def &def;
  DiagnosticEngine &diags;
  /// Defs above this one that passed Sema (calls to others fail quietly).
  const llvm::DenseSet<const Def *> &validDefs;
  llvm::MapVector<llvm::StringRef, TensorInfo> &tensors;
  llvm::StringMap<Location> sizeVars;
  /// Tensors that hold a value at the current statement.
  llvm::StringSet<> defined;
  /// Names on the left of some statement (even one that failed).
  llvm::StringSet<> written;
  /// Names whose declaration was rejected: their uses report nothing more.
  llvm::StringSet<> poisoned;
  bool failedAny = false;
};

} // namespace comprehend::tc::sema

#endif // COMPREHEND_TC_LIB_SEMA_CHECKER_H
