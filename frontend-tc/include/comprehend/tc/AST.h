//===- AST.h - Typed syntax tree of Tensor Comprehensions -------*- C++ -*-===//
//
// The parser builds this tree; Sema resolves names and fills in the types
// and the per-def symbol table in place. Every node carries the source range
// it was parsed from. Children are owned through unique_ptr.
//
//   program     ::= def*
//   def         ::= 'def' id '(' params ')' '->' '(' params ')' '{' stmt* '}'
//   param       ::= type id | id                    (bare id: outputs only)
//   type        ::= scalar-type [ '(' [dim {',' dim}] ')' ]
//   stmt        ::= id [ '(' [id {',' id}] ')' ] assign exp
//                   [ 'where' where {',' where} ]
//                 | id {',' id} '=' id '(' [id {',' id}] ')'     (TC call)
//   assign      ::= '=' | '+=' | '*=' | 'min=' | 'max=' | same with '!'
//   where       ::= id 'in' exp ':' exp | id '=' exp | 'exists' exp
//   exp         ::= exp '?' exp ':' exp | exp binop exp | unop exp
//                 | number | id | id '.' integer | '(' exp ')'
//                 | scalar-type '(' exp ')' | ('min'|'max') '(' exp ',' exp ')'
//                 | id '(' [exp {',' exp}] ')'       (tensor read or builtin)
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_AST_H
#define COMPREHEND_TC_AST_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/Types.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"

#include <memory>
#include <optional>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace comprehend::tc {

class Def;

/// A name and where it was written. Names point into the source buffer, so
/// the tree must not outlive the SourceMgr that holds it.
struct Ident {
  llvm::StringRef name;
  Location loc;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    IntLit,
    FloatLit,
    Ident,
    DimAccess,
    Unary,
    Binary,
    Ternary,
    Apply,
    Cast
  };

  virtual ~Expr() = default;
  Kind getKind() const { return kind; }
  Location getLoc() const { return loc; }
  /// A parenthesized expression's location takes in its parentheses, so
  /// that an enclosing expression's source text is whole.
  void setLoc(Location newLoc) { loc = newLoc; }
  /// The type Sema computed (meaningless before Sema).
  ScalarType getType() const { return type; }
  void setType(ScalarType newType) { type = newType; }

protected:
  Expr(Kind kind, Location loc) : kind(kind), loc(loc) {}

private:
  Kind kind;
  Location loc;
  ScalarType type = ScalarType::Int32;
};

using ExprPtr = std::unique_ptr<Expr>;

/// An integer literal; its type follows C (int32, int64, uint32, uint64).
class IntLitExpr : public Expr {
public:
  IntLitExpr(Location loc, int64_t value, ScalarType type)
      : Expr(Kind::IntLit, loc), value(value) {
    setType(type);
  }
  int64_t getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::IntLit; }

private:
  int64_t value;
};

/// A floating-point literal, kept in double precision.
class FloatLitExpr : public Expr {
public:
  FloatLitExpr(Location loc, double value, ScalarType type)
      : Expr(Kind::FloatLit, loc), value(value) {
    setType(type);
  }
  double getValue() const { return value; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::FloatLit; }

private:
  double value;
};

class WhereClause;

/// A bare name: an index variable, a size variable, a `where` let, or a read
/// of a 0-d tensor (resolved by Sema).
class IdentExpr : public Expr {
public:
  enum class Ref { Unresolved, Index, Size, Let, Tensor };

  IdentExpr(Ident name) : Expr(Kind::Ident, name.loc), name(name.name) {}
  llvm::StringRef getName() const { return name; }
  Ref getRef() const { return ref; }
  /// For Ref::Let: the clause that binds the name.
  const WhereClause *getLet() const { return let; }
  void resolve(Ref newRef, const WhereClause *binding = nullptr) {
    ref = newRef;
    let = binding;
  }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Ident; }

private:
  llvm::StringRef name;
  Ref ref = Ref::Unresolved;
  const WhereClause *let = nullptr;
};

/// `T.d`: the extent of dimension d of tensor T (an int32 size expression).
class DimAccessExpr : public Expr {
public:
  DimAccessExpr(Location loc, Ident tensor, int64_t dim)
      : Expr(Kind::DimAccess, loc), tensor(tensor), dim(dim) {}
  const Ident &getTensor() const { return tensor; }
  int64_t getDim() const { return dim; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::DimAccess; }

private:
  Ident tensor;
  int64_t dim;
};

enum class UnaryOp { Neg, Not };

class UnaryExpr : public Expr {
public:
  UnaryExpr(Location loc, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, loc), op(op), operand(std::move(operand)) {}
  UnaryOp getOp() const { return op; }
  const Expr &getOperand() const { return *operand; }
  Expr &getOperand() { return *operand; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }

private:
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Less,
  Greater,
  LessEqual,
  GreaterEqual,
  Equal,
  NotEqual,
  And,
  Or,
  Min,
  Max ///< the `min(a, b)` / `max(a, b)` operators
};

/// The source spelling of \p op (`+`, `&&`, `min`).
llvm::StringRef getSpelling(BinaryOp op);

