//===- ExprLowering.h - TC expressions inside an SPMD body ------*- C++ -*-===//
//
// Private to frontend-tc/lib/Lowering. Lowers the right-hand side, the
// subscripts and the builtins of one comprehension to tensor-language
// instructions at the builder's insertion point, with the statement's index
// variables bound to `index` values: the schedule-driven lowering
// (LowerSchedule.cpp) and the identity fills (LowerDef.cpp) use it.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_LOWERING_EXPRLOWERING_H
#define COMPREHEND_TC_LIB_LOWERING_EXPRLOWERING_H

#include "DefLowering.h"

namespace comprehend::tc::lowering {

class ValueLowering;

/// Lowers the expressions of one statement inside its SPMD body.
class ExprLowerer {
public:
  ExprLowerer(DefContext &def, const StmtContext &stmt)
      : def(def), stmt(stmt), b(def.builder), ctx(b.getContext()) {}

  /// Binds index variable \p var to \p value (of type index).
  void bindIndex(llvm::StringRef var, ir::Value *value) {
    indices[var] = value;
  }
  /// Uses \p value, computed earlier, for the right-hand side's
  /// subexpression \p expr (see collectInvariantSubexprs).
  void bindValue(const Expr *expr, ir::Value *value) { values[expr] = value; }

  /// The value of \p expr, of the IR type of its TC type.
  ir::Value *lowerValue(const Expr &expr);
  /// The value of \p expr converted to \p type; literals are emitted in
  /// \p type directly.
  ir::Value *lowerValueAs(const Expr &expr, ScalarType type);
  /// The value of the integer expression \p expr as an `index`.
  ir::Value *lowerIndex(const Expr &expr);
  /// \p value converted from TC type \p from to TC type \p to.
  ir::Value *convert(ir::Value *value, ScalarType from, ScalarType to,
                     Location loc);
  /// The memref indices of a read or write of \p tensor.
  std::optional<llvm::SmallVector<ir::Value *, 4>>
  lowerSubscripts(const TensorBinding &tensor, llvm::ArrayRef<ExprPtr> args,
                  Location loc);
  llvm::SmallVector<ir::Value *, 4>
  lowerLhsSubscripts(const TensorBinding &tensor);
  /// The memref index of TC dimension \p dim of \p tensor for the TC
  /// index \p index: shifted by the tensor's lower bound, or for a local
  /// temporary's group dimension by the group's origin.
  ir::Value *toMemRefIndex(const TensorBinding &tensor, unsigned dim,
                           ir::Value *index, Location loc);

  ir::Value *constant(Location loc, ScalarType type, double value);
  ir::Value *indexConstant(Location loc, int64_t value) {
    return b.createIndexConstant(loc, value);
  }
  bool hasFailed() const { return failedOnce; }

private:
  friend class ValueLowering;
  ir::Value *lowerIdent(const IdentExpr &ident);
  ir::Value *lowerDimAccess(const DimAccessExpr &access);
  ir::Value *lowerUnary(const UnaryExpr &unary);
  ir::Value *lowerBinary(const BinaryExpr &expr);
  /// The instruction for \p op on operands of one type; null for an
  /// operator the IR has no instruction for.
  ir::Value *createBinary(BinaryOp op, Location loc, ir::Value *lhs,
                          ir::Value *rhs);
  ir::Value *lowerTernary(const TernaryExpr &expr);
  ir::Value *lowerApply(const ApplyExpr &expr);
  ir::Value *lowerBuiltin(const ApplyExpr &expr);
  ir::Value *fail(Location loc, const llvm::Twine &message) {
    if (!failedOnce)
      def.diags.emitError(loc) << message.str();
    failedOnce = true;
    return nullptr;
  }
  template <class View> ir::Value *create(Location loc, ir::Value *a) {
    return b.create<View>(loc, a)->getResult(0);
  }
  template <class View>
  ir::Value *create(Location loc, ir::Value *a, ir::Value *c) {
    return b.create<View>(loc, a, c)->getResult(0);
  }

  DefContext &def;
  const StmtContext &stmt;
  ir::Builder &b;
  ir::Context &ctx;
  llvm::StringMap<ir::Value *> indices;
  llvm::DenseMap<const Expr *, ir::Value *> values;
  bool failedOnce = false;
};

/// The largest subexpressions of \p stmt's right-hand side that compute
/// something (an operator or a builtin, not a literal; a lone read only
/// with \p hoistReads) from none of the index variables \p variant and none
/// of the tensors \p written (names in the def): they are invariant in
/// loops over those variables and can be computed once before them.
void collectInvariantSubexprs(const DefContext &def, const StmtContext &stmt,
                              const llvm::StringSet<> &variant,
                              const llvm::StringSet<> &written,
                              llvm::SmallVectorImpl<const Expr *> &out,
                              bool hoistReads = false);

/// The binding of \p stmt's LHS tensor, after the checks every lowering of
/// a loop statement makes; null (with a diagnostic) when it cannot be
/// lowered.
const TensorBinding *lookupLhsForLowering(DefContext &def,
                                          const ComprehensionStmt &stmt);

/// The identity of reduction \p kind for element type \p type.
double getIdentity(ReductionKind kind, ScalarType type);

/// `acc op value` for reduction \p kind (value itself for None).
ir::Value *combine(ir::Builder &b, Location loc, ReductionKind kind,
                   ir::Value *acc, ir::Value *value);

} // namespace comprehend::tc::lowering

#endif // COMPREHEND_TC_LIB_LOWERING_EXPRLOWERING_H
