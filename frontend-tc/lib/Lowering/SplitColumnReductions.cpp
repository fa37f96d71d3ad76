//===- SplitColumnReductions.cpp - Column sums in parallel on a GPU -------===//
//
// A layer norm backward's bias gradient
//
//   d_beta(d) +=! d_Y(n, d)
//
// has few output points (2048 columns) and a long reduction over the rows
// (8192), which every read subscripts before the columns. A GPU runs it as
// a work-group per column whose work-items stride down the rows, each load
// on a cache line of its own: 0.124 ms on an H200 for 64 MB. Summed per
// block of rows first,
//
//   d_beta_part(n_block, d) +=! d_Y(n_block * 32 + n_in, d)
//       where n_block in 0:256, n_in in 0:32
//   d_beta(d) +=! d_beta_part(n_block, d)
//
// the partial sums have 256 times the points, with the columns, which
// neighbouring work-items read contiguously, mapped to the work-items
// (the innermost member, poly::ScheduleOptions::mapInnermostMembers); the
// sum of the partials is small. The scheduler keeps the two statements in
// kernels of their own where isl would fuse them on the columns
// (polyhedral/lib/Unfusion.cpp, unfuseForParallelism).
//
// By default on GPU cores (LoweringOptions::mapInnermostMembers) for `+=!`,
// `max=!` and `min=!` statements with fewer output points than the device
// runs at once (minParallelPoints), a reduction index that no read of an
// output index subscripts last, and a read whose last subscript is an
// output index of at least kMinColumns points; not
// for statements lowered as BLAS (their own kernels). The blocks are as
// many as fill the device twice, a divisor of the reduction's extent, each
// of at least kMinBlock rows (`tc.split_column_reductions` forces or
// forbids the split). This is the def-level pass `split-column-reductions`
// (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/Support/MathExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// The fewest rows a block of partial sums reduces.
constexpr int64_t kMinBlock = 8;
/// The fewest columns: a warp's worth of neighbouring elements. The sum of
/// a convolution's per-image weight gradients (SplitBatchReductions.cpp),
/// whose last subscript is a 3-wide kernel column, took 0.24 ms split
/// against 0.03 on an H200 (bench/results/gpu-cases.md).
constexpr int64_t kMinColumns = 32;
/// The most memory the partial sums of one statement may take.
constexpr int64_t kMaxPartialBytes = int64_t(64) << 20;

