//===- ConvAsGemm.cpp - Convolutions as gemm over strided views -----------===//
//
// A contraction of two tensors whose subscripts shift an output index by a
// reduction index, such as
//
//   O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)
//
// is, for fixed outer reduction indices (kh, kw) and batch indices (n, h),
// one matrix product over views of the operands, without an im2col copy:
//
//   O[n, :, h, :] (M x OW) += W1[:, :, kh, kw] (M x C) * I[n, :, h+kh,
//   kw:kw+OW] (C x OW)
//
// An outer reduction index may carry a constant coefficient, as the taps of
// a dilated convolution do (`I(n, c, t + 2 * k)`): it only moves the views.
// So may a batch index or a gemm index, as a strided convolution's output
// pixels do (`I(n, c, 2 * h + kh, 2 * w + kw)`): the view of I then steps
// by two along w (ConvEmitter::everyStep).
//
// The gemm's output columns `j` are the last LHS index (contiguous in O and,
// shifted, in I), its rows `i` an LHS index that only the other operand
// reads, and its reduction `k` a reduction index both operands read as is.
// The other LHS indices go on `group_id` (one group per point, at most
// three); the other reduction indices are a sequential loop around the gemm
// that accumulates into the group's output block (beta = 1), the first
// iteration overwriting it for `op=!` (beta = 0).
//
// A weight gradient, whose reduction no view spans, is first offered to
// ConvPanelGemm.cpp (gemms over a panel copied into local memory).
//
//===----------------------------------------------------------------------===//
#include "ConvAsGemm.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using namespace comprehend::tc::lowering::conv;

namespace {

/// Adds the index variable \p expr, times \p scale, to \p out.
bool collectTerm(const Expr &expr, int64_t scale, Subscript &out) {
  const auto *ident = llvm::dyn_cast<IdentExpr>(&expr);
  if (!ident || ident->getRef() != IdentExpr::Ref::Index || scale <= 0 ||
      out.contains(ident->getName()))
    return false;
  out.vars.push_back(ident->getName());
  out.scales.push_back(scale);
  return true;
}

bool collectSubscript(const Expr &expr, Subscript &out) {
  const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return collectTerm(expr, 1, out);
  if (binary->getOp() == BinaryOp::Mul) {
    const auto *lhs = llvm::dyn_cast<IntLitExpr>(&binary->getLhs());
    const auto *rhs = llvm::dyn_cast<IntLitExpr>(&binary->getRhs());
    if (lhs)
      return collectTerm(binary->getRhs(), lhs->getValue(), out);
    return rhs && collectTerm(binary->getLhs(), rhs->getValue(), out);
  }
  return binary->getOp() == BinaryOp::Add &&
         collectSubscript(binary->getLhs(), out) &&
         collectSubscript(binary->getRhs(), out) && out.vars.size() <= 2;
}

/// Flattens a product into literal factors and reads with sum subscripts.
bool collectFactors(const DefContext &def, const Expr &expr, double &alpha,
                    llvm::SmallVectorImpl<ConvRead> &reads) {
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr))
    return binary->getOp() == BinaryOp::Mul &&
           collectFactors(def, binary->getLhs(), alpha, reads) &&
           collectFactors(def, binary->getRhs(), alpha, reads);
  if (foldLiteralFactor(expr, alpha))
    return true;
  const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr);
  if (!apply || !apply->isTensorRead())
    return false;
  ConvRead read;
  read.tensor = apply->getCallee().name;
  read.binding = def.lookup(read.tensor);
  if (!read.binding)
    return false;
  for (const ExprPtr &arg : apply->getArgs())
    if (!collectSubscript(*arg, read.subscripts.emplace_back()))
      return false;
  reads.push_back(std::move(read));
  return true;
}

/// The statement's gemm: which index plays which part.
struct ConvForm {
  double alpha = 1;
  llvm::SmallVector<ConvRead, 2> reads;
  /// Index of the read holding `i` (P) and the one holding `j` (Q).
  unsigned p = 0, q = 1;
  llvm::StringRef i, j, k;
  llvm::SmallVector<llvm::StringRef, 3> batch;
  llvm::SmallVector<llvm::StringRef, 3> outer;
};

} // namespace

