//===- ConvPanelGemm.cpp - A weight gradient as gemms over a copied panel -===//
//
// A convolution's weight gradient,
//
//   d_W1(m, c, kh, kw) +=! d_O(n, m, h, w) * I(n, c, h + kh, w + kw)
//
// reduces over n, h and w, which no view of I spans with one stride: a gemm
// over views of the operands (ConvAsGemm.cpp) can only take w, or n, as its
// reduction, and runs thousands of tiny products that load and store their
// block of d_W1 each time. Here each work-group copies a block of the
// reduction of I into a local-memory panel, rows (c, kh, kw) in d_W1's
// order, columns a block of (h, w) in d_O's order, and runs one gemm per
// block into d_W1 viewed as a (c, kh, kw) x m matrix:
//
//   d_W1' (C*KH*KW x M) += panel (C*KH*KW x hb*W_out) * d_O[n, :, h0:h0+hb, :]'
//
// d_O's (h, w) are contiguous, so its block is one fused mode; the panel's
// columns follow it. The row block of each work-group is a slice of the
// panel's rows (group_id.x); blocks of (n, h) run in a loop, the first one
// overwriting the output for `+=!` (beta = 0).
//
// Form: a `+=` product of a read P whose subscripts are the LHS's first
// index `i` and every reduction index, each plainly (d_O), and a shifted
// read Q holding the other LHS indices (the rows) and any reduction
// indices, in any affine sums (I). Leading LHS indices both reads hold
// plainly (a grouped convolution's g) are batch indices: one work-group
// per point, `i` the next LHS index. Q's subscripts are evaluated point by
// point in the copy, so strided and dilated reads are taken as well.
//
//===----------------------------------------------------------------------===//
#include "ConvAsGemm.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using namespace comprehend::tc::lowering::conv;

