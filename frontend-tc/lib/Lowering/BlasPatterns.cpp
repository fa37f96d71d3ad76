//===- BlasPatterns.cpp - Statements as one collective BLAS instruction ---===//
//
// A statement `C(b.., i..) op=[!] [alpha *] X(..) [* Y(..)]` whose reads are
// subscripted by plain index variables over whole tensors is one of
//
//   C(i, j) +=  A(i, k) * B(k, j)   gemm  (any operand order / transposes)
//   C(i)    +=  A(i, k) * x(k)      gemv
//   C(i, j)  =  x(i) * y(j)         ger
//   C(i)    +=  A(i, k)             sum   (also C() += x(k))
//   C(i, j)  =  A(i, j) * B(i, j)   hadamard
//   C(i, j)  =  A(j, i)             axpby (scaled copy, possibly transposed)
//
// after removing batch indices: leading LHS indices that every read uses.
// Batch indices go on group_id.x/y/z (one launch over the batch) and every
// operand is a rank-reducing subview at the group's coordinates.
//
// Layout: TC is row-major and memrefs column-major, so a TC matrix A(i, k)
// is the memref A' = A^T (shape K x I). Row-major C = A * B is therefore
// column-major C' = B' * A': gemm takes the operands swapped, and an
// operand needs `.t` exactly when its TC subscripts are not in the order of
// that product.
//
//===----------------------------------------------------------------------===//
#include "DefLowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// A read `T(v_0, ..., v_n)` with plain index variables.
struct Read {
  llvm::StringRef tensor;
  const TensorBinding *binding = nullptr;
  const ApplyExpr *expr = nullptr;
  llvm::SmallVector<llvm::StringRef, 4> vars;
  /// The vars without the batch indices.
  llvm::SmallVector<llvm::StringRef, 4> core;
};

/// The statement as a scaled product of reads.
struct Product {
  double alpha = 1;
  llvm::SmallVector<Read, 2> reads;
};

/// Flattens a tree of `*` into literal factors (folded into alpha) and
/// plain reads. Fails on anything else.
bool collectFactors(const DefContext &def, const Expr &expr, Product &product) {
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr))
    return binary->getOp() == BinaryOp::Mul &&
           collectFactors(def, binary->getLhs(), product) &&
           collectFactors(def, binary->getRhs(), product);
  if (foldLiteralFactor(expr, product.alpha))
    return true;
  const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr);
  if (!apply || !apply->isTensorRead())
    return false;
  Read read;
  read.expr = apply;
  read.tensor = apply->getCallee().name;
  read.binding = def.lookup(read.tensor);
  if (!read.binding)
    return false;
  for (const ExprPtr &arg : apply->getArgs()) {
    const auto *ident = llvm::dyn_cast<IdentExpr>(arg.get());
    if (!ident || ident->getRef() != IdentExpr::Ref::Index ||
        llvm::is_contained(read.vars, ident->getName()))
      return false;
    read.vars.push_back(ident->getName());
  }
  product.reads.push_back(std::move(read));
  return true;
}

using VarList = llvm::ArrayRef<llvm::StringRef>;

