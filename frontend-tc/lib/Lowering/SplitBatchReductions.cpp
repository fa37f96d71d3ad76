//===- SplitBatchReductions.cpp - Per-image partial sums on a GPU ---------===//
//
// A convolution's weight gradient
//
//   d_W1(m, c, kh, kw) +=! d_O(n, m, h, w) * I(n, c, h + kh, w + kw)
//
// has few output points (64 x 64 x 3 x 3: 36 864) and a long reduction over
// the images and pixels (32 x 54 x 54). Lowered as it is, a GPU runs it on
// a handful of work-groups, each looping over every image: 19.3 ms on an
// H200 at 32 x 64 x 56^2, against 0.72 ms for the input gradient. The
// images are a reduction index that every read subscripts first, plainly;
// summed per image first, the statement becomes
//
//   d_W1_part(n, m, c, kh, kw) +=! d_O(n, m, h, w) * I(n, c, h + kh, w + kw)
//   d_W1(m, c, kh, kw) +=! d_W1_part(n, m, c, kh, kw)
//
// whose first statement has the image as a batch index (a work-group per
// image and block of rows, ConvPanelGemm.cpp) and whose second is a sum over
// a small temporary. By default on GPU cores where the output has fewer
// points than the device has work-items (`tc.split_batch_reductions`,
// LoweringOptions::splitBatchReductions), for the def's own
// convolution-like `+=!` statements (lowered as gemms, isConvGemm) whose
// partial sums take at most kMaxPartialBytes. This is the def-level pass
// `split-batch-reductions` (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// The fewest points each partial sum reduces (the reduction indices
/// other than the images).
constexpr int64_t kMinPartialReduction = 64;
/// The most memory the partial sums of one statement may take.
constexpr int64_t kMaxPartialBytes = int64_t(64) << 20;

/// Whether \p read (a tensor read) subscripts \p var first, as a whole
/// subscript; a 0-d tensor's read does not.
bool readsFirst(const Expr &read, llvm::StringRef var) {
  const auto *apply = llvm::dyn_cast<ApplyExpr>(&read);
  if (!apply || apply->getArgs().empty())
    return false;
  const auto *ident = llvm::dyn_cast<IdentExpr>(apply->getArgs().front().get());
  return ident && ident->getRef() == IdentExpr::Ref::Index &&
         ident->getName() == var;
}

/// The reduction index of \p stmt that every tensor read of its right-hand
/// side subscripts first (the images of NCHW tensors), or an empty name.
llvm::StringRef findBatchReduction(const ComprehensionStmt &stmt) {
  for (const std::string &var : stmt.getReductionVars()) {
    bool any = false, every = true;
    forEachTensorRead(stmt.getRhs(), [&](const Expr &read, llvm::StringRef) {
      any = true;
      every &= readsFirst(read, var);
    });
    if (any && every)
      return var;
  }
  return {};
}

/// An occurrence of index variable \p var in \p expr, or null.
const IdentExpr *findIndexExpr(const Expr &expr, llvm::StringRef var) {
  const IdentExpr *found = nullptr;
  walk<IdentExpr>(expr, [&](const IdentExpr &ident) {
    if (ident.getRef() != IdentExpr::Ref::Index || ident.getName() != var)
      return WalkResult::advance();
    found = &ident;
    return WalkResult::interrupt();
  });
  return found;
}

int64_t extentOf(const StmtContext &stmt, llvm::StringRef var) {
  const IndexRange &range = *stmt.lookup(var);
  return range.hi - range.lo;
}