namespace {

/// The panel a work-group's block of rows takes at most: an L1 data cache
/// (32 KiB on the cores measured), which the gemm reads right after the
/// copy wrote it. conv2d's weight gradient at N = 4, C = M = 16, 32x32, 3x3
/// (72 rows per group) ran in 0.19-0.22 ms with panels of 3 rows of h (90
/// columns, 25 KiB), 0.25-0.27 ms with 6 rows (51 KiB), 0.30 ms with one.
constexpr int64_t kPanelBytes = 32 * 1024;
/// One column of the panel may take at most this much: a quarter of the
/// local memory the pocl-cpu preset assumes (256 KiB), which the backend's
/// copy of a gemm operand may share.
constexpr int64_t kMaxColumnBytes = 64 * 1024;
/// Problems with fewer multiply-adds than this keep all rows in one group
/// (BlasPatterns.cpp's rule for splitting a gemm's output).
constexpr int64_t kMinSplitWork = int64_t(1) << 21;
/// Row blocks of fewer rows than this leave the gemm's vectors half empty.
constexpr int64_t kMinRowBlock = 8;
/// The largest row block on a GPU (chooseGpuRowBlock).
constexpr int64_t kGpuRowBlock = 64;

struct PanelForm {
  /// Indices into ConvOperands::reads: the plain read P and the shifted Q.
  unsigned p = 0, q = 1;
  /// Leading LHS indices both reads hold plainly (a grouped convolution's
  /// g): one work-group per point, on the group axes after the rows'.
  llvm::SmallVector<llvm::StringRef, 2> batch;
  llvm::StringRef i;
  /// The other LHS indices, in TC order: the panel's rows (last fastest).
  llvm::SmallVector<llvm::StringRef, 4> rows;
  /// P's trailing reduction indices (TC order): the panel's columns, the
  /// first one in blocks of `firstBlock`.
  llvm::SmallVector<llvm::StringRef, 4> inner;
  /// The other reduction indices: a loop around the gemms.
  llvm::SmallVector<llvm::StringRef, 4> outer;
  int64_t numRows = 1, rowBlock = 1, firstBlock = 1, numCols = 1;
};

/// Whether P reads exactly the batch indices, the index `i` and every
/// reduction index, each as a whole subscript over its whole dimension, and
/// Q not `i`.
bool readsPlainly(const StmtContext &stmt, const ConvRead &p, const ConvRead &q,
                  const PanelForm &form) {
  const ComprehensionStmt &comp = stmt.stmt;
  if (p.subscripts.size() !=
          form.batch.size() + 1 + comp.getReductionVars().size() ||
      !p.usesPlain(form.i) || q.uses(form.i) || !q.isShifted())
    return false;
  for (unsigned d = 0; d < p.subscripts.size(); ++d) {
    const Subscript &subscript = p.subscripts[d];
    if (subscript.vars.size() != 1 || subscript.scales[0] != 1)
      return false;
    const IndexRange *range = stmt.lookup(subscript.vars[0]);
    if (range->lo != p.binding->lowerBounds[d] ||
        range->hi - range->lo != p.binding->shape[d])
      return false;
  }
  return llvm::all_of(comp.getReductionVars(),
                      [&](llvm::StringRef var) { return p.usesPlain(var); });
}

/// The largest divisor of \p extent no greater than \p most (at least 1).
int64_t largestDivisor(int64_t extent, int64_t most) {
  for (int64_t divisor = std::min(extent, most); divisor > 1; --divisor)
    if (extent % divisor == 0)
      return divisor;
  return 1;
}

/// Splits the rows among work-groups where the problem is large enough:
/// two or more groups of equal rows, each at most 256.
int64_t chooseRowBlock(int64_t numRows, int64_t work) {
  if (work < kMinSplitWork)
    return numRows;
  int64_t groups = std::max<int64_t>(2, (numRows + 255) / 256);
  for (; groups <= numRows; ++groups)
    if (numRows % groups == 0)
      break;
  int64_t block = numRows / groups;
  return block >= kMinRowBlock ? block : numRows;
}

/// On a GPU: blocks of at most kGpuRowBlock rows, two warps' rows of the
/// gemm's register tile, so that the rows give several groups per image.
int64_t chooseGpuRowBlock(int64_t numRows) {
  int64_t block = largestDivisor(numRows, kGpuRowBlock);
  return block >= kMinRowBlock ? block : numRows;
}

/// The bytes of one column of the panel (one point of the first inner
/// index): the rows times the other inner indices' extents.
int64_t columnBytes(const StmtContext &stmt, const PanelForm &form,
                    int64_t elementBytes) {
  int64_t bytes = form.rowBlock * elementBytes;
  for (llvm::StringRef var : llvm::drop_begin(form.inner))
    bytes *= extentOf(stmt, var);
  return bytes;
}

/// Sizes the panel, moving leading inner indices to the loop while a column
/// block exceeds kPanelBytes; false where one column exceeds
/// kMaxColumnBytes.
bool sizePanel(const StmtContext &stmt, const TensorBinding &lhs,
               PanelForm &form, bool gpu) {
  int64_t work = extentOf(stmt, form.i);
  for (llvm::StringRef var : stmt.stmt.getReductionVars())
    work *= extentOf(stmt, var);
  for (llvm::StringRef var : form.rows)
    form.numRows *= extentOf(stmt, var);
  form.rowBlock = gpu ? chooseGpuRowBlock(form.numRows)
                      : chooseRowBlock(form.numRows, work * form.numRows);
  int64_t elementBytes = ir::getSizeInBytes(lhs.kind);
  while (form.inner.size() > 1 &&
         columnBytes(stmt, form, elementBytes) > kPanelBytes) {
    form.outer.push_back(form.inner.front());
    form.inner.erase(form.inner.begin());
  }
  int64_t bytes = columnBytes(stmt, form, elementBytes);
  if (bytes > kMaxColumnBytes)
    return false;
  form.firstBlock = largestDivisor(extentOf(stmt, form.inner.front()),
                                   std::max<int64_t>(1, kPanelBytes / bytes));
  form.numCols = bytes / (form.rowBlock * elementBytes) * form.firstBlock;
  return true;
}

std::optional<PanelForm> matchPanel(const DefContext &def,
                                    const StmtContext &stmt,
                                    const ConvOperands &operands) {
  // On a CPU the copy gives each work-item a row of the panel, its loop on
  // the core's vector lanes, and the panel lives in the caches. A GPU takes
  // the form only with a batch index, whose points spread the work over its
  // multiprocessors (the per-image partial sums of SplitBatchReductions.cpp).
  bool gpu = def.gemmRowsPerLane;
  if (!def.contiguousPartials && !gpu)
    return std::nullopt;
  PanelForm form;
  form.p = operands.reads[0].isShifted() ? 1 : 0;
  form.q = 1 - form.p;
  const ConvRead &p = operands.reads[form.p], &q = operands.reads[form.q];
  llvm::ArrayRef<llvm::StringRef> lhsVars = operands.lhsVars;
  while (form.batch.size() + 2 < lhsVars.size() &&
         p.usesPlain(lhsVars[form.batch.size()]) &&
         q.usesPlain(lhsVars[form.batch.size()]))
    form.batch.push_back(lhsVars[form.batch.size()]);
  form.i = lhsVars[form.batch.size()];
  form.rows.assign(lhsVars.begin() + form.batch.size() + 1, lhsVars.end());
  if (form.batch.size() > 2 || (gpu && form.batch.empty()) ||
      !readsPlainly(stmt, p, q, form))
    return std::nullopt;
  auto reductions = stmt.stmt.getReductionVars();
  for (const Subscript &subscript : llvm::reverse(p.subscripts)) {
    if (!llvm::is_contained(reductions, subscript.vars[0]))
      break;
    form.inner.insert(form.inner.begin(), subscript.vars[0]);
  }
  for (llvm::StringRef var : stmt.stmt.getReductionVars())
    if (!llvm::is_contained(form.inner, var))
      form.outer.push_back(var);
  const TensorBinding &lhs = *def.lookup(stmt.stmt.getLhs().name);
  if (form.inner.empty() || !sizePanel(stmt, lhs, form, gpu))
    return std::nullopt;
  return form;
}

/// Emits the panel copy and the gemms of one matched statement.
class PanelEmitter {
public:
  PanelEmitter(DefContext &def, const StmtContext &stmt,
               const ConvOperands &operands, const PanelForm &form)
      : def(def), stmt(stmt), form(form), p(operands.reads[form.p]),
        q(operands.reads[form.q]), lhs(*def.lookup(stmt.stmt.getLhs().name)),
        alpha(operands.alpha), b(def.builder), loc(stmt.stmt.getLoc()) {}