std::optional<ConvOperands> conv::matchOperands(const DefContext &def,
                                                const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  if (comp.getReduction() != ReductionKind::Add ||
      comp.getReductionVars().empty())
    return std::nullopt;
  if (llvm::any_of(comp.getWheres(), [](const WhereClause &where) {
        return where.getKind() != WhereClause::Kind::Range;
      }))
    return std::nullopt;
  const TensorBinding *lhs = def.lookup(comp.getLhs().name);
  if (!lhs || !isFloatingPoint(lhs->type) || comp.getIndices().size() < 2)
    return std::nullopt;
  ConvOperands operands;
  if (!collectFactors(def, comp.getRhs(), operands.alpha, operands.reads) ||
      operands.reads.size() != 2)
    return std::nullopt;
  for (const ConvRead &read : operands.reads)
    if (read.tensor == comp.getLhs().name || read.binding->type != lhs->type ||
        read.subscripts.size() != read.binding->shape.size())
      return std::nullopt;
  // The LHS covers its tensor exactly.
  for (unsigned d = 0; d < comp.getIndices().size(); ++d) {
    const Ident &index = comp.getIndices()[d];
    const IndexRange *range = stmt.lookup(index.name);
    if (!range || range->lo != lhs->lowerBounds[d] ||
        range->hi - range->lo != lhs->shape[d] ||
        llvm::is_contained(operands.lhsVars, index.name))
      return std::nullopt;
    operands.lhsVars.push_back(index.name);
  }
  return operands;
}

namespace {

/// Every subscript holds at most one of the gemm's indices, and each read
/// holds its two once.
bool coresOnce(const ConvForm &form) {
  auto isCore = [&](llvm::StringRef var) {
    return var == form.i || var == form.j || var == form.k;
  };
  for (const ConvRead &read : form.reads) {
    unsigned cores = 0;
    for (const Subscript &subscript : read.subscripts) {
      unsigned count = llvm::count_if(subscript.vars, isCore);
      if (count > 1)
        return false;
      cores += count;
    }
    if (cores != 2)
      return false;
  }
  return true;
}

/// The form with output columns \p j and reduction \p k (empty: the first
/// reduction index both reads hold as a whole subscript).
std::optional<ConvForm> assignRoles(const ComprehensionStmt &comp,
                                    const ConvOperands &operands,
                                    llvm::StringRef j, llvm::StringRef k) {
  ConvForm form;
  form.alpha = operands.alpha;
  form.reads = operands.reads;
  form.j = j;
  form.q = form.reads[0].uses(form.j) ? 0 : 1;
  form.p = 1 - form.q;
  const ConvRead &p = form.reads[form.p], &q = form.reads[form.q];
  if (!q.uses(form.j) || p.uses(form.j))
    return std::nullopt;
  for (llvm::StringRef var : operands.lhsVars)
    if (var != j && p.usesPlain(var) && !q.uses(var))
      form.i = var;
  for (llvm::StringRef var : comp.getReductionVars())
    if (form.k.empty() && (k.empty() ? p.usesPlain(var) && q.usesPlain(var)
                                     : var == k && p.uses(var) && q.uses(var)))
      form.k = var;
  if (form.i.empty() || form.k.empty())
    return std::nullopt;
  for (llvm::StringRef var : operands.lhsVars)
    if (var != form.i && var != j)
      form.batch.push_back(var);
  for (llvm::StringRef var : comp.getReductionVars())
    if (var != form.k)
      form.outer.push_back(var);
  // A shift is what makes it a convolution; a plain product is lowerAsBlas'.
  if (!q.isShifted() || form.batch.size() > 3 || !coresOnce(form))
    return std::nullopt;
  return form;
}

/// The form with the last LHS index as columns and a reduction both reads
/// hold whole; where that has none, or one too short to pay off (unless
/// \p force), the largest gemm over any columns and reduction. A weight
/// gradient, `d_W1(m, c, kh, kw) +=! d_O(n, m, h, w) * I(n, c, h + kh, w +
/// kw)`, has only the batch n whole in both; its gemm is (m x c) over h
/// (on CPUs the panel of ConvPanelGemm.cpp takes it first).
std::optional<ConvForm> match(const StmtContext &stmt,
                              const ConvOperands &operands, bool force) {
  const ComprehensionStmt &comp = stmt.stmt;
  std::optional<ConvForm> form =
      assignRoles(comp, operands, operands.lhsVars.back(), "");
  if (form && (force || extentOf(stmt, form->k) >= kMinConvGemmReduction))
    return form;
  std::optional<ConvForm> best;
  int64_t bestSize = 0;
  for (llvm::StringRef j : operands.lhsVars)
    for (llvm::StringRef k : comp.getReductionVars()) {
      std::optional<ConvForm> candidate = assignRoles(comp, operands, j, k);
      if (!candidate || extentOf(stmt, k) < kMinConvGemmReduction)
        continue;
      int64_t size =
          extentOf(stmt, candidate->i) * extentOf(stmt, j) * extentOf(stmt, k);
      if (size >= bestSize)
        best = candidate, bestSize = size;
    }
  return best;
}

/// Emits the subviews and gemms of one matched statement.
class ConvEmitter {
public:
  ConvEmitter(DefContext &def, const StmtContext &stmt, const ConvForm &form)
      : def(def), stmt(stmt), form(form), b(def.builder),
        loc(stmt.stmt.getLoc()) {}

