//===- TransposeWeightGradients.cpp - Weight gradients, channels last -----===//
//
// A convolution's weight gradient
//
//   d_W1(m, c, kh, kw) +=! d_O(n, m, h, w) * I(n, c, h + kh, w + kw)
//
// is, per tap (kh, kw) and row (n, h), a product of d_O's row (m x w) and
// I's shifted row (w x c). Both hold the reduction w contiguously, and a
// gemm wants its A operand's rows contiguous, so one of the two must be
// transposed somewhere. ConvPanelGemm.cpp transposes I: every block copies
// its windows into a panel, nine copies of each element for a 3x3 filter,
// element by element. On a CPU it is cheaper to transpose d_O once, with
// the output channels last, and to compute a temporary with them last:
//
//   d_O_t(n, h, w, m) = d_O(n, m, h, w)
//   d_W1_t(c, kh, kw, m) +=! d_O_t(n, h, w, m) * I(n, c, h + kh, w + kw)
//   d_W1(m, c, kh, kw) = d_W1_t(c, kh, kw, m)
//
// The middle statement is a gemm per tap over views of both operands, read
// in place (ConvAsGemm.cpp: C (m x c), A = d_O_t's row, B = I's shifted
// row), its (n, h) a loop around them; the copies are loop statements of
// their own. The weight gradient of conv2d at 8 x 32 x 56^2 with a 3x3
// filter took 2.6 ms instead of 4.6 (the gemms 2.0, the panel's copies 2.2
// of the 4.6) on a 2-core AVX-512 machine under PoCL; at 4 x 16 x 32^2
// 0.12 instead of 0.20 ms, at 32 x 64 x 56^2 54 instead of 63.
//
// The form is the one ConvPanelGemm.cpp takes (conv::matchPanelRoles): the
// LHS index `i` that the plain read P holds and the shifted read does not
// moves last in P's copy and in the temporary. Only for the def's own `+=!`
// statements without `where` lets or `exists`; by default on cores without
// subgroups (a GPU keeps the panel, whose copies its lanes spread), else
// where `tc.transpose_weight_gradients` asks (LoweringOptions::
// transposeWeightGradients). This is the def-level pass
// `transpose-weight-gradients` (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "ConvAsGemm.h"
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// The read of \p rhs that is \p read: its tensor, subscripted by exactly
/// its plain indices in order; null where there is none.
const ApplyExpr *findPlainRead(const Expr &rhs, const conv::ConvRead &read) {
  auto matches = [&](const ApplyExpr &apply) {
    if (!apply.isTensorRead() || apply.getCallee().name != read.tensor ||
        apply.getArgs().size() != read.subscripts.size())
      return false;
    for (auto [arg, subscript] : llvm::zip(apply.getArgs(), read.subscripts)) {
      const auto *ident = llvm::dyn_cast<IdentExpr>(arg.get());
      if (!ident || ident->getRef() != IdentExpr::Ref::Index ||
          subscript.vars.size() != 1 || ident->getName() != subscript.vars[0])
        return false;
    }
    return true;
  };
  const ApplyExpr *found = nullptr;
  walk<ApplyExpr>(rhs, [&](const ApplyExpr &apply) {
    if (!matches(apply))
      return WalkResult::advance();
    found = &apply;
    return WalkResult::interrupt();
  });
  return found;
}

/// \p items with the one named \p last moved to the end.
template <class T, class NameOf>
llvm::SmallVector<T, 4> withLast(llvm::ArrayRef<T> items, llvm::StringRef last,
                                 NameOf nameOf) {
  llvm::SmallVector<T, 4> result;
  for (const T &item : items)
    if (nameOf(item) != last)
      result.push_back(item);
  for (const T &item : items)
    if (nameOf(item) == last)
      result.push_back(item);
  return result;
}

/// The plain read that moves its index `i` last, and `i`, where \p stmt is
/// rewritten (see the file comment).
struct Transposed {
  const ApplyExpr *read = nullptr;
  llvm::StringRef i;
};

std::optional<Transposed> findTransposed(DefLoweringState &state,
                                         const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  if (stmt.scope || hasLetsOrExists(comp) || !comp.hasInit())
    return std::nullopt;
  DefContext &def = state.context;
  std::optional<conv::ConvOperands> operands = conv::matchOperands(def, stmt);
  if (!operands)
    return std::nullopt;
  std::optional<conv::PanelRoles> roles =
      conv::matchPanelRoles(def, stmt, *operands);
  // Where `i` is last already, the gemm over views reads P in place.
  if (!roles || operands->lhsVars.back() == roles->i)
    return std::nullopt;
  const ApplyExpr *read =
      findPlainRead(comp.getRhs(), operands->reads[roles->p]);
  if (!read)
    return std::nullopt;
  const LoweringOptions &options = state.options;
  bool byDefault = !options.gemmRowsPerLane;
  def.knobsUsed.transposeWeightGradients = true;
  def.knobsUsed.transposeWeightGradientsDefault |= byDefault;
  if (!options.transposeWeightGradients.value_or(byDefault))
    return std::nullopt;
  return Transposed{read, roles->i};
}