  void emit();

private:
  ir::Value *index(int64_t value) { return b.createIndexConstant(loc, value); }
  ir::Value *binary(ir::InstKind kind, ir::Value *x, ir::Value *y) {
    return b.createBinary(loc, kind, x, y);
  }
  ir::Value *add(ir::Value *x, int64_t y) {
    return y == 0 ? x : binary(ir::InstKind::Add, x, index(y));
  }
  /// Binds \p vars (last fastest, each from its range's start) to the
  /// point \p linear of their flattened range.
  void bindFlat(llvm::ArrayRef<llvm::StringRef> vars, ir::Value *linear);
  /// The LHS at the group's batch point (rank-reducing), or the whole LHS.
  ir::Value *lhsAtBatch();
  /// d_W1 as a (rows x i) matrix, the group's rows of it.
  ir::Value *outputMatrix(ir::Value *rowStart);
  /// P's block at the bound outer indices, as a (columns x i) matrix.
  ir::Value *blockMatrix(ir::Value *firstStart);
  void emitCopy(ir::Value *panel, ir::Value *rowStart, ir::Value *firstStart);
  /// One block: the copy, then the gemm with \p beta.
  void emitBlock(ir::Value *block, ir::Value *panel, ir::Value *rowStart,
                 ir::Value *c, double beta);

  DefContext &def;
  const StmtContext &stmt;
  const PanelForm &form;
  const ConvRead &p, &q;
  const TensorBinding &lhs;
  double alpha;
  ir::Builder &b;
  Location loc;
  llvm::StringMap<ir::Value *> values;
};

} // namespace

void PanelEmitter::bindFlat(llvm::ArrayRef<llvm::StringRef> vars,
                            ir::Value *linear) {
  for (unsigned n = vars.size(); n-- > 0;) {
    const IndexRange *range = stmt.lookup(vars[n]);
    int64_t extent = range->hi - range->lo;
    ir::Value *point =
        n == 0 ? linear : binary(ir::InstKind::Rem, linear, index(extent));
    values[vars[n]] = add(point, range->lo);
    if (n > 0)
      linear = binary(ir::InstKind::Div, linear, index(extent));
  }
}

ir::Value *PanelEmitter::lhsAtBatch() {
  if (form.batch.empty())
    return lhs.memref;
  const auto *type = llvm::cast<ir::MemRefType>(lhs.memref->getType());
  unsigned order = type->getOrder(), kept = order - form.batch.size();
  llvm::SmallVector<int64_t, 4> staticOffsets(order, 0), staticSizes(order);
  llvm::SmallVector<int64_t, 4> shape, stride;
  llvm::SmallVector<ir::Value *, 2> offsets;
  for (unsigned mode = 0; mode < order; ++mode) {
    if (mode < kept) {
      staticSizes[mode] = type->getShape(mode);
      shape.push_back(type->getShape(mode));
      stride.push_back(type->getStride(mode));
      continue;
    }
    // The batch indices are the leading TC dimensions: the last modes.
    unsigned dim = order - 1 - mode;
    staticOffsets[mode] = ir::kDynamic;
    offsets.push_back(add(values[form.batch[dim]], -lhs.lowerBounds[dim]));
  }
  const auto *viewType = ir::MemRefType::get(
      b.getContext(), type->getElementKind(), shape, stride);
  return b
      .create<ir::SubviewInst>(loc, viewType, lhs.memref, offsets,
                               llvm::ArrayRef<ir::Value *>{}, staticOffsets,
                               staticSizes)
      ->getResult(0);
}