  /// The gemms, then \p epilogue (if any) over the group's block.
  void emit(const StmtContext *epilogue);

private:
  ir::Value *index(int64_t value) { return b.createIndexConstant(loc, value); }
  ir::Value *add(ir::Value *lhs, ir::Value *rhs) {
    return b.create<ir::AddInst>(loc, lhs, rhs)->getResult(0);
  }
  ir::Value *add(ir::Value *lhs, int64_t rhs) {
    return rhs == 0 ? lhs : add(lhs, index(rhs));
  }
  /// The view of \p tensor, subscripted by \p subscripts, on which the
  /// gemm's indices range and every other index is fixed at its value.
  ir::Value *view(const TensorBinding &tensor,
                  llvm::ArrayRef<Subscript> subscripts);
  /// \p view with its mode \p mode, of step x n points, narrowed to every
  /// \p step-th point from the first: expanded into (step, n) with the
  /// first of the step kept. The spec's subview has no step; its last
  /// step - 1 points lie past what the gemm reads.
  ir::Value *everyStep(ir::Value *view, unsigned mode, int64_t step);
  /// Whether the TC dimensions holding \p first and \p second come in that
  /// order.
  static bool inOrder(llvm::ArrayRef<Subscript> subscripts,
                      llvm::StringRef first, llvm::StringRef second);
  void emitGemm(double beta);

  DefContext &def;
  const StmtContext &stmt;
  const ConvForm &form;
  ir::Builder &b;
  Location loc;
  /// The values of the batch and outer indices.
  llvm::StringMap<ir::Value *> values;
};

} // namespace

ir::Value *ConvEmitter::view(const TensorBinding &tensor,
                             llvm::ArrayRef<Subscript> subscripts) {
  ir::Context &ctx = b.getContext();
  const auto *type = llvm::cast<ir::MemRefType>(tensor.memref->getType());
  unsigned order = type->getOrder();
  llvm::SmallVector<int64_t, 4> staticOffsets(order, ir::kDynamic),
      staticSizes(order), shape, stride;
  llvm::SmallVector<ir::Value *, 4> offsets;
  llvm::SmallVector<std::pair<unsigned, int64_t>, 2> steps; // (mode, step)
  for (unsigned mode = 0; mode < order; ++mode) {
    unsigned dim = order - 1 - mode;
    const Subscript &subscript = subscripts[dim];
    // offset = the fixed part of the subscript + the gemm index's start,
    // relative to where the tensor's storage starts.
    int64_t start = -tensor.lowerBounds[dim];
    ir::Value *offset = nullptr;
    int64_t extent = 0, step = 1;
    for (auto [var, scale] : llvm::zip(subscript.vars, subscript.scales)) {
      if (var == form.i || var == form.j || var == form.k) {
        const IndexRange *range = stmt.lookup(var);
        start += scale * range->lo;
        extent = range->hi - range->lo;
        step = scale;
        continue;
      }
      ir::Value *term = values.lookup(var);
      if (scale != 1)
        term = b.create<ir::MulInst>(loc, term, index(scale))->getResult(0);
      offset = offset ? add(offset, term) : term;
    }
    offset = offset ? add(offset, start) : index(start);
    offsets.push_back(offset);
    // A gemm index with a coefficient (a strided convolution's `2 * w +
    // kw`) first spans step x extent points, narrowed below.
    staticSizes[mode] = step * extent;
    if (extent == 0)
      continue;
    if (step > 1)
      steps.push_back({unsigned(shape.size()), step});
    shape.push_back(step * extent);
    stride.push_back(type->getStride(mode));
  }
  const auto *resultType =
      ir::MemRefType::get(ctx, type->getElementKind(), shape, stride);
  ir::Value *result =
      b.create<ir::SubviewInst>(loc, resultType, tensor.memref, offsets,
                                llvm::ArrayRef<ir::Value *>{}, staticOffsets,
                                staticSizes)
          ->getResult(0);
  for (auto [mode, step] : steps)
    result = everyStep(result, mode, step);
  return result;
}