/// `lhs_t(indices, i last) +=! rhs` with P's read replaced by \p pCopy,
/// into a temporary declared here; appended to \p result. Returns the
/// temporary's name.
llvm::StringRef emitTransposedGemm(DefLoweringState &state,
                                   const StmtContext &stmt,
                                   const Transposed &transposed, ExprPtr pCopy,
                                   llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  llvm::SmallVector<Ident, 4> indices =
      withLast<Ident>(comp.getIndices(), transposed.i,
                      [](const Ident &index) { return index.name; });
  llvm::SmallVector<std::string, 4> vars;
  for (const Ident &index : indices)
    vars.push_back(index.name.str());
  for (const std::string &var : comp.getReductionVars())
    vars.push_back(var);
  llvm::SmallVector<IndexRange, 4> ranges;
  for (const std::string &var : vars)
    ranges.push_back(*stmt.lookup(var));
  llvm::StringRef name =
      declareLhsTemporary(state.context, state.rewritten, state.result, stmt,
                          indices, comp.getLhs().name + "_t");
  ExprPtr rhs = cloneExpr(comp.getRhs(), [&](const Expr &old) -> ExprPtr {
    return &old == transposed.read ? std::move(pCopy) : nullptr;
  });
  const ComprehensionStmt &gemm = createStatement(
      state.rewritten, comp.getLoc(), comp.getOpLoc(),
      Ident{name, comp.getLhs().loc}, indices, comp.getReduction(),
      /*init=*/true, std::move(rhs), vars);
  result.push_back(StmtContext{gemm, ranges, nullptr});
  return name;
}

/// `lhs(indices) = name(indices, i last)`; appended to \p result.
void emitCopyBack(DefLoweringState &state, const StmtContext &stmt,
                  const Transposed &transposed, llvm::StringRef name,
                  llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  llvm::SmallVector<const IdentExpr *, 4> subscripts;
  for (const Ident &index : comp.getIndices())
    subscripts.push_back(findIndexExpr(comp.getRhs(), index.name));
  subscripts = withLast<const IdentExpr *>(
      subscripts, transposed.i,
      [](const IdentExpr *ident) { return ident->getName(); });
  appendLhsStatement(state.rewritten, stmt, ReductionKind::None,
                     /*init=*/false,
                     makeTensorRead(name, subscripts, comp.getRhs()), {},
                     result);
}

/// Rewrites \p stmt into the copy of P, the gemm into a temporary and the
/// copy back (see the file comment), appending them to \p result; false,
/// leaving no trace, where the gemm would not be lowered over views.
bool rewrite(DefLoweringState &state, const StmtContext &stmt,
             const Transposed &transposed,
             llvm::SmallVectorImpl<StmtContext> &result) {
  const ApplyExpr &read = *transposed.read;
  llvm::SmallVector<const IdentExpr *, 4> order;
  for (const ExprPtr &arg : read.getArgs())
    order.push_back(llvm::cast<IdentExpr>(arg.get()));
  order = withLast<const IdentExpr *>(
      order, transposed.i,
      [](const IdentExpr *ident) { return ident->getName(); });
  llvm::SmallVector<StmtContext, 3> stmts;
  ExprPtr pCopy = copyToPermutedTemporary(
      state.context, state.rewritten, state.result, stmt, read, order, stmts);
  llvm::StringRef name =
      emitTransposedGemm(state, stmt, transposed, std::move(pCopy), stmts);
  if (!isConvGemm(state, stmts.back())) {
    forgetTemporary(state.context, state.result, name);
    forgetTemporary(state.context, state.result,
                    stmts.front().stmt.getLhs().name);
    return false;
  }
  emitCopyBack(state, stmt, transposed, name, stmts);
  result.append(stmts.begin(), stmts.end());
  return true;
}

} // namespace

LogicalResult lowering::transposeWeightGradients(DefLoweringState &state) {
  if (!state.options.matchBlas)
    return success();
  state.context.scope = nullptr;
  rewriteEachStatement(state, [&](const StmtContext &stmt, auto &result) {
    std::optional<Transposed> transposed = findTransposed(state, stmt);
    return transposed && rewrite(state, stmt, *transposed, result);
  });
  return success();
}