ir::Value *PanelEmitter::outputMatrix(ir::Value *rowStart) {
  ir::Context &ctx = b.getContext();
  ir::Value *matrix = lhsAtBatch();
  const auto *type = llvm::cast<ir::MemRefType>(matrix->getType());
  unsigned fused = form.rows.size();
  int64_t columns = type->getShape(fused),
          columnStride = type->getStride(fused);
  if (fused > 1) {
    const auto *fusedType = ir::MemRefType::get(
        ctx, type->getElementKind(), {form.numRows, columns},
        {type->getStride(0), columnStride});
    matrix = b.create<ir::FuseInst>(loc, fusedType, matrix, 0, fused - 1)
                 ->getResult(0);
  }
  if (form.rowBlock == form.numRows)
    return matrix;
  const auto *blockType =
      ir::MemRefType::get(ctx, type->getElementKind(), {form.rowBlock, columns},
                          {type->getStride(0), columnStride});
  return b
      .create<ir::SubviewInst>(loc, blockType, matrix,
                               llvm::ArrayRef<ir::Value *>{rowStart},
                               llvm::ArrayRef<ir::Value *>{},
                               llvm::ArrayRef<int64_t>{ir::kDynamic, 0},
                               llvm::ArrayRef<int64_t>{form.rowBlock, columns})
      ->getResult(0);
}

ir::Value *PanelEmitter::blockMatrix(ir::Value *firstStart) {
  ir::Context &ctx = b.getContext();
  const auto *type = llvm::cast<ir::MemRefType>(p.binding->memref->getType());
  unsigned order = type->getOrder();
  llvm::SmallVector<int64_t, 4> staticOffsets(order, 0), staticSizes(order);
  llvm::SmallVector<ir::Value *, 4> offsets;
  llvm::SmallVector<int64_t, 4> shape, stride;
  for (unsigned mode = 0; mode < order; ++mode) {
    unsigned dim = order - 1 - mode;
    llvm::StringRef var = p.subscripts[dim].vars[0];
    int64_t extent = type->getShape(mode);
    if (llvm::is_contained(form.outer, var) ||
        llvm::is_contained(form.batch, var) || var == form.inner.front()) {
      // Storage offset: the index less the dimension's lower bound.
      ir::Value *at = var == form.inner.front() ? firstStart : values[var];
      offsets.push_back(add(at, -p.binding->lowerBounds[dim]));
      staticOffsets[mode] = ir::kDynamic;
      extent = var == form.inner.front() ? form.firstBlock : 0;
    }
    staticSizes[mode] = extent;
    if (extent == 0)
      continue;
    shape.push_back(extent);
    stride.push_back(type->getStride(mode));
  }
  ir::Value *view =
      b.create<ir::SubviewInst>(
           loc, ir::MemRefType::get(ctx, type->getElementKind(), shape, stride),
           p.binding->memref, offsets, llvm::ArrayRef<ir::Value *>{},
           staticOffsets, staticSizes)
          ->getResult(0);
  unsigned fused = form.inner.size();
  if (fused == 1)
    return view;
  const auto *fusedType = ir::MemRefType::get(ctx, type->getElementKind(),
                                              {form.numCols, shape[fused]},
                                              {stride[0], stride[fused]});
  return b.create<ir::FuseInst>(loc, fusedType, view, 0, fused - 1)
      ->getResult(0);
}