/// The two statements that replace \p stmt (see the file comment), or
/// false where it keeps its form.
bool splitStatement(DefLoweringState &state, const StmtContext &stmt,
                    llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  // Only statements lowered as gemms (in a launch of their own): split
  // as loops, a column sum's partials and their sum fuse into one
  // work-group (conv2d's d_B(m) +=! d_O(n, m, h, w): 4.6 ms instead of
  // 3.8 on an H200, bench/results/gpu-cases.md).
  if (stmt.scope || hasLetsOrExists(comp) || !comp.hasInit() ||
      comp.getReduction() != ReductionKind::Add || !isConvGemm(state, stmt))
    return false;
  llvm::StringRef batch = findBatchReduction(comp);
  if (batch.empty() || extentOf(stmt, batch) < 2)
    return false;
  // What each partial sum still reduces: without enough of it, the partials
  // would only copy (a layer norm's column sums over the rows alone).
  int64_t inner = 1;
  for (const std::string &var : comp.getReductionVars())
    if (var != batch)
      inner *= extentOf(stmt, var);
  if (inner < kMinPartialReduction)
    return false;
  DefContext &def = state.context;
  const TensorBinding &lhs = *def.lookup(comp.getLhs().name);
  int64_t points = 1;
  for (const Ident &index : comp.getIndices())
    points *= extentOf(stmt, index.name);
  if (points * extentOf(stmt, batch) * ir::getSizeInBytes(lhs.kind) >
      kMaxPartialBytes)
    return false;
  const LoweringOptions &options = state.options;
  bool byDefault =
      options.gemmRowsPerLane && points < options.minParallelPoints;
  def.knobsUsed.splitBatchReductions = true;
  def.knobsUsed.splitBatchReductionsDefault |= byDefault;
  if (!options.splitBatchReductions.value_or(byDefault))
    return false;

  // The partial sums: the batch index first, then the LHS's.
  TensorBinding binding;
  binding.type = lhs.type;
  binding.kind = lhs.kind;
  llvm::SmallVector<Ident, 4> partIndices = {Ident{batch, comp.getLoc()}};
  partIndices.append(comp.getIndices().begin(), comp.getIndices().end());
  llvm::SmallVector<std::string, 4> partVars;
  llvm::SmallVector<IndexRange, 4> partRanges;
  for (const Ident &index : partIndices) {
    const IndexRange &range = *stmt.lookup(index.name);
    binding.shape.push_back(range.hi - range.lo);
    binding.lowerBounds.push_back(range.lo);
    partVars.push_back(index.name.str());
    partRanges.push_back(range);
  }
  llvm::StringRef name =
      declareTemporary(def, state.rewritten, state.result,
                       comp.getLhs().name + "_part", std::move(binding));
  for (const std::string &var : comp.getReductionVars())
    if (var != batch) {
      partVars.push_back(var);
      partRanges.push_back(*stmt.lookup(var));
    }
  auto &partial =
      state.rewritten.stmts.emplace_back(std::make_unique<ComprehensionStmt>(
          comp.getLoc(), Ident{name, comp.getLhs().loc}, partIndices,
          ReductionKind::Add, /*init=*/true, comp.getOpLoc(),
          cloneExpr(comp.getRhs()), std::vector<WhereClause>{}));
  partial->setIndexVars(partVars);
  result.push_back(StmtContext{*partial, partRanges, nullptr});

  // The sum of the partials over the batch index, read at the statement's
  // own index variables.
  llvm::SmallVector<const IdentExpr *, 4> subscripts;
  for (const Ident &index : partIndices)
    subscripts.push_back(findIndexExpr(comp.getRhs(), index.name));
  if (llvm::is_contained(subscripts, nullptr))
    return false;
  llvm::SmallVector<std::string, 4> sumVars(comp.getIndexVars().begin(),
                                            comp.getIndexVars().begin() +
                                                comp.getIndices().size());
  sumVars.push_back(batch.str());
  llvm::SmallVector<IndexRange, 4> sumRanges(partRanges.begin() + 1,
                                             partRanges.begin() +
                                                 partIndices.size());
  sumRanges.push_back(partRanges.front());
  auto &sum = state.rewritten.stmts.emplace_back(
      std::make_unique<ComprehensionStmt>(
          comp.getLoc(), comp.getLhs(),
          llvm::SmallVector<Ident, 4>(comp.getIndices().begin(),
                                      comp.getIndices().end()),
          ReductionKind::Add, /*init=*/true, comp.getOpLoc(),
          makeTensorRead(name, subscripts, comp.getRhs()),
          std::vector<WhereClause>{}));
  sum->setIndexVars(sumVars);
  result.push_back(StmtContext{*sum, sumRanges, nullptr});
  return true;
}

} // namespace

LogicalResult lowering::splitBatchReductions(DefLoweringState &state) {
  if (!state.options.matchBlas)
    return success();
  llvm::SmallVector<StmtContext, 8> result;
  for (const StmtContext &stmt : state.stmts)
    if (!splitStatement(state, stmt, result))
      result.push_back(stmt);
  state.stmts.assign(result.begin(), result.end());
  return success();
}