bool equalVars(VarList a, std::initializer_list<llvm::StringRef> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// The instruction a statement maps to, with the operands in IR order.
struct BlasForm {
  enum class Kind { Gemm, Gemv, Ger, Sum, Hadamard, Axpby } kind;
  /// Indices into Product::reads in IR operand order.
  llvm::SmallVector<unsigned, 2> operands;
  ir::Transpose transposeA = ir::Transpose::N;
  ir::Transpose transposeB = ir::Transpose::N;
};

/// Classifies the core (batch indices removed) of a product with LHS core
/// indices \p lhs and reduction indices \p red.
std::optional<BlasForm> classify(const Product &product, VarList lhs,
                                 VarList red) {
  using Kind = BlasForm::Kind;
  auto t = [](bool transposed) {
    return transposed ? ir::Transpose::T : ir::Transpose::N;
  };
  llvm::ArrayRef<Read> reads = product.reads;
  if (reads.size() == 1) {
    VarList a = reads[0].core;
    if (red.empty()) {
      // B' = op(A'): same subscripts, or a transposed matrix.
      if (a == lhs && lhs.size() <= 2)
        return BlasForm{Kind::Axpby, {0}};
      if (lhs.size() == 2 && equalVars(a, {lhs[1], lhs[0]}))
        return BlasForm{Kind::Axpby, {0}, ir::Transpose::T};
      return std::nullopt;
    }
    if (red.size() != 1)
      return std::nullopt;
    llvm::StringRef k = red[0];
    if (lhs.empty() && equalVars(a, {k}))
      return BlasForm{Kind::Sum, {0}};
    // b = op(A') * 1 with rows(op(A')) = I: A(i, k) is A' = K x I, so `.t`.
    if (lhs.size() == 1 && equalVars(a, {lhs[0], k}))
      return BlasForm{Kind::Sum, {0}, ir::Transpose::T};
    if (lhs.size() == 1 && equalVars(a, {k, lhs[0]}))
      return BlasForm{Kind::Sum, {0}};
    return std::nullopt;
  }
  if (reads.size() != 2)
    return std::nullopt;
  if (red.empty()) {
    VarList a = reads[0].core, b = reads[1].core;
    if (a == lhs && b == lhs && (lhs.size() == 1 || lhs.size() == 2))
      return BlasForm{Kind::Hadamard, {0, 1}};
    // C'[j, i] = y[j] * x[i]: ger's `a` is the vector of the last LHS index.
    if (lhs.size() == 2) {
      if (equalVars(a, {lhs[0]}) && equalVars(b, {lhs[1]}))
        return BlasForm{Kind::Ger, {1, 0}};
      if (equalVars(a, {lhs[1]}) && equalVars(b, {lhs[0]}))
        return BlasForm{Kind::Ger, {0, 1}};
    }
    return std::nullopt;
  }
  if (red.size() != 1)
    return std::nullopt;
  llvm::StringRef k = red[0];
  if (lhs.size() == 2) {
    // C' (J x I) = op(Q') (J x K) * op(P') (K x I) where P holds i and Q
    // holds j. Q(k, j) is Q' = J x K as is; P(i, k) is P' = K x I as is.
    llvm::StringRef i = lhs[0], j = lhs[1];
    for (unsigned p = 0; p < 2; ++p) {
      VarList pv = reads[p].core, qv = reads[1 - p].core;
      bool pOk = equalVars(pv, {i, k}) || equalVars(pv, {k, i});
      bool qOk = equalVars(qv, {k, j}) || equalVars(qv, {j, k});
      if (pOk && qOk)
        return BlasForm{Kind::Gemm,
                        {1 - p, p},
                        t(!equalVars(qv, {k, j})),
                        t(!equalVars(pv, {i, k}))};
    }
    return std::nullopt;
  }
  if (lhs.size() == 1) {
    // c = op(A') * x: A(i, k) is A' = K x I, so `.t`; A(k, i) is I x K.
    llvm::StringRef i = lhs[0];
    for (unsigned m = 0; m < 2; ++m) {
      VarList mv = reads[m].core, xv = reads[1 - m].core;
      if (!equalVars(xv, {k}))
        continue;
      if (equalVars(mv, {i, k}))
        return BlasForm{Kind::Gemv, {m, 1 - m}, ir::Transpose::T};
      if (equalVars(mv, {k, i}))
        return BlasForm{Kind::Gemv, {m, 1 - m}};
    }
  }
  return std::nullopt;
}

/// Whether every index of \p vars spans exactly the dimension of \p tensor
/// it subscripts (range [0, extent), no shifted storage).
bool coversTensor(const StmtContext &stmt, const TensorBinding &tensor,
                  VarList vars) {
  if (vars.size() != tensor.shape.size())
    return false;
  for (unsigned d = 0; d < vars.size(); ++d) {
    const IndexRange *range = stmt.lookup(vars[d]);
    if (!range || range->lo != 0 || range->hi != tensor.shape[d] ||
        tensor.lowerBounds[d] != 0)
      return false;
  }
  return true;
}

/// How the work-groups of a launch divide a BLAS statement: batch indices
/// fixed at a group coordinate, and output modes cut into blocks.
struct GroupMapping {
  /// Batch index variables and the group id each one is fixed at.
  llvm::SmallVector<llvm::StringRef, 3> batchVars;
  llvm::SmallVector<ir::Value *, 3> batchGroups;
  /// Blocked index variables (an output mode), the offset of the group's
  /// block, and its size: static when every block is whole, else dynamic.
  llvm::SmallVector<llvm::StringRef, 2> blockVars;
  llvm::SmallVector<ir::Value *, 2> blockOffsets;
  llvm::SmallVector<int64_t, 2> blockStaticSizes;
  llvm::SmallVector<ir::Value *, 2> blockSizes;
};

/// The memref of \p tensor restricted to the part one work-group handles
/// (batch modes fixed by a rank-reducing subview, blocked modes sliced), or
/// the whole memref.
ir::Value *getOperand(DefContext &def, Location loc,
                      const TensorBinding &tensor, VarList vars,
                      const GroupMapping &groups) {
  if (llvm::none_of(vars, [&](llvm::StringRef var) {
        return llvm::is_contained(groups.batchVars, var) ||
               llvm::is_contained(groups.blockVars, var);
      }))
    return tensor.memref;
  ir::Context &ctx = def.builder.getContext();
  const auto *type = llvm::cast<ir::MemRefType>(tensor.memref->getType());
  unsigned order = type->getOrder();
  llvm::SmallVector<int64_t, 4> staticOffsets(order, 0), staticSizes(order);
  llvm::SmallVector<int64_t, 4> shape, stride;
  llvm::SmallVector<ir::Value *, 4> offsets, sizes;
  for (unsigned mode = 0; mode < order; ++mode) {
    llvm::StringRef var = vars[order - 1 - mode];
    auto *batch = llvm::find(groups.batchVars, var);
    if (batch != groups.batchVars.end()) {
      staticOffsets[mode] = ir::kDynamic;
      staticSizes[mode] = 0;
      offsets.push_back(groups.batchGroups[batch - groups.batchVars.begin()]);
      continue;
    }
    auto *block = llvm::find(groups.blockVars, var);
    if (block != groups.blockVars.end()) {
      size_t index = block - groups.blockVars.begin();
      staticOffsets[mode] = ir::kDynamic;
      offsets.push_back(groups.blockOffsets[index]);
      staticSizes[mode] = groups.blockStaticSizes[index];
      if (ir::isDynamic(staticSizes[mode]))
        sizes.push_back(groups.blockSizes[index]);
      shape.push_back(staticSizes[mode]);
    } else {
      staticSizes[mode] = type->getShape(mode);
      shape.push_back(type->getShape(mode));
    }
    stride.push_back(type->getStride(mode));
  }
  const ir::MemRefType *resultType =
      ir::MemRefType::get(ctx, type->getElementKind(), shape, stride);
  return def.builder
      .create<ir::SubviewInst>(loc, resultType, tensor.memref, offsets, sizes,
                               staticOffsets, staticSizes)
      ->getResult(0);
}

/// Problems with fewer multiply-adds than this stay in one work-group: the
/// launch and per-group setup would cost more than a second core saves.
constexpr int64_t kMinBlockedWork = int64_t(1) << 21;
/// The default block edge above that. Large blocks reuse each loaded panel
/// more; on PoCL (2 cores) 256 x 256 blocks ran a 1024^3 gemm in about half
/// the time of one group, 64 x 64 blocks barely faster than one group.
constexpr int64_t kDefaultBlock = 256;
/// Blocks are kept multiples of this (the rows of the backend's gemm tile).
constexpr int64_t kBlockAlign = 16;

/// The GPU default block (LoweringOptions::minBlockGroups): 128 x 64, the
/// fastest of a grid measured on an H200 from 1024^3 to 4096^3, halved
/// (rows, then columns) down to 64 x 32 while it leaves fewer than
/// \p minGroups groups (512^3 ran fastest in 64 x 32 blocks).
std::array<int64_t, 2> chooseGpuBlocks(std::array<int64_t, 2> extents,
                                       int64_t minGroups, bool batched) {
  std::array<int64_t, 2> blocks = {128, 64};
  auto groups = [&] {
    return static_cast<int64_t>(llvm::divideCeil(extents[0], blocks[0]) *
                                llvm::divideCeil(extents[1], blocks[1]));
  };
  // A batch brings its own groups.
  while (!batched && groups() < minGroups && blocks[1] > 32) {
    if (blocks[0] > blocks[1])
      blocks[0] /= 2;
    else
      blocks[1] /= 2;
  }
  return blocks;
}

/// The block edges of output memref modes 0 and 1 with extents \p extents
/// for a problem of \p work multiply-adds: the requested ones, or by
/// default on a GPU (\p minGroups > 0) chooseGpuBlocks, elsewhere none
/// below kMinBlockedWork and kDefaultBlock above, halving the rows when
/// that would leave a single group; clipped to the extents.
std::array<int64_t, 2> chooseBlocks(std::array<int64_t, 2> requested,
                                    std::array<int64_t, 2> extents,
                                    int64_t work, bool batched,
                                    int64_t minGroups) {
  std::array<int64_t, 2> gpuBlocks =
      minGroups > 0 ? chooseGpuBlocks(extents, minGroups, batched)
                    : std::array<int64_t, 2>{0, 0};
  std::array<int64_t, 2> blocks;
  for (unsigned mode = 0; mode < 2; ++mode) {
    blocks[mode] = requested[mode];
    if (blocks[mode] == 0 && minGroups > 0)
      blocks[mode] = gpuBlocks[mode];
    else if (blocks[mode] == 0)
      blocks[mode] = work < kMinBlockedWork ? extents[mode] : kDefaultBlock;
    blocks[mode] = std::min(blocks[mode], extents[mode]);
  }
  if (minGroups > 0)
    return blocks;
  bool single = blocks[0] == extents[0] && blocks[1] == extents[1];
  if (single && !batched && requested[0] == 0 && work >= kMinBlockedWork &&
      extents[0] >= 2 * kBlockAlign) {
    int64_t half = (extents[0] + 1) / 2;
    blocks[0] = (half + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
  }
  return blocks;
}

} // namespace

bool lowering::foldLiteralFactor(const Expr &expr, double &alpha) {
  if (const auto *literal = llvm::dyn_cast<FloatLitExpr>(&expr)) {
    alpha *= literal->getValue();
    return true;
  }
  if (const auto *literal = llvm::dyn_cast<IntLitExpr>(&expr)) {
    alpha *= static_cast<double>(literal->getValue());
    return true;
  }
  return false;
}

namespace {

/// A statement matched to a BLAS form: its product, its form and how many
/// leading LHS indices are batch indices.
struct BlasMatch {
  Product product;
  BlasForm form;
  unsigned numBatch = 0;
  const TensorBinding *lhs = nullptr;
  llvm::SmallVector<llvm::StringRef, 4> lhsVars;
};

/// Matches \p stmtContext to a BLAS form.
std::optional<BlasMatch> matchBlas(const DefContext &def,
                                   const StmtContext &stmtContext) {
  const ComprehensionStmt &stmt = stmtContext.stmt;
  ReductionKind reduction = stmt.getReduction();
  if (reduction != ReductionKind::Add && reduction != ReductionKind::None)
    return std::nullopt;
  if (reduction == ReductionKind::None && !stmt.getReductionVars().empty())
    return std::nullopt;
  if (llvm::any_of(stmt.getWheres(), [](const WhereClause &where) {
        return where.getKind() != WhereClause::Kind::Range;
      }))
    return std::nullopt;
  BlasMatch match;
  const TensorBinding *lhs = match.lhs = def.lookup(stmt.getLhs().name);
  if (!lhs || !isFloatingPoint(lhs->type))
    return std::nullopt;

  Product &product = match.product;
  if (!collectFactors(def, stmt.getRhs(), product) || product.reads.empty())
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 4> &lhsVars = match.lhsVars;
  for (const Ident &index : stmt.getIndices())
    lhsVars.push_back(index.name);
  if (!coversTensor(stmtContext, *lhs, lhsVars))
    return std::nullopt;
  for (const Read &read : product.reads)
    if (read.tensor == stmt.getLhs().name || read.binding->type != lhs->type ||
        !coversTensor(stmtContext, *read.binding, read.vars))
      return std::nullopt;

  // The batch: the fewest leading LHS indices shared by every read that
  // leave a BLAS form (a BLAS statement is alone in its launch and takes
  // the work-groups for them).
  unsigned maxBatch = 0;
  while (maxBatch < std::min<size_t>(3, lhsVars.size()) &&
         llvm::all_of(product.reads, [&](const Read &read) {
           return llvm::is_contained(read.vars, lhsVars[maxBatch]);
         }))
    ++maxBatch;
  llvm::SmallVector<llvm::StringRef, 4> red(stmt.getReductionVars().begin(),
                                            stmt.getReductionVars().end());
  std::optional<BlasForm> form;
  unsigned numBatch = 0;
  for (; numBatch <= maxBatch && !form; ++numBatch) {
    VarList batchVars = VarList(lhsVars).take_front(numBatch);
    for (Read &read : product.reads) {
      read.core.clear();
      for (llvm::StringRef var : read.vars)
        if (!llvm::is_contained(batchVars, var))
          read.core.push_back(var);
    }
    form = classify(product, VarList(lhsVars).drop_front(numBatch), red);
  }
  if (!form)
    return std::nullopt;
  match.form = *form;
  match.numBatch = numBatch - 1;
  return match;
}

/// The output variables cut into blocks, one per work-group, with their
/// block sizes: output memref modes 0 and 1 (the last TC indices), on the
/// group axes the batch leaves free.
llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 2>
chooseBlockVars(DefContext &def, const StmtContext &stmtContext,
                const BlasMatch &match) {
  VarList lhsVars = match.lhsVars;
  VarList coreVars = lhsVars.drop_front(match.numBatch);
  int64_t work = 1;
  for (const IndexRange &range : stmtContext.ranges)
    work *= range.hi - range.lo;
  llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 2> blocks;
  unsigned numModes = std::min<size_t>(2, coreVars.size());
  std::array<int64_t, 2> extents = {1, 1};
  for (unsigned mode = 0; mode < numModes; ++mode)
    extents[mode] = match.lhs->shape[lhsVars.size() - 1 - mode];
  // tc.block_rows/cols matter where a searched block would split a mode.
  def.knobsUsed.blocks |= std::max(extents[0], extents[1]) > kSmallestBlock;
  std::array<int64_t, 2> sizes =
      chooseBlocks({def.blockRows, def.blockCols}, extents, work,
                   match.numBatch > 0, def.minBlockGroups);
  for (unsigned mode = 0; mode < numModes; ++mode)
    if (sizes[mode] < extents[mode] && match.numBatch + blocks.size() < 3)
      blocks.push_back({coreVars[coreVars.size() - 1 - mode], sizes[mode]});
  return blocks;
}

/// Adds block \p var of size \p block (of \p extent) on group axis
/// \p axis to \p groups: its offset, and its size, clipped at the edge.
void addBlock(ir::Builder &b, Location loc, llvm::StringRef var, int64_t block,
              int64_t extent, unsigned axis, GroupMapping &groups) {
  ir::Value *group =
      b.create<ir::GroupIdInst>(loc, static_cast<ir::Comp3>(axis))
          ->getResult(0);
  ir::Value *offset =
      b.create<ir::MulInst>(loc, group, b.createIndexConstant(loc, block))
          ->getResult(0);
  groups.blockVars.push_back(var);
  groups.blockOffsets.push_back(offset);
  if (extent % block == 0) {
    groups.blockStaticSizes.push_back(block);
    groups.blockSizes.push_back(nullptr);
    return;
  }
  // The last block is clipped: min(block, extent - offset).
  ir::Value *rest =
      b.create<ir::SubInst>(loc, b.createIndexConstant(loc, extent), offset)
          ->getResult(0);
  groups.blockStaticSizes.push_back(ir::kDynamic);
  groups.blockSizes.push_back(
      b.create<ir::MinInst>(loc, rest, b.createIndexConstant(loc, block))
          ->getResult(0));
}

/// The work-groups of the BLAS instruction of \p match: blocks of the
/// output first, then one axis per batch index; sets the def's grid.
GroupMapping mapOntoGroups(DefContext &def, const StmtContext &stmtContext,
                           const BlasMatch &match) {
  ir::Builder &b = def.builder;
  const ComprehensionStmt &stmt = stmtContext.stmt;
  VarList lhsVars = match.lhsVars;
  const TensorBinding *lhs = match.lhs;
  GroupMapping groups;
  unsigned axis = 0;
  for (auto [var, block] : chooseBlockVars(def, stmtContext, match)) {
    int64_t extent = lhs->shape[llvm::find(lhsVars, var) - lhsVars.begin()];
    addBlock(b, stmt.getLoc(), var, block, extent, axis, groups);
    def.grid[axis++] = (extent + block - 1) / block;
  }
  for (unsigned d = 0; d < match.numBatch; ++d) {
    groups.batchVars.push_back(lhsVars[d]);
    groups.batchGroups.push_back(
        b.create<ir::GroupIdInst>(stmt.getIndices()[d].loc,
                                  static_cast<ir::Comp3>(axis))
            ->getResult(0));
    def.grid[axis++] = lhs->shape[d];
  }
  return groups;
}

/// The BLAS instruction of \p form on \p operands into \p c.
void createBlasInst(ir::Builder &b, Location loc, const BlasForm &form,
                    ir::Value *alpha, llvm::ArrayRef<ir::Value *> operands,
                    ir::Value *beta, ir::Value *c) {
  using Kind = BlasForm::Kind;
  switch (form.kind) {
  case Kind::Gemm:
    b.create<ir::GemmInst>(loc, alpha, operands[0], operands[1], beta, c,
                           /*atomic=*/false, form.transposeA, form.transposeB);
    break;
  case Kind::Gemv:
    b.create<ir::GemvInst>(loc, alpha, operands[0], operands[1], beta, c,
                           /*atomic=*/false, form.transposeA);
    break;
  case Kind::Ger:
    b.create<ir::GerInst>(loc, alpha, operands[0], operands[1], beta, c);
    break;
  case Kind::Hadamard:
    b.create<ir::HadamardInst>(loc, alpha, operands[0], operands[1], beta, c);
    break;
  case Kind::Sum:
    b.create<ir::SumInst>(loc, alpha, operands[0], beta, c, /*atomic=*/false,
                          form.transposeA);
    break;
  case Kind::Axpby:
    b.create<ir::AxpbyInst>(loc, alpha, operands[0], beta, c,
                            /*atomic=*/false, form.transposeA);
    break;
  }
}

} // namespace

llvm::SmallVector<TransposedGemmRead, 2>
lowering::findTransposedGemmReads(const DefContext &def,
                                  const StmtContext &stmtContext) {
  llvm::SmallVector<TransposedGemmRead, 2> result;
  std::optional<BlasMatch> match = matchBlas(def, stmtContext);
  if (!match || match->form.kind != BlasForm::Kind::Gemm)
    return result;
  for (unsigned operand = 0; operand < 2; ++operand) {
    ir::Transpose transpose =
        operand == 0 ? match->form.transposeA : match->form.transposeB;
    if (transpose != ir::Transpose::T)
      continue;
    const Read &read = match->product.reads[match->form.operands[operand]];
    // The two modes of the operand are the read's subscripts that are no
    // batch index (Read::core).
    TransposedGemmRead &transposed = result.emplace_back();
    transposed.read = read.expr;
    transposed.isA = operand == 0;
    for (unsigned position = 0; position < read.vars.size(); ++position)
      if (llvm::is_contained(read.core, read.vars[position]))
        transposed.modes.push_back(position);
    assert(transposed.modes.size() == 2 && "a gemm operand has two modes");
  }
  return result;
}

bool lowering::isGemmForm(const DefContext &def,
                          const StmtContext &stmtContext) {
  std::optional<BlasMatch> match = matchBlas(def, stmtContext);
  return match && match->form.kind == BlasForm::Kind::Gemm;
}

/// The work-group's part of the output (GroupBlock) of \p groups, for an
/// epilogue.
static GroupBlock getGroupBlock(ir::Builder &b, Location loc,
                                const GroupMapping &groups) {
  GroupBlock block;
  for (auto [var, group] : llvm::zip(groups.batchVars, groups.batchGroups))
    block.fixed[var] = group;
  for (unsigned index = 0; index < groups.blockVars.size(); ++index) {
    ir::Value *first = groups.blockOffsets[index];
    ir::Value *size =
        groups.blockSizes[index]
            ? groups.blockSizes[index]
            : b.createIndexConstant(loc, groups.blockStaticSizes[index]);
    block.spans[groups.blockVars[index]] = {
        first, b.create<ir::AddInst>(loc, first, size)->getResult(0)};
  }
  return block;
}

bool lowering::lowerAsBlas(DefContext &def, const StmtContext &stmtContext,
                           bool dryRun, const StmtContext *epilogue) {
  std::optional<BlasMatch> match = matchBlas(def, stmtContext);
  if (!match)
    return false;
  if (dryRun)
    return true;
  const ComprehensionStmt &stmt = stmtContext.stmt;
  const Product &product = match->product;
  const TensorBinding *lhs = match->lhs;
  ir::Builder &b = def.builder;
  Location loc = stmt.getLoc();
  GroupMapping groups = mapOntoGroups(def, stmtContext, *match);
  llvm::SmallVector<ir::Value *, 2> operands;
  for (unsigned index : match->form.operands) {
    const Read &read = product.reads[index];
    operands.push_back(getOperand(def, loc, *read.binding, read.vars, groups));
  }
  ir::Value *c = getOperand(def, loc, *lhs, match->lhsVars, groups);
  const ir::Type *elementType = getIrType(b.getContext(), lhs->type);
  ir::Value *alpha = b.createConstant(loc, product.alpha, elementType);
  bool zeroBeta = stmt.hasInit() || stmt.getReduction() == ReductionKind::None;
  ir::Value *beta = b.createConstant(loc, zeroBeta ? 0.0 : 1.0, elementType);
  createBlasInst(b, loc, match->form, alpha, operands, beta, c);
  if (epilogue)
    emitGemmEpilogue(def, *epilogue, getGroupBlock(b, loc, groups));
  return true;
}