/// Whether index variable \p var occurs in \p expr.
bool mentions(const Expr &expr, llvm::StringRef var) {
  bool found = false;
  walk<IdentExpr>(expr, [&](const IdentExpr &ident) {
    found = ident.getRef() == IdentExpr::Ref::Index && ident.getName() == var;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Whether \p read subscripts one of the output indices of \p comp.
bool readsAnOutputIndex(const ApplyExpr &read, const ComprehensionStmt &comp) {
  return llvm::any_of(comp.getIndices(), [&](const Ident &index) {
    return llvm::any_of(read.getArgs(), [&](const ExprPtr &arg) {
      return mentions(*arg, index.name);
    });
  });
}

/// The reduction index of \p stmt that no read of an output index
/// subscripts last, where such a read subscripts an output index of at
/// least kMinColumns points last (the columns); else empty. Reads of the
/// rows alone (a per-row scale) are broadcasts along the columns and do not
/// count.
llvm::StringRef findRowReduction(const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  bool columnRead = false;
  llvm::SmallVector<const Expr *, 4> lastSubscripts;
  forEachTensorRead(comp.getRhs(), [&](const Expr &read, llvm::StringRef) {
    const auto *apply = llvm::dyn_cast<ApplyExpr>(&read);
    if (!apply || apply->getArgs().empty() || !readsAnOutputIndex(*apply, comp))
      return;
    const Expr &last = *apply->getArgs().back();
    lastSubscripts.push_back(&last);
    const auto *ident = llvm::dyn_cast<IdentExpr>(&last);
    if (ident && ident->getRef() == IdentExpr::Ref::Index)
      for (const Ident &index : comp.getIndices())
        columnRead |= index.name == ident->getName() &&
                      extentOf(stmt, index.name) >= kMinColumns;
  });
  if (!columnRead)
    return {};
  for (const std::string &var : comp.getReductionVars())
    if (llvm::none_of(lastSubscripts,
                      [&](const Expr *last) { return mentions(*last, var); }))
      return var;
  return {};
}

/// The number of blocks to split \p extent rows into for \p points output
/// points: the fewest that divides the extent and gives at least twice
/// \p minParallelPoints partial sums, else the most with kMinBlock rows
/// each; at most \p maxBlocks (the partials' memory); 1 where the extent
/// has no such divisor. The search stops at the first that fills the
/// device, so a large prime extent costs at most maxBlocks steps.
int64_t chooseBlocks(int64_t extent, uint64_t points, int64_t minParallelPoints,
                     int64_t maxBlocks) {
  uint64_t wanted =
      points == 0
          ? 2
          : llvm::divideCeil(
                2 * uint64_t(std::max<int64_t>(minParallelPoints, 0)), points);
  int64_t best = 1;
  int64_t last = std::min(extent / kMinBlock, maxBlocks);
  for (int64_t blocks = 2; blocks <= last; ++blocks) {
    if (extent % blocks != 0)
      continue;
    best = blocks;
    if (uint64_t(blocks) >= std::max<uint64_t>(wanted, 2))
      break;
  }
  return best;
}

/// A statement's split: the reduction index and how many blocks.
struct ColumnSplit {
  llvm::StringRef var;
  int64_t blocks = 1;
};

/// How \p stmt is split (see the file comment); no var where it is not.
ColumnSplit findSplit(DefLoweringState &state, const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  ReductionKind kind = comp.getReduction();
  if (stmt.scope || hasLetsOrExists(comp) || !comp.hasInit() ||
      (kind != ReductionKind::Add && kind != ReductionKind::Max &&
       kind != ReductionKind::Min) ||
      isBlasStatement(state, stmt))
    return {};
  llvm::StringRef var = findRowReduction(stmt);
  if (var.empty())
    return {};
  uint64_t points = 1;
  for (const Ident &index : comp.getIndices())
    points =
        llvm::SaturatingMultiply(points, uint64_t(extentOf(stmt, index.name)));
  const LoweringOptions &options = state.options;
  DefContext &def = state.context;
  uint64_t bytesPerBlock = llvm::SaturatingMultiply(
      points,
      uint64_t(ir::getSizeInBytes(def.lookup(comp.getLhs().name)->kind)));
  int64_t maxBlocks = bytesPerBlock == 0
                          ? 0
                          : int64_t(uint64_t(kMaxPartialBytes) / bytesPerBlock);
  int64_t blocks = chooseBlocks(extentOf(stmt, var), points,
                                options.minParallelPoints, maxBlocks);
  if (blocks < 2)
    return {};
  bool byDefault =
      options.mapInnermostMembers &&
      points < uint64_t(std::max<int64_t>(0, options.minParallelPoints));
  def.knobsUsed.splitColumnReductions = true;
  def.knobsUsed.splitColumnReductionsDefault |= byDefault;
  if (!options.splitColumnReductions.value_or(byDefault))
    return {};
  return {var, blocks};
}

/// A name for a new index variable of \p comp: \p base, with underscores
/// added until no variable of the statement has it.
std::string freshIndexName(const StmtContext &stmt, std::string base) {
  while (stmt.lookup(base))
    base += "_";
  return base;
}

std::unique_ptr<IdentExpr> makeIndex(llvm::StringRef name, Location loc) {
  auto ident = std::make_unique<IdentExpr>(Ident{name, loc});
  ident->resolve(IdentExpr::Ref::Index);
  ident->setType(ScalarType::Int32);
  return ident;
}

ExprPtr makeIndexBinary(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
  Location loc = lhs->getLoc();
  auto binary =
      std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
  binary->setType(ScalarType::Int32);
  return binary;
}

/// `lo + block * rows + within`: the row that \p block and \p within name.
ExprPtr makeRow(llvm::StringRef block, llvm::StringRef within, int64_t rows,
                int64_t lo, Location loc) {
  ExprPtr row =
      makeIndexBinary(BinaryOp::Add,
                      makeIndexBinary(BinaryOp::Mul, makeIndex(block, loc),
                                      std::make_unique<IntLitExpr>(
                                          loc, rows, ScalarType::Int32)),
                      makeIndex(within, loc));
  if (lo == 0)
    return row;
  return makeIndexBinary(
      BinaryOp::Add, std::make_unique<IntLitExpr>(loc, lo, ScalarType::Int32),
      std::move(row));
}

/// `name(block, lhs indices) op=! rhs`, the row index replaced by
/// `lo + block * rows + within`: the partial results, in a temporary
/// declared here; appended to \p result. Returns the temporary's name and
/// the block index's.
std::pair<llvm::StringRef, llvm::StringRef>
emitPartials(DefLoweringState &state, const StmtContext &stmt,
             const ColumnSplit &split,
             llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  const IndexRange &rows = *stmt.lookup(split.var);
  int64_t perBlock = (rows.hi - rows.lo) / split.blocks;
  llvm::StringRef block = state.temporaryNames.emplace_back(
      freshIndexName(stmt, split.var.str() + "_block"));
  llvm::StringRef within = state.temporaryNames.emplace_back(
      freshIndexName(stmt, split.var.str() + "_in"));
  const TensorBinding &lhs = *state.context.lookup(comp.getLhs().name);
  TensorBinding binding;
  binding.type = lhs.type;
  binding.kind = lhs.kind;
  binding.shape.push_back(split.blocks);
  binding.lowerBounds.push_back(0);
  llvm::SmallVector<Ident, 4> indices = {Ident{block, comp.getLoc()}};
  llvm::SmallVector<std::string, 4> vars = {block.str()};
  llvm::SmallVector<IndexRange, 4> ranges = {{block.str(), 0, split.blocks}};
  for (const Ident &index : comp.getIndices()) {
    const IndexRange &range = *stmt.lookup(index.name);
    binding.shape.push_back(range.hi - range.lo);
    binding.lowerBounds.push_back(range.lo);
    indices.push_back(index);
    vars.push_back(index.name.str());
    ranges.push_back(range);
  }
  llvm::StringRef name =
      declareTemporary(state.context, state.rewritten, state.result,
                       comp.getLhs().name + "_part", std::move(binding));
  vars.push_back(within.str());
  ranges.push_back({within.str(), 0, perBlock});
  for (const std::string &var : comp.getReductionVars())
    if (var != split.var) {
      vars.push_back(var);
      ranges.push_back(*stmt.lookup(var));
    }
  ExprPtr rhs = cloneExpr(comp.getRhs(), [&](const Expr &expr) -> ExprPtr {
    const auto *ident = llvm::dyn_cast<IdentExpr>(&expr);
    if (!ident || ident->getRef() != IdentExpr::Ref::Index ||
        ident->getName() != split.var)
      return nullptr;
    return makeRow(block, within, perBlock, rows.lo, ident->getLoc());
  });
  const ComprehensionStmt &partial = createStatement(
      state.rewritten, comp.getLoc(), comp.getOpLoc(),
      Ident{name, comp.getLhs().loc}, indices, comp.getReduction(),
      /*init=*/true, std::move(rhs), vars);
  result.push_back(StmtContext{partial, ranges, nullptr});
  return {name, block};
}

/// `lhs(indices) op=! name(block, indices)`: the partials combined;
/// appended to \p result.
void emitCombine(DefLoweringState &state, const StmtContext &stmt,
                 const ColumnSplit &split, llvm::StringRef name,
                 llvm::StringRef block,
                 llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  Location loc = comp.getLoc();
  llvm::SmallVector<ExprPtr, 4> subscripts;
  subscripts.push_back(makeIndex(block, loc));
  llvm::SmallVector<std::string, 4> vars;
  llvm::SmallVector<IndexRange, 4> ranges;
  for (const Ident &index : comp.getIndices()) {
    subscripts.push_back(makeIndex(index.name, loc));
    vars.push_back(index.name.str());
    ranges.push_back(*stmt.lookup(index.name));
  }
  vars.push_back(block.str());
  ranges.push_back({block.str(), 0, split.blocks});
  auto read =
      std::make_unique<ApplyExpr>(loc, Ident{name, loc}, std::move(subscripts));
  read->setTarget(ApplyExpr::Target::Tensor);
  read->setType(comp.getRhs().getType());
  const ComprehensionStmt &combine = createStatement(
      state.rewritten, loc, comp.getOpLoc(), comp.getLhs(), comp.getIndices(),
      comp.getReduction(), /*init=*/true, std::move(read), vars);
  result.push_back(StmtContext{combine, ranges, nullptr});
}

/// The tensor \p stmt writes, by its name in the def.
llvm::StringRef writtenTensor(const StmtContext &stmt) {
  llvm::StringRef lhs = stmt.stmt.getLhs().name;
  return stmt.scope ? stmt.scope->resolve(lhs) : lhs;
}

/// Whether \p stmt can run after every statement of \p later: none of
/// them writes what it reads or writes, or reads what it writes.
bool canMoveAfter(const StmtContext &stmt, llvm::ArrayRef<StmtContext> later) {
  llvm::StringSet<> reads;
  collectReads(stmt, reads);
  llvm::StringRef written = writtenTensor(stmt);
  return llvm::none_of(later, [&](const StmtContext &other) {
    llvm::StringSet<> otherReads;
    collectReads(other, otherReads);
    llvm::StringRef otherWritten = writtenTensor(other);
    return otherWritten == written || reads.contains(otherWritten) ||
           otherReads.contains(written);
  });
}

} // namespace

LogicalResult lowering::splitColumnReductions(DefLoweringState &state) {
  // The split statements go last, in a run of their own: scheduled with
  // the others, isl's scheduler took minutes over a layer norm backward
  // whose rows it keeps in other kernels anyway. The partials come before
  // the combinations, so that those over the same rows may share a kernel
  // and its reads.
  llvm::SmallVector<StmtContext, 8> kept, moved, combined;
  llvm::ArrayRef<StmtContext> stmts = state.stmts;
  for (size_t i = 0; i < stmts.size(); ++i) {
    ColumnSplit split = findSplit(state, stmts[i]);
    if (split.var.empty() || !canMoveAfter(stmts[i], stmts.drop_front(i + 1))) {
      kept.push_back(stmts[i]);
      continue;
    }
    auto [name, block] = emitPartials(state, stmts[i], split, moved);
    emitCombine(state, stmts[i], split, name, block, combined);
  }
  if (moved.empty())
    return success();
  state.runStarts.insert(&moved.front().stmt);
  kept.append(moved.begin(), moved.end());
  kept.append(combined.begin(), combined.end());
  state.stmts.assign(kept.begin(), kept.end());
  return success();
}
