//===- GemmEpilogue.cpp - A pointwise statement in its gemm's launch ------===//
//
// A layer writes its product, then rewrites it element by element:
//
//   H1(b, n) +=! I(b, m) * W1(n, m)
//   H1(b, n) = fmax(H1(b, n) + B1(n), 0)
//
// Alone, the second statement is a launch of its own that reads H1 back
// from memory. Each work-group of the gemm's launch owns a block of H1
// (BlasPatterns.cpp: blocks of the output and a batch point; ConvAsGemm.cpp:
// a batch point, the rows and columns whole), so the group can run the
// statement over its own block once its gemms are done: `foreach` over the
// block after the gemm, which `insert-barriers` separates from the gemm's
// stores with a work-group barrier. One launch less, and the block is read
// back from the cache.
//
// The statement joins the launch where it is the next statement after the
// gemm (both the def's own, or both of one inlined call), writes the gemm's
// output with `=` at the same indices over the same ranges, without a where
// clause, and reads that output only at its own element (other elements
// belong to other groups). It may read any other
// tensor: the gemm writes none. Only gemms whose groups own their blocks
// take it: lowerAsBlas's `gemm` and ConvAsGemm.cpp's gemms over views (not
// the panels of ConvPanelGemm.cpp, nor gemv and the other BLAS forms). By
// default on cores without subgroups (`tc.gemm_epilogue`): it has not run on
// a GPU.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"
#include "ExprLowering.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// Whether \p next may run over the blocks of the gemm statement \p gemm
/// (the file comment's conditions, without the gemm's form).
bool isPointwiseOnOutput(const StmtContext &gemm, const StmtContext &next) {
  const ComprehensionStmt &stmt = next.stmt;
  // Both the def's own, or both of one inlined call (names resolve alike).
  if (gemm.scope != next.scope || stmt.getReduction() != ReductionKind::None ||
      !stmt.getReductionVars().empty() || !stmt.getWheres().empty() ||
      hasLetsOrExists(stmt) || stmt.getLhs().name != gemm.stmt.getLhs().name)
    return false;
  llvm::ArrayRef<Ident> indices = stmt.getIndices();
  llvm::ArrayRef<Ident> gemmIndices = gemm.stmt.getIndices();
  if (indices.size() != gemmIndices.size())
    return false;
  for (auto [index, gemmIndex] : llvm::zip(indices, gemmIndices)) {
    const IndexRange *range = next.lookup(index.name);
    const IndexRange *gemmRange = gemm.lookup(gemmIndex.name);
    if (index.name != gemmIndex.name || !range || !gemmRange ||
        range->lo != gemmRange->lo || range->hi != gemmRange->hi)
      return false;
  }
  llvm::SmallVector<const ApplyExpr *, 2> elsewhere;
  collectSelfReads(stmt.getRhs(), stmt, /*lhsPointToo=*/false, elsewhere);
  return elsewhere.empty();
}

} // namespace

bool lowering::joinsGemmLaunch(DefLoweringState &state, const StmtContext &gemm,
                               const StmtContext &next) {
  DefContext &def = state.context;
  if (!isPointwiseOnOutput(gemm, next))
    return false;
  def.scope = gemm.scope;
  if (!(lowerAsBlas(def, gemm, /*dryRun=*/true)
            ? isGemmForm(def, gemm)
            : convGemmTakesEpilogue(def, gemm)))
    return false;
  bool byDefault = !state.options.gemmRowsPerLane;
  def.knobsUsed.gemmEpilogue = true;
  def.knobsUsed.gemmEpilogueDefault |= byDefault;
  return state.options.gemmEpilogue.value_or(byDefault);
}