void PanelEmitter::emitCopy(ir::Value *panel, ir::Value *rowStart,
                            ir::Value *firstStart) {
  // A dimension per column index, so that no column is delinearised.
  llvm::SmallVector<ir::Value *, 4> from = {index(0)},
                                    to = {index(form.rowBlock)};
  for (llvm::StringRef var : form.inner) {
    from.push_back(index(0));
    to.push_back(index(var == form.inner.front() ? form.firstBlock
                                                 : extentOf(stmt, var)));
  }
  auto foreach = b.create<ir::ForeachInst>(loc, from, to);
  ir::Region *after = b.getInsertionRegion();
  b.setInsertionPointToEnd(foreach.getBody());
  ir::Value *row = foreach.getBody().getParameter(0);
  bindFlat(form.rows,
           rowStart ? binary(ir::InstKind::Add, rowStart, row) : row);
  ir::Value *column = nullptr;
  for (unsigned n = 0; n < form.inner.size(); ++n) {
    llvm::StringRef var = form.inner[n];
    ir::Value *point = foreach.getBody().getParameter(n + 1);
    values[var] = n == 0 ? binary(ir::InstKind::Add, point, firstStart)
                         : add(point, stmt.lookup(var)->lo);
    column = n == 0 ? point
                    : binary(ir::InstKind::Add,
                             binary(ir::InstKind::Mul, column,
                                    index(extentOf(stmt, var))),
                             point);
  }
  // Q's subscripts at the point, less the lower bounds, in memref order.
  llvm::SmallVector<ir::Value *, 4> subscripts;
  for (unsigned d = q.subscripts.size(); d-- > 0;) {
    const Subscript &subscript = q.subscripts[d];
    ir::Value *sum = nullptr;
    for (auto [var, scale] : llvm::zip(subscript.vars, subscript.scales)) {
      ir::Value *term = values[var];
      if (scale != 1)
        term = binary(ir::InstKind::Mul, term, index(scale));
      sum = sum ? binary(ir::InstKind::Add, sum, term) : term;
    }
    subscripts.push_back(add(sum, -q.binding->lowerBounds[d]));
  }
  ir::Value *value =
      b.create<ir::LoadInst>(loc, q.binding->memref, subscripts)->getResult(0);
  b.create<ir::StoreInst>(loc, value, panel,
                          llvm::ArrayRef<ir::Value *>{row, column});
  b.setInsertionPointToEnd(*after);
}

void PanelEmitter::emitBlock(ir::Value *block, ir::Value *panel,
                             ir::Value *rowStart, ir::Value *c, double beta) {
  // block = (outer point) * blocksOfFirst + (block of the first inner index)
  int64_t blocksOfFirst = extentOf(stmt, form.inner.front()) / form.firstBlock;
  ir::Value *firstStart =
      add(binary(ir::InstKind::Mul,
                 binary(ir::InstKind::Rem, block, index(blocksOfFirst)),
                 index(form.firstBlock)),
          stmt.lookup(form.inner.front())->lo);
  if (!form.outer.empty())
    bindFlat(form.outer,
             binary(ir::InstKind::Div, block, index(blocksOfFirst)));
  emitCopy(panel, rowStart, firstStart);
  const ir::Type *elementType = getIrType(b.getContext(), lhs.type);
  b.create<ir::GemmInst>(loc, b.createConstant(loc, alpha, elementType), panel,
                         blockMatrix(firstStart),
                         b.createConstant(loc, beta, elementType), c,
                         /*atomic=*/false, ir::Transpose::N, ir::Transpose::N);
}

void PanelEmitter::emit() {
  ir::Value *rowStart = nullptr;
  unsigned axis = 0;
  auto groupId = [&](int64_t groups) {
    def.grid[axis] = groups;
    return b.create<ir::GroupIdInst>(loc, static_cast<ir::Comp3>(axis++))
        ->getResult(0);
  };
  if (form.rowBlock < form.numRows)
    rowStart = binary(ir::InstKind::Mul, groupId(form.numRows / form.rowBlock),
                      index(form.rowBlock));
  for (llvm::StringRef var : form.batch)
    values[var] = add(groupId(extentOf(stmt, var)), stmt.lookup(var)->lo);
  ir::Value *c = outputMatrix(rowStart);
  const auto *panelType = ir::MemRefType::get(b.getContext(), lhs.kind,
                                              {form.rowBlock, form.numCols}, {},
                                              ir::AddressSpace::Local);
  ir::Value *panel =
      b.create<ir::AllocaInst>(loc, panelType, nullptr)->getResult(0);
  int64_t blocks = extentOf(stmt, form.inner.front()) / form.firstBlock;
  for (llvm::StringRef var : form.outer)
    blocks *= extentOf(stmt, var);
  emitAccumulation(b, loc, blocks, stmt.stmt.hasInit(),
                   [&](ir::Value *block, double beta) {
                     emitBlock(block, panel, rowStart, c, beta);
                   });
}

bool conv::lowerAsPanelGemm(DefContext &def, const StmtContext &stmt,
                            const ConvOperands &operands, bool dryRun) {
  std::optional<PanelForm> form = matchPanel(def, stmt, operands);
  if (!form || dryRun)
    return bool(form);
  PanelEmitter(def, stmt, operands, *form).emit();
  return true;
}

std::optional<conv::PanelRoles>
conv::matchPanelRoles(const DefContext &def, const StmtContext &stmt,
                      const ConvOperands &operands) {
  std::optional<PanelForm> form = matchPanel(def, stmt, operands);
  if (!form)
    return std::nullopt;
  return PanelRoles{form->p, form->i};
}
