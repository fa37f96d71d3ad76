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

#include <algorithm>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// A read `T(v_0, ..., v_n)` with plain index variables.
struct Read {
  llvm::StringRef tensor;
  const TensorBinding *binding = nullptr;
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
  if (const auto *literal = llvm::dyn_cast<FloatLitExpr>(&expr)) {
    product.alpha *= literal->getValue();
    return true;
  }
  if (const auto *literal = llvm::dyn_cast<IntLitExpr>(&expr)) {
    product.alpha *= static_cast<double>(literal->getValue());
    return true;
  }
  const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr);
  if (!apply || !apply->isTensorRead())
    return false;
  Read read;
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

/// The memref of \p tensor with the modes of \p batchVars fixed at
/// \p groups (a rank-reducing subview), or the whole memref.
ir::Value *getOperand(DefContext &def, Location loc,
                      const TensorBinding &tensor, VarList vars,
                      VarList batchVars, llvm::ArrayRef<ir::Value *> groups) {
  if (batchVars.empty())
    return tensor.memref;
  ir::Context &ctx = def.builder.getContext();
  const auto *type = llvm::cast<ir::MemRefType>(tensor.memref->getType());
  unsigned order = type->getOrder();
  llvm::SmallVector<int64_t, 4> staticOffsets(order, 0), staticSizes(order);
  llvm::SmallVector<int64_t, 4> shape, stride;
  llvm::SmallVector<ir::Value *, 4> offsets;
  for (unsigned mode = 0; mode < order; ++mode) {
    llvm::StringRef var = vars[order - 1 - mode];
    auto *batch = llvm::find(batchVars, var);
    if (batch != batchVars.end()) {
      staticOffsets[mode] = ir::kDynamic;
      staticSizes[mode] = 0;
      offsets.push_back(groups[batch - batchVars.begin()]);
      continue;
    }
    staticSizes[mode] = type->getShape(mode);
    shape.push_back(type->getShape(mode));
    stride.push_back(type->getStride(mode));
  }
  const ir::MemRefType *resultType =
      ir::MemRefType::get(ctx, type->getElementKind(), shape, stride);
  return def.builder
      .create<ir::SubviewInst>(loc, resultType, tensor.memref, offsets,
                               llvm::ArrayRef<ir::Value *>{}, staticOffsets,
                               staticSizes)
      ->getResult(0);
}

} // namespace

bool lowering::lowerAsBlas(DefContext &def, const StmtContext &stmtContext) {
  const ComprehensionStmt &stmt = stmtContext.stmt;
  ReductionKind reduction = stmt.getReduction();
  if (reduction != ReductionKind::Add && reduction != ReductionKind::None)
    return false;
  if (reduction == ReductionKind::None && !stmt.getReductionVars().empty())
    return false;
  if (llvm::any_of(stmt.getWheres(), [](const WhereClause &where) {
        return where.getKind() != WhereClause::Kind::Range;
      }))
    return false;
  const TensorBinding *lhs = def.lookup(stmt.getLhs().name);
  if (!lhs || !isFloatingPoint(lhs->type))
    return false;

  Product product;
  if (!collectFactors(def, stmt.getRhs(), product) || product.reads.empty())
    return false;
  llvm::SmallVector<llvm::StringRef, 4> lhsVars;
  for (const Ident &index : stmt.getIndices())
    lhsVars.push_back(index.name);
  if (!coversTensor(stmtContext, *lhs, lhsVars))
    return false;
  for (const Read &read : product.reads)
    if (read.tensor == stmt.getLhs().name || read.binding->type != lhs->type ||
        !coversTensor(stmtContext, *read.binding, read.vars))
      return false;

  // The fewest leading LHS indices shared by every read that leave a BLAS
  // form; batches need a launch grid of their own.
  unsigned maxBatch = 0;
  if (def.mayUseGroups)
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
    return false;
  --numBatch;

  ir::Builder &b = def.builder;
  Location loc = stmt.getLoc();
  VarList batchVars = VarList(lhsVars).take_front(numBatch);
  llvm::SmallVector<ir::Value *, 3> groups;
  for (unsigned d = 0; d < numBatch; ++d) {
    groups.push_back(b.create<ir::GroupIdInst>(stmt.getIndices()[d].loc,
                                               static_cast<ir::Comp3>(d))
                         ->getResult(0));
    def.grid[d] = lhs->shape[d];
  }
  llvm::SmallVector<ir::Value *, 2> operands;
  for (unsigned index : form->operands) {
    const Read &read = product.reads[index];
    operands.push_back(
        getOperand(def, loc, *read.binding, read.vars, batchVars, groups));
  }
  ir::Value *c = getOperand(def, loc, *lhs, lhsVars, batchVars, groups);
  const ir::Type *elementType = getIrType(b.getContext(), lhs->type);
  ir::Value *alpha = b.createConstant(loc, product.alpha, elementType);
  bool zeroBeta = stmt.hasInit() || reduction == ReductionKind::None;
  ir::Value *beta = b.createConstant(loc, zeroBeta ? 0.0 : 1.0, elementType);

  using Kind = BlasForm::Kind;
  switch (form->kind) {
  case Kind::Gemm:
    b.create<ir::GemmInst>(loc, alpha, operands[0], operands[1], beta, c,
                           /*atomic=*/false, form->transposeA,
                           form->transposeB);
    break;
  case Kind::Gemv:
    b.create<ir::GemvInst>(loc, alpha, operands[0], operands[1], beta, c,
                           /*atomic=*/false, form->transposeA);
    break;
  case Kind::Ger:
    b.create<ir::GerInst>(loc, alpha, operands[0], operands[1], beta, c);
    break;
  case Kind::Hadamard:
    b.create<ir::HadamardInst>(loc, alpha, operands[0], operands[1], beta, c);
    break;
  case Kind::Sum:
    b.create<ir::SumInst>(loc, alpha, operands[0], beta, c, /*atomic=*/false,
                          form->transposeA);
    break;
  case Kind::Axpby:
    b.create<ir::AxpbyInst>(loc, alpha, operands[0], beta, c,
                            /*atomic=*/false, form->transposeA);
    break;
  }
  return true;
}