ir::Value *ConvEmitter::everyStep(ir::Value *view, unsigned mode,
                                  int64_t step) {
  ir::Context &ctx = b.getContext();
  const auto *type = llvm::cast<ir::MemRefType>(view->getType());
  int64_t points = type->getShape(mode) / step;
  llvm::SmallVector<int64_t, 5> shape(type->getShape().begin(),
                                      type->getShape().end()),
      stride(type->getStride().begin(), type->getStride().end());
  shape[mode] = step;
  shape.insert(shape.begin() + mode + 1, points);
  stride.insert(stride.begin() + mode + 1, step * stride[mode]);
  const auto *expandedType = ir::MemRefType::get(
      ctx, type->getElementKind(), shape, stride, type->getAddressSpace());
  ir::Value *expanded =
      b.create<ir::ExpandInst>(loc, expandedType, view,
                               llvm::ArrayRef<ir::Value *>{}, mode,
                               llvm::ArrayRef<int64_t>{step, points})
          .getResult();
  // The first of each step's points: mode `mode` at 0, removed.
  llvm::SmallVector<int64_t, 5> offsets(shape.size(), 0), sizes(shape);
  sizes[mode] = 0;
  shape.erase(shape.begin() + mode);
  stride.erase(stride.begin() + mode);
  const auto *resultType = ir::MemRefType::get(
      ctx, type->getElementKind(), shape, stride, type->getAddressSpace());
  return b
      .create<ir::SubviewInst>(loc, resultType, expanded,
                               llvm::ArrayRef<ir::Value *>{},
                               llvm::ArrayRef<ir::Value *>{}, offsets, sizes)
      ->getResult(0);
}

bool ConvEmitter::inOrder(llvm::ArrayRef<Subscript> subscripts,
                          llvm::StringRef first, llvm::StringRef second) {
  auto position = [&](llvm::StringRef var) {
    return llvm::find_if(subscripts,
                         [&](const Subscript &subscript) {
                           return subscript.contains(var);
                         }) -
           subscripts.begin();
  };
  return position(first) < position(second);
}

void ConvEmitter::emitGemm(double beta) {
  const ComprehensionStmt &comp = stmt.stmt;
  const TensorBinding *lhs = def.lookup(comp.getLhs().name);
  llvm::SmallVector<Subscript, 4> lhsSubscripts;
  for (const Ident &index : comp.getIndices())
    lhsSubscripts.push_back({{index.name}, {1}});
  const ConvRead &p = form.reads[form.p], &q = form.reads[form.q];
  // Column-major C' (J x I) = op(Q') (J x K) * op(P') (K x I), as in
  // BlasPatterns.cpp: Q(k, j) and P(i, k) need no transpose. Where the LHS
  // holds j before i (a weight gradient's `d_W1_t(c, kh, kw, m)` with m the
  // rows), C' is (I x J) = op(P') (I x K) * op(Q') (K x J) instead: the
  // first operand is the read holding C's mode 0, the LHS's later index.
  ir::Value *c = view(*lhs, lhsSubscripts);
  ir::Value *qView = view(*q.binding, q.subscripts);
  ir::Value *pView = view(*p.binding, p.subscripts);
  bool jLast = inOrder(lhsSubscripts, form.i, form.j);
  llvm::StringRef rows = jLast ? form.j : form.i,
                  cols = jLast ? form.i : form.j;
  const ConvRead &first = jLast ? q : p, &second = jLast ? p : q;
  auto transpose = [](bool inOrder) {
    return inOrder ? ir::Transpose::N : ir::Transpose::T;
  };
  const ir::Type *elementType = getIrType(b.getContext(), lhs->type);
  ir::Value *alphaValue = b.createConstant(loc, form.alpha, elementType);
  ir::Value *betaValue = b.createConstant(loc, beta, elementType);
  b.create<ir::GemmInst>(loc, alphaValue, jLast ? qView : pView,
                         jLast ? pView : qView, betaValue, c,
                         /*atomic=*/false,
                         transpose(inOrder(first.subscripts, form.k, rows)),
                         transpose(inOrder(second.subscripts, cols, form.k)));
}