class BinaryExpr : public Expr {
public:
  BinaryExpr(Location loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  BinaryOp getOp() const { return op; }
  const Expr &getLhs() const { return *lhs; }
  const Expr &getRhs() const { return *rhs; }
  Expr &getLhs() { return *lhs; }
  Expr &getRhs() { return *rhs; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }

private:
  BinaryOp op;
  ExprPtr lhs, rhs;
};

class TernaryExpr : public Expr {
public:
  TernaryExpr(Location loc, ExprPtr cond, ExprPtr trueValue, ExprPtr falseValue)
      : Expr(Kind::Ternary, loc), cond(std::move(cond)),
        trueValue(std::move(trueValue)), falseValue(std::move(falseValue)) {}
  const Expr &getCond() const { return *cond; }
  const Expr &getTrueValue() const { return *trueValue; }
  const Expr &getFalseValue() const { return *falseValue; }
  Expr &getCond() { return *cond; }
  Expr &getTrueValue() { return *trueValue; }
  Expr &getFalseValue() { return *falseValue; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Ternary; }

private:
  ExprPtr cond, trueValue, falseValue;
};

/// `name(args)`: a tensor read or a builtin call (resolved by Sema).
class ApplyExpr : public Expr {
public:
  enum class Target { Unresolved, Tensor, Builtin };

  ApplyExpr(Location loc, Ident callee, llvm::SmallVector<ExprPtr, 4> args)
      : Expr(Kind::Apply, loc), callee(callee), args(std::move(args)) {}
  const Ident &getCallee() const { return callee; }
  llvm::ArrayRef<ExprPtr> getArgs() const { return args; }
  Target getTarget() const { return target; }
  bool isTensorRead() const { return target == Target::Tensor; }
  void setTarget(Target newTarget) { target = newTarget; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Apply; }

private:
  Ident callee;
  llvm::SmallVector<ExprPtr, 4> args;
  Target target = Target::Unresolved;
};

/// `int32(e)`: an explicit conversion.
class CastExpr : public Expr {
public:
  CastExpr(Location loc, ScalarType to, ExprPtr operand)
      : Expr(Kind::Cast, loc), operand(std::move(operand)) {
    setType(to);
  }
  const Expr &getOperand() const { return *operand; }
  Expr &getOperand() { return *operand; }
  static bool classof(const Expr *e) { return e->getKind() == Kind::Cast; }

private:
  ExprPtr operand;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// One clause of a `where` list.
class WhereClause {
public:
  enum class Kind {
    Range,  ///< `var in lo:hi`
    Let,    ///< `var = value`
    Exists, ///< `exists value`
  };

  WhereClause(Kind kind, Location loc, Ident var, ExprPtr first,
              ExprPtr second = nullptr)
      : kind(kind), loc(loc), var(var), first(std::move(first)),
        second(std::move(second)) {}

  Kind getKind() const { return kind; }
  Location getLoc() const { return loc; }
  /// The constrained or bound variable (empty for Exists).
  const Ident &getVar() const { return var; }
  const Expr &getLo() const { return *first; }
  const Expr &getHi() const { return *second; }
  /// The let value or the exists expression.
  const Expr &getValue() const { return *first; }
  Expr &getFirst() { return *first; }
  Expr *getSecond() { return second.get(); }

private:
  Kind kind;
  Location loc;
  Ident var;
  ExprPtr first, second;
};

enum class ReductionKind { None, Add, Mul, Min, Max };

/// The spelling of an assignment operator (`=`, `+=`, `max=!`).
std::string getAssignSpelling(ReductionKind kind, bool init);

class Stmt {
public:
  enum class Kind { Comprehension, Call };
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  Location getLoc() const { return loc; }

protected:
  Stmt(Kind kind, Location loc) : kind(kind), loc(loc) {}

private:
  Kind kind;
  Location loc;
};

/// `O(i, j) op rhs where ...`.
class ComprehensionStmt : public Stmt {
public:
  ComprehensionStmt(Location loc, Ident lhs,
                    llvm::SmallVector<Ident, 4> indices, ReductionKind op,
                    bool init, Location opLoc, ExprPtr rhs,
                    std::vector<WhereClause> wheres)
      : Stmt(Kind::Comprehension, loc), lhs(lhs), indices(std::move(indices)),
        op(op), init(init), opLoc(opLoc), rhs(std::move(rhs)),
        wheres(std::move(wheres)) {}

  const Ident &getLhs() const { return lhs; }
  llvm::ArrayRef<Ident> getIndices() const { return indices; }
  ReductionKind getReduction() const { return op; }
  /// True for the `!` forms: initialise with the identity first.
  bool hasInit() const { return init; }
  Location getOpLoc() const { return opLoc; }
  const Expr &getRhs() const { return *rhs; }
  Expr &getRhs() { return *rhs; }
  llvm::ArrayRef<WhereClause> getWheres() const { return wheres; }
  std::vector<WhereClause> &getWheres() { return wheres; }