/// The loops of an epilogue over the work-group's block [\p from, \p to)
/// of the indices \p looped (memref order): a `foreach` over the block's
/// points and, where \p contiguousFirst on cores whose work-items run
/// vectors, a `simd` loop per work-item over a run of the first (contiguous)
/// index, as the mapper's vector runs. Binds each looped index in
/// \p lowerer and leaves the insertion point in the innermost loop.
static void emitBlockLoops(DefContext &def, Location loc,
                           llvm::ArrayRef<llvm::StringRef> looped,
                           llvm::ArrayRef<ir::Value *> from,
                           llvm::ArrayRef<ir::Value *> to, bool contiguousFirst,
                           ExprLowerer &lowerer) {
  ir::Builder &b = def.builder;
  if (looped.empty())
    return;
  int64_t run = contiguousFirst ? def.vectorRun : 0;
  llvm::SmallVector<ir::Value *, 4> lower(from.begin(), from.end()),
      upper(to.begin(), to.end());
  if (run > 1) {
    // Runs of the first dimension: [0, ceil(extent / run)).
    ir::Value *extent =
        b.create<ir::SubInst>(loc, to[0], from[0])->getResult(0);
    ir::Value *runs =
        b.create<ir::AddInst>(loc, extent, b.createIndexConstant(loc, run - 1))
            ->getResult(0);
    lower[0] = b.createIndexConstant(loc, 0);
    upper[0] = b.create<ir::DivInst>(loc, runs, b.createIndexConstant(loc, run))
                   ->getResult(0);
  }
  auto foreach = b.create<ir::ForeachInst>(loc, lower, upper);
  b.setInsertionPointToEnd(foreach.getBody());
  for (unsigned d = 1; d < looped.size(); ++d)
    lowerer.bindIndex(looped[d], foreach.getBody().getParameter(d));
  if (run <= 1) {
    lowerer.bindIndex(looped[0], foreach.getBody().getParameter(0));
    return;
  }
  ir::Value *start =
      b.create<ir::AddInst>(
           loc, from[0],
           b.create<ir::MulInst>(loc, foreach.getBody().getParameter(0),
                                 b.createIndexConstant(loc, run))
               ->getResult(0))
          ->getResult(0);
  ir::Value *end =
      b.create<ir::MinInst>(
           loc,
           b.create<ir::AddInst>(loc, start, b.createIndexConstant(loc, run))
               ->getResult(0),
           to[0])
          ->getResult(0);
  auto loop = b.create<ir::ForInst>(loc, start, end, nullptr,
                                    llvm::ArrayRef<ir::Value *>{},
                                    ir::getSimdLoopAttributes(b.getContext()));
  b.setInsertionPointToEnd(loop.getBody());
  lowerer.bindIndex(looped[0], loop.getBody().getParameter(0));
}

void lowering::emitGemmEpilogue(DefContext &def, const StmtContext &epilogue,
                                const GroupBlock &block) {
  ir::Builder &b = def.builder;
  const ComprehensionStmt &stmt = epilogue.stmt;
  Location loc = stmt.getLoc();
  def.scope = epilogue.scope;
  ExprLowerer lowerer(def, epilogue);
  // The block in the output memref's order (its last TC index first).
  llvm::SmallVector<llvm::StringRef, 4> looped;
  llvm::SmallVector<ir::Value *, 4> from, to;
  for (const Ident &index : llvm::reverse(stmt.getIndices())) {
    if (ir::Value *value = block.fixed.lookup(index.name)) {
      lowerer.bindIndex(index.name, value);
      continue;
    }
    looped.push_back(index.name);
    auto span = block.spans.find(index.name);
    if (span != block.spans.end()) {
      from.push_back(span->second.first);
      to.push_back(span->second.second);
      continue;
    }
    const IndexRange *range = epilogue.lookup(index.name);
    from.push_back(b.createIndexConstant(loc, range->lo));
    to.push_back(b.createIndexConstant(loc, range->hi));
  }
  ir::Region *after = b.getInsertionRegion();
  bool contiguousFirst =
      !looped.empty() && looped.front() == stmt.getIndices().back().name;
  emitBlockLoops(def, loc, looped, from, to, contiguousFirst, lowerer);
  const TensorBinding &lhs = *def.lookup(stmt.getLhs().name);
  ir::Value *value = lowerer.lowerValueAs(stmt.getRhs(), lhs.type);
  if (value)
    b.create<ir::StoreInst>(loc, value, lhs.memref,
                            lowerer.lowerLhsSubscripts(lhs));
  b.setInsertionPointToEnd(*after);
}
