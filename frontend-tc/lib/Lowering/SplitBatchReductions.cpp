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
// points than twice the device's work-items (`tc.split_batch_reductions`,
// LoweringOptions::splitBatchReductions), for the def's own
// convolution-like `+=!` statements (lowered as gemms, isConvGemm) whose
// partial sums take at most kMaxPartialBytes. Other `+=!` statements of
// that form (a bias gradient, `d_B(m) +=! d_O(n, m, h, w)`) are split by
// default where their output has fewer points than the device's
// work-items: the kernel that fused them with their neighbours starved the
// device (64 groups, 1.04 ms of conv2d's 2.38 ms backward at 32 x 64 x
// 56^2 on an H200), and split, the mapper's unfusion gives the partials a
// kernel of their own (0.04 ms with the padding and the flip). This is the
// def-level pass `split-batch-reductions` (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/Support/MathExtras.h"

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

/// The batch index over which \p stmt is split (see the file comment), or
/// an empty name where it keeps its form.
llvm::StringRef findSplit(DefLoweringState &state, const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  if (stmt.scope || hasLetsOrExists(comp) || !comp.hasInit() ||
      comp.getReduction() != ReductionKind::Add)
    return {};
  // Statements lowered as loops are taken only where the mapper unfuses a
  // kernel that starves the device (minParallelPoints, GPU cores): there
  // the partials, with the points to fill it, get a kernel of their own.
  // Without that rule the partials and their sum fused into one work-group
  // (conv2d's d_B(m) +=! d_O(n, m, h, w): 4.6 ms instead of 3.8 on an
  // H200); with it, see the file comment. The knob takes them anywhere.
  // The gemm match (a dry run of the lowering) after the cheap tests.
  llvm::StringRef batch = findBatchReduction(comp);
  if (batch.empty() || extentOf(stmt, batch) < 2)
    return {};
  const LoweringOptions &options = state.options;
  bool gemm = isConvGemm(state, stmt);
  if (!gemm && options.minParallelPoints <= 0 &&
      !options.splitBatchReductions.value_or(false))
    return {};
  // What each partial sum still reduces: without enough of it, the partials
  // would only copy (a layer norm's column sums over the rows alone).
  // Saturating products: a statement's points may exceed int64_t.
  auto times = [](uint64_t product, int64_t extent) {
    return llvm::SaturatingMultiply(product, uint64_t(extent));
  };
  uint64_t inner = 1;
  for (const std::string &var : comp.getReductionVars())
    if (var != batch)
      inner = times(inner, extentOf(stmt, var));
  DefContext &def = state.context;
  uint64_t points = 1;
  for (const Ident &index : comp.getIndices()) {
    points = times(points, extentOf(stmt, index.name));
    if (!findIndexExpr(comp.getRhs(), index.name))
      return {};
  }
  uint64_t bytes =
      times(times(points, extentOf(stmt, batch)),
            ir::getSizeInBytes(def.lookup(comp.getLhs().name)->kind));
  if (inner < uint64_t(kMinPartialReduction) ||
      bytes > uint64_t(kMaxPartialBytes))
    return {};
  // By default below twice the device's work-items: at 8 x 128 x 28^2
  // (147 456 points, 1.09 times an H200's 135 168) the split ran in 2.33 ms
  // against 3.34 (bench/results/gpu-cases.md). Loops below them: a kernel
  // that starves the device is what the split is for.
  uint64_t deviceLimit =
      uint64_t(std::max<int64_t>(0, options.minParallelPoints));
  bool byDefault = options.gemmRowsPerLane &&
                   points < (gemm ? 2 * deviceLimit : deviceLimit);
  def.knobsUsed.splitBatchReductions = true;
  def.knobsUsed.splitBatchReductionsDefault |= byDefault;
  return options.splitBatchReductions.value_or(byDefault) ? batch
                                                          : llvm::StringRef();
}

/// `name(batch, lhs indices) +=! rhs`: the partial sums, in a temporary
/// declared here; appended to \p result.
llvm::StringRef emitPartials(DefLoweringState &state, const StmtContext &stmt,
                             llvm::StringRef batch,
                             llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  llvm::SmallVector<Ident, 4> indices = {Ident{batch, comp.getLoc()}};
  indices.append(comp.getIndices().begin(), comp.getIndices().end());
  llvm::SmallVector<std::string, 4> vars;
  llvm::SmallVector<IndexRange, 4> ranges;
  llvm::StringRef name =
      declareLhsTemporary(state.context, state.rewritten, state.result, stmt,
                          indices, comp.getLhs().name + "_part");
  // Its indices, then the other reduction indices.
  for (const Ident &index : indices)
    vars.push_back(index.name.str());
  for (const std::string &var : comp.getReductionVars())
    if (var != batch)
      vars.push_back(var);
  for (const std::string &var : vars)
    ranges.push_back(*stmt.lookup(var));
  const ComprehensionStmt &partial = createStatement(
      state.rewritten, comp.getLoc(), comp.getOpLoc(),
      Ident{name, comp.getLhs().loc}, indices, ReductionKind::Add,
      /*init=*/true, cloneExpr(comp.getRhs()), vars);
  result.push_back(StmtContext{partial, ranges, nullptr});
  return name;
}

/// `lhs(indices) +=! name(batch, indices)`: the sum of the partials, read
/// at the statement's own index variables; appended to \p result.
void emitSum(DefLoweringState &state, const StmtContext &stmt,
             llvm::StringRef batch, llvm::StringRef name,
             llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  llvm::SmallVector<const IdentExpr *, 4> subscripts = {
      findIndexExpr(comp.getRhs(), batch)};
  for (const Ident &index : comp.getIndices())
    subscripts.push_back(findIndexExpr(comp.getRhs(), index.name));
  appendLhsStatement(state.rewritten, stmt, ReductionKind::Add, /*init=*/true,
                     makeTensorRead(name, subscripts, comp.getRhs()), {batch},
                     result);
}

} // namespace

LogicalResult lowering::splitBatchReductions(DefLoweringState &state) {
  if (!state.options.matchBlas)
    return success();
  rewriteEachStatement(state, [&](const StmtContext &stmt, auto &result) {
    llvm::StringRef batch = findSplit(state, stmt);
    if (batch.empty())
      return false;
    llvm::StringRef name = emitPartials(state, stmt, batch, result);
    emitSum(state, stmt, batch, name, result);
    return true;
  });
  return success();
}