  /// Set by Sema: LHS indices, then the reduction variables in order of
  /// first appearance (where clauses first, then the RHS left to right).
  llvm::ArrayRef<std::string> getIndexVars() const { return indexVars; }
  llvm::ArrayRef<std::string> getReductionVars() const {
    return llvm::ArrayRef<std::string>(indexVars).drop_front(indices.size());
  }
  void setIndexVars(llvm::SmallVector<std::string, 4> vars) {
    indexVars = std::move(vars);
  }

  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::Comprehension;
  }

private:
  Ident lhs;
  llvm::SmallVector<Ident, 4> indices;
  ReductionKind op;
  bool init;
  Location opLoc;
  ExprPtr rhs;
  std::vector<WhereClause> wheres;
  llvm::SmallVector<std::string, 4> indexVars;
};

/// `a, b = f(x, y)`: a call of another def of the same file.
class CallStmt : public Stmt {
public:
  CallStmt(Location loc, llvm::SmallVector<Ident, 2> results, Ident callee,
           llvm::SmallVector<Ident, 4> args)
      : Stmt(Kind::Call, loc), results(std::move(results)), callee(callee),
        args(std::move(args)) {}
  llvm::ArrayRef<Ident> getResults() const { return results; }
  const Ident &getCallee() const { return callee; }
  llvm::ArrayRef<Ident> getArgs() const { return args; }
  /// Set by Sema.
  const Def *getCalleeDef() const { return calleeDef; }
  void setCalleeDef(const Def *def) { calleeDef = def; }
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Call; }

private:
  llvm::SmallVector<Ident, 2> results;
  Ident callee;
  llvm::SmallVector<Ident, 4> args;
  const Def *calleeDef = nullptr;
};

//===----------------------------------------------------------------------===//
// Definitions
//===----------------------------------------------------------------------===//

/// `float(N, 3)`: an element type and one size variable or constant per
/// dimension.
struct TensorType {
  struct Dim {
    llvm::StringRef sizeVar; ///< empty for a constant
    int64_t constant = 0;
    Location loc;
  };
  ScalarType scalar = ScalarType::Float;
  Location loc;
  llvm::SmallVector<Dim, 4> dims;
};

struct Param {
  Ident name;
  std::optional<TensorType> type; ///< absent for a bare output name
};

/// What Sema knows about a tensor of a def.
struct TensorInfo {
  enum class Role { Input, Output, Temporary };
  Role role = Role::Input;
  ScalarType type = ScalarType::Float;
  unsigned rank = 0;
  /// The parameter or the first statement that defines the tensor.
  Location loc;
  /// The LHS of the first statement (or call) that writes the tensor.
  Location firstDef;
  /// The declared type of inputs and annotated outputs.
  const TensorType *declared = nullptr;
};

class Def {
public:
  Def(Location loc, Ident name, std::vector<Param> inputs,
      std::vector<Param> outputs, std::vector<std::unique_ptr<Stmt>> body)
      : loc(loc), name(name), inputs(std::move(inputs)),
        outputs(std::move(outputs)), body(std::move(body)) {}

  Location getLoc() const { return loc; }
  const Ident &getName() const { return name; }
  llvm::ArrayRef<Param> getInputs() const { return inputs; }
  llvm::ArrayRef<Param> getOutputs() const { return outputs; }
  llvm::ArrayRef<std::unique_ptr<Stmt>> getBody() const { return body; }

  /// Set by Sema: the size variables in order of first appearance in the
  /// input types, and every tensor (inputs, outputs, temporaries).
  llvm::ArrayRef<std::string> getSizeVars() const { return sizeVars; }
  const llvm::MapVector<llvm::StringRef, TensorInfo> &getTensors() const {
    return tensors;
  }
  const TensorInfo *lookupTensor(llvm::StringRef tensor) const;
  llvm::SmallVector<std::string, 4> &getSizeVarsMutable() { return sizeVars; }
  llvm::MapVector<llvm::StringRef, TensorInfo> &getTensorsMutable() {
    return tensors;
  }

private:
  Location loc;
  Ident name;
  std::vector<Param> inputs, outputs;
  std::vector<std::unique_ptr<Stmt>> body;
  llvm::SmallVector<std::string, 4> sizeVars;
  llvm::MapVector<llvm::StringRef, TensorInfo> tensors;
};

/// All defs of one source file.
class Program {
public:
  void addDef(std::unique_ptr<Def> def) { defs.push_back(std::move(def)); }
  llvm::ArrayRef<std::unique_ptr<Def>> getDefs() const { return defs; }
  /// The first def called \p name, or null.
  const Def *lookup(llvm::StringRef name) const;

private:
  std::vector<std::unique_ptr<Def>> defs;
};

/// Prints \p program back as TC source, every binary operation in
/// parentheses (a parse check for tests: `comprehend check --dump-ast`).
void print(const Program &program, llvm::raw_ostream &os);
void print(const Expr &expr, llvm::raw_ostream &os);
/// One statement as a line of a def's body (indented, with a newline).
void print(const Stmt &stmt, llvm::raw_ostream &os);
/// `def name(inputs) -> (outputs)`.
void printSignature(const Def &def, llvm::raw_ostream &os);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_AST_H