void ConvEmitter::emit(const StmtContext *epilogue) {
  for (unsigned axis = 0; axis < form.batch.size(); ++axis) {
    llvm::StringRef var = form.batch[axis];
    const IndexRange *range = stmt.lookup(var);
    ir::Value *group =
        b.create<ir::GroupIdInst>(loc, static_cast<ir::Comp3>(axis))
            ->getResult(0);
    values[var] = add(group, range->lo);
    def.grid[axis] = range->hi - range->lo;
  }
  int64_t points = 1;
  for (llvm::StringRef var : form.outer) {
    const IndexRange *range = stmt.lookup(var);
    points *= range->hi - range->lo;
  }
  // Binds the outer indices to the point \p r of their flattened range
  // (the last index fastest).
  auto bindOuter = [&](ir::Value *r) {
    for (llvm::StringRef var : llvm::reverse(form.outer)) {
      const IndexRange *range = stmt.lookup(var);
      int64_t extent = range->hi - range->lo;
      ir::Value *rest =
          b.create<ir::RemInst>(loc, r, index(extent))->getResult(0);
      values[var] = add(rest, range->lo);
      r = b.create<ir::DivInst>(loc, r, index(extent))->getResult(0);
    }
  };
  emitAccumulation(b, loc, points, stmt.stmt.hasInit(),
                   [&](ir::Value *point, double beta) {
                     bindOuter(point);
                     emitGemm(beta);
                   });
  if (!epilogue)
    return;
  // The group's block: its batch indices fixed, the gemm's rows and
  // columns whole.
  GroupBlock block;
  for (llvm::StringRef var : form.batch)
    block.fixed[var] = values.lookup(var);
  emitGemmEpilogue(def, *epilogue, block);
}

void conv::emitAccumulation(
    ir::Builder &b, Location loc, int64_t points, bool overwrite,
    llvm::function_ref<void(ir::Value *, double)> body) {
  int64_t first = 0;
  if (overwrite) {
    body(b.createIndexConstant(loc, 0), 0.0);
    first = 1;
  }
  if (first >= points)
    return;
  auto loop = b.create<ir::ForInst>(loc, b.createIndexConstant(loc, first),
                                    b.createIndexConstant(loc, points), nullptr,
                                    llvm::ArrayRef<ir::Value *>{});
  ir::Region *after = b.getInsertionRegion();
  b.setInsertionPointToEnd(loop.getBody());
  body(loop.getBody().getParameter(0), 1.0);
  b.setInsertionPointToEnd(*after);
}

bool lowering::lowerAsConvGemm(DefContext &def, const StmtContext &stmt,
                               bool dryRun, bool force,
                               const StmtContext *epilogue) {
  std::optional<ConvOperands> operands = matchOperands(def, stmt);
  if (operands && lowerAsPanelGemm(def, stmt, *operands, dryRun)) {
    assert(!epilogue && "panel gemms take no epilogue");
    return true;
  }
  std::optional<ConvForm> form =
      operands ? match(stmt, *operands, force) : std::nullopt;
  if (!form || dryRun)
    return bool(form);
  ConvEmitter(def, stmt, *form).emit(epilogue);
  return true;
}

bool lowering::convGemmTakesEpilogue(DefContext &def, const StmtContext &stmt) {
  std::optional<ConvOperands> operands = matchOperands(def, stmt);
  return operands && !lowerAsPanelGemm(def, stmt, *operands, /*dryRun=*/true) &&
         match(stmt, *operands, /*force=*/true);
}
