//===- EvalExpr.h - The evaluator's compiled expressions --------*- C++ -*-===//
//
// The reference evaluator compiles the right-hand side of a statement once,
// before running it, into a tree of nodes that each evaluate a whole batch of
// iteration points ("lanes") at a time: names, sizes and extents are resolved
// at compile time, and a tensor read whose indices are affine in the index
// variables and provably inside the tensor over the statement's box becomes
// flat offset arithmetic without bounds checks. The per-lane arithmetic is
// the one of the tree-walking interpreter it replaces (docs/tc.md): doubles,
// integer wrap-around after each integer operation, floor division, and
// `?:`, `&&`, `||` evaluating their second operands only on the lanes that
// select them.
//
// Errors (reads out of bounds, integer division by zero) only mark the
// batch as failed; the statement runner then evaluates the failing batch
// again lane by lane in iteration order with reporting on, so the error
// reported is the first one in iteration order, as with a scalar loop.
//
// Private to the evaluator: nothing here is shared with the lowering.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_EVALEXPR_H
#define COMPREHEND_TC_LIB_EVALEXPR_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/AST.h"
#include "comprehend/tc/Evaluator.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>

namespace comprehend::tc::eval {

/// Lanes per batch: large enough to amortise a virtual call per node, small
/// enough that a node's values stay in the L1 cache.
constexpr unsigned kBatch = 256;

/// A tensor of the running def: storage plus the lower bound of each
/// dimension (non-zero for outputs whose inferred range does not start at 0).
struct Storage {
  Tensor tensor;
  llvm::SmallVector<int64_t, 4> lo;
};

/// The iteration box of a statement: variable v ranges over [lo[v], hi[v]).
struct Box {
  llvm::SmallVector<llvm::StringRef, 4> vars;
  llvm::SmallVector<int64_t, 4> lo, hi;
};

/// The points a node evaluates: lane l has index variable v equal to
/// values[v][l] (as a double, as expressions see it) and indices[v][l].
struct Lanes {
  unsigned n = 0;
  const double *const *values = nullptr;
  const int64_t *const *indices = nullptr;
  /// Set when the lanes are consecutive points of one run of the innermost
  /// variable `inner`: lane l is rowStart with variable inner increased by l.
  const int64_t *rowStart = nullptr;
  unsigned inner = 0;
};

/// The failure flag of a batch and, when reporting, where errors go.
struct EvalState {
  bool failed = false;
  DiagnosticEngine *report = nullptr;

  /// Marks the batch failed; reports the first error when reporting.
  void fail(Location loc, const llvm::Twine &message);
};

/// A compiled expression.
class Node {
public:
  virtual ~Node() = default;
  /// The values of the expression at \p lanes (lanes.n of them). The result
  /// stays valid until the node is evaluated again.
  virtual const double *eval(const Lanes &lanes, EvalState &state) = 0;
};

using NodePtr = std::unique_ptr<Node>;

/// Compiles the expressions of one statement over \p box.
class CompileDispatch;

class ExprCompiler {
public:
  using TensorLookup = llvm::function_ref<const Storage *(llvm::StringRef)>;

  ExprCompiler(const Box &box, TensorLookup lookupTensor,
               const llvm::StringMap<int64_t> &sizes, DiagnosticEngine &diags)
      : box(box), lookupTensor(lookupTensor), sizes(sizes), diags(diags) {}

  /// The node of \p expr, or null after a located error.
  NodePtr compile(const Expr &expr);

  /// Whether some node reads the variables' per-lane values (Lanes::values
  /// or indices); otherwise a batch of one row only needs Lanes::rowStart.
  bool needsLaneValues() const { return laneUsers > 0; }

  /// For each read compiled to flat offset arithmetic: the offset's
  /// coefficient of each variable (to choose a cache-friendly loop order).
  llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> getAffineReads() const {
    return affineReads;
  }

private:
  friend class CompileDispatch;
  struct Compiled;
  Compiled compileImpl(const Expr &expr);
  Compiled compileUnary(const UnaryExpr &unary);
  Compiled compileTernary(const TernaryExpr &ternary);
  Compiled compileCast(const CastExpr &cast);
  Compiled compileRead(const ApplyExpr &apply);
  Compiled compileIdent(const IdentExpr &ident);
  Compiled compileDimAccess(const DimAccessExpr &dim);
  Compiled compileBinary(const BinaryExpr &binary);
  Compiled compileApply(const ApplyExpr &apply);
  /// \p value as a node, and as an affine form when it is an integer that
  /// fits \p type.
  Compiled compileConstant(double value, ScalarType type);
  /// Reports \p message at \p expr and marks the compilation failed.
  Compiled fail(const Expr &expr, const llvm::Twine &message);
  int findVar(llvm::StringRef name) const;

  const Box &box;
  TensorLookup lookupTensor;
  const llvm::StringMap<int64_t> &sizes;
  DiagnosticEngine &diags;
  bool error = false;
  unsigned laneUsers = 0;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 8> affineReads;
};

/// The number of points of \p box (0 if any range is empty).
int64_t getNumPoints(const Box &box);

} // namespace comprehend::tc::eval

#endif // COMPREHEND_TC_LIB_EVALEXPR_H
