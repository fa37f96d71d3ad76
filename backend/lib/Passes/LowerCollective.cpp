//===- LowerCollective.cpp - BLAS-like collective instructions to SPMD ----===//
//
// Replaces axpby, cumsum, gemm, gemv, ger, hadamard and sum by code the
// remaining passes and the emitter understand:
//  - gemm: `foreach_tile` over C with cooperative matrices: a K loop of
//    cooperative_matrix_load (A, B) + cooperative_matrix_mul_add, then the
//    alpha/beta epilogue. Remainder tiles take a second copy of the tile code
//    whose loads and stores use the checked flags; on one lane the last row
//    of tiles of a static M instead has a tile type of the rows left,
//    accessed unchecked (vectors, not per-element accesses at the edge).
//    The register tile is
//    CompileOptions::gemmTiling over getDefaultGemmTiling. On a vector CPU
//    core a transposed A, or one whose K steps lie pages apart, is first
//    copied, per K block, into local memory as panels of the tiles' rows
//    (see shouldPackA, emitPackA);
//  - gemv, ger, hadamard, axpby, sum (vector result), cumsum: `foreach` over
//    the result's elements, with a sequential `for` for the reduced mode;
//  - sum to a scalar, axpby of order 0, cumsum of a vector: one work-item
//    does the work inside `parallel`.
// Scalars are converted to the result's element type first; `.atomic`
// becomes atomic_add (beta = 1) or atomic_store (beta = 0).
//
//===----------------------------------------------------------------------===//
#include "KernelShape.h"
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/InstVisitor.h"

#include <optional>
#include <utility>

using namespace comprehend;
using namespace comprehend::backend;
using ir::ScalarKind;

namespace {

ScalarKind getElementKind(const ir::Value *memref) {
  return llvm::cast<ir::MemRefType>(memref->getType())->getElementKind();
}

unsigned getOrder(const ir::Value *memref) {
  return llvm::cast<ir::MemRefType>(memref->getType())->getOrder();
}

/// Indices into an order-2 memref, swapped when transposed.
llvm::SmallVector<ir::Value *, 2> op(ir::Transpose transpose, ir::Value *i,
                                     ir::Value *j) {
  if (transpose == ir::Transpose::T)
    return {j, i};
  return {i, j};
}

/// Combines row and column checks into a checked flag.
ir::CheckedFlag makeChecked(bool rows, bool cols) {
  if (rows && cols)
    return ir::CheckedFlag::Both;
  if (rows)
    return ir::CheckedFlag::Rows;
  return cols ? ir::CheckedFlag::Cols : ir::CheckedFlag::None;
}

class LowerCollectivePass : public KernelShapePass {
public:
  LogicalResult runOnShape(ir::Function &function, PassContext &context,
                           KernelShape &kernelShape) override {
    shape = kernelShape;
    ctx = &function.getContext();
    diags = &context.diags;
    core = &context.core;
    tilingOverride = context.options.gemmTiling;
    // Only an override is checked: the default is always used as is.
    tilingError = std::nullopt;
    if (tilingOverride != GemmTiling())
      tilingError =
          checkGemmTiling(tilingOverride, context.core, shape.subgroupSize);
    hadError = false;
    replaceMatching(
        function, isCollectiveBlas,
        [&](ir::Instruction &inst, LoweringBuilder &b) { lower(inst, b); });
    return failure(hadError);
  }

private:
  static bool isCollectiveBlas(const ir::Instruction &inst) {
    return inst.hasTrait(ir::InstTrait::Blas);
  }

  /// Calls the lowering of each Blas instruction.
  struct Dispatch : ir::InstVisitor<Dispatch> {
    Dispatch(LowerCollectivePass &pass, LoweringBuilder &b)
        : pass(pass), b(b) {}
    void visitGemm(ir::GemmInst inst) { pass.lowerGemm(inst, b); }
    void visitGemv(ir::GemvInst inst) { pass.lowerGemv(inst, b); }
    void visitGer(ir::GerInst inst) { pass.lowerGer(inst, b); }
    void visitHadamard(ir::HadamardInst inst) { pass.lowerHadamard(inst, b); }
    void visitAxpby(ir::AxpbyInst inst) { pass.lowerAxpby(inst, b); }
    void visitSum(ir::SumInst inst) { pass.lowerSum(inst, b); }
    void visitCumsum(ir::CumsumInst inst) { pass.lowerCumsum(inst, b); }
    void visitInstruction(ir::Instruction &) {
      llvm_unreachable("a Blas instruction without lowering");
    }
    LowerCollectivePass &pass;
    LoweringBuilder &b;
  };

  void lower(ir::Instruction &inst, LoweringBuilder &b) {
    Dispatch(*this, b).dispatch(inst);
  }

  /// Opens `foreach (...) = (0, ...), (sizes...)` and returns its loop
  /// variables; \p b then inserts into the body.
  llvm::SmallVector<ir::Value *, 2>
  openForeach(LoweringBuilder &b, llvm::ArrayRef<ir::Value *> sizes) {
    llvm::SmallVector<ir::Value *, 2> from(sizes.size(), b.index(0));
    auto loop = b.create<ir::ForeachInst>(b.getLoc(), from, sizes);
    b.setInsertionPointToEnd(loop.getBody());
    auto params = loop.getBody().getParameters();
    return {params.begin(), params.end()};
  }

  /// Opens `parallel { if (subgroup_linear_id == 0 && subgroup_local_id ==
  /// 0) { ... } }`: the body runs on one work-item.
  void openSingleWorkItem(LoweringBuilder &b) {
    auto parallel = b.create<ir::ParallelInst>(b.getLoc());
    b.setInsertionPointToEnd(parallel.getBody());
    ir::Value *zero = b.createConstant(b.getLoc(), int64_t(0),
                                       b.getScalarType(ScalarKind::I32));
    // One statement per instruction: argument evaluation order is
    // unspecified, and the printed IR must not depend on the compiler.
    ir::Value *linear =
        b.create<ir::SubgroupLinearIdInst>(b.getLoc()).getResult();
    ir::Value *lane = b.create<ir::SubgroupLocalIdInst>(b.getLoc()).getResult();
    ir::Value *firstGroup =
        b.create<ir::EqualInst>(b.getLoc(), linear, zero).getResult();
    ir::Value *firstLane =
        b.create<ir::EqualInst>(b.getLoc(), lane, zero).getResult();
    ir::Value *first =
        b.create<ir::AndInst>(b.getLoc(), firstGroup, firstLane).getResult();
    auto guard = b.create<ir::IfInst>(
        b.getLoc(), llvm::ArrayRef<const ir::Type *>(), first);
    b.setInsertionPointToEnd(guard.getThen());
  }

  /// `for %k = 0, count init(%acc = 0) { %acc += term(%k) }`; returns the
  /// sum. \p term emits the summand (of kind \p kind) at the builder. The
  /// loop is `simd`: like any BLAS, gemv and sum add in no promised order,
  /// and vectorize-loops runs a sum along a contiguous mode on vectors.
  ir::Value *sumLoop(
      LoweringBuilder &b, ir::Value *count, ScalarKind kind,
      llvm::function_ref<ir::Value *(LoweringBuilder &, ir::Value *)> term) {
    ir::Value *init = b.zero(b.getScalarType(kind));
    auto loop = b.create<ir::ForInst>(b.getLoc(), b.index(0), count, nullptr,
                                      llvm::ArrayRef<ir::Value *>{init},
                                      ir::getSimdLoopAttributes(*ctx));
    LoweringBuilder inner(*ctx, b.getLoc());
    inner.setInsertionPointToEnd(loop.getBody());
    ir::Value *k = loop.getBody().getParameter(0);
    ir::Value *acc = loop.getBody().getParameter(1);
    ir::Value *next = inner.add(acc, term(inner, k));
    inner.create<ir::YieldInst>(b.getLoc(), llvm::ArrayRef<ir::Value *>{next});
    return loop.getResults().front();
  }

  /// \p vector (stride 1) as a matrix of one column: `expand [0 -> n x 1]`.
  ir::Value *asColumn(LoweringBuilder &b, ir::Value *vector) {
    auto *type = llvm::cast<ir::MemRefType>(vector->getType());
    int64_t n = type->getShape(0);
    auto *columnType = ir::MemRefType::get(*ctx, type->getElementKind(), {n, 1},
                                           {1, n}, type->getAddressSpace());
    llvm::SmallVector<ir::Value *, 1> dynamic;
    if (ir::isDynamic(n))
      dynamic.push_back(b.size(vector, 0));
    return b
        .create<ir::ExpandInst>(b.getLoc(), columnType, vector, dynamic,
                                /*mode=*/0, llvm::ArrayRef<int64_t>{n, 1})
        .getResult();
  }

  /// Whether gemv \p inst runs as a gemm with one column: on a vector CPU
  /// core, where a work-item's dot product would walk a row of an
  /// untransposed A with the stride of a column, and each work-item would
  /// fetch the cache lines its neighbours fetch again. As a gemm, each K
  /// step loads a piece of a column of A as vectors.
  bool gemvAsGemm(ir::GemvInst inst) const {
    return inst.getTransposeA() == ir::Transpose::N &&
           isVectorCpuLoop({inst.getA(), inst.getB(), inst.getC()},
                           {inst.getB(), inst.getC()});
  }

  /// Whether the core runs loops inside a work-item on vector registers (a
  /// CPU without subgroups) and such a loop over \p operands can use them:
  /// all of one float kind, mode 0 of each of \p contiguous with unit
  /// stride.
  bool isVectorCpuLoop(std::initializer_list<ir::Value *> operands,
                       std::initializer_list<ir::Value *> contiguous) const {
    ScalarKind kind = getElementKind(*operands.begin());
    return shape.subgroupSize == 1 && core->nativeVectorWidth > 1 &&
           (kind == ScalarKind::F32 || kind == ScalarKind::F64) &&
           llvm::all_of(operands,
                        [&](ir::Value *operand) {
                          return getElementKind(operand) == kind;
                        }) &&
           llvm::all_of(contiguous, [](ir::Value *memref) {
             return llvm::cast<ir::MemRefType>(memref->getType())
                        ->getStride(0) == 1;
           });
  }

  void lowerGemv(ir::GemvInst inst, LoweringBuilder &b) {
    if (gemvAsGemm(inst)) {
      // One statement per view: the printed IR must not depend on the
      // compiler's order of argument evaluation.
      ir::Value *x = asColumn(b, inst.getB());
      ir::Value *y = asColumn(b, inst.getC());
      auto gemm =
          b.create<ir::GemmInst>(b.getLoc(), inst.getAlpha(), inst.getA(), x,
                                 inst.getBeta(), y, inst.isAtomic());
      LoweringBuilder gemmBuilder(*ctx, b.getLoc());
      gemmBuilder.setInsertionPoint(gemm);
      lowerGemm(gemm, gemmBuilder);
      gemm->getParentRegion()->erase(gemm);
      return;
    }
    ScalarKind kind = getElementKind(inst.getC());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    ir::Transpose tA = inst.getTransposeA();
    unsigned rowMode = tA == ir::Transpose::T ? 1 : 0;
    ir::Value *rows = b.size(inst.getA(), rowMode);
    ir::Value *depth = b.size(inst.getA(), 1 - rowMode);
    ir::Value *i = openForeach(b, {rows}).front();
    ir::Value *sum =
        sumLoop(b, depth, kind, [&](LoweringBuilder &l, ir::Value *k) {
          ir::Value *a = l.castTo(l.load(inst.getA(), op(tA, i, k)), kind);
          ir::Value *x = l.castTo(l.load(inst.getB(), {k}), kind);
          return l.mul(a, x);
        });
    b.update(sum, inst.getC(), {i}, alpha, beta, inst.isAtomic());
  }

  void lowerGer(ir::GerInst inst, LoweringBuilder &b) {
    ScalarKind kind = getElementKind(inst.getC());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    auto ij = openForeach(b, {b.size(inst.getC(), 0), b.size(inst.getC(), 1)});
    ir::Value *a = b.castTo(b.load(inst.getA(), {ij[0]}), kind);
    ir::Value *x = b.castTo(b.load(inst.getB(), {ij[1]}), kind);
    b.update(b.mul(a, x), inst.getC(), ij, alpha, beta, inst.isAtomic());
  }

  void lowerHadamard(ir::HadamardInst inst, LoweringBuilder &b) {
    ScalarKind kind = getElementKind(inst.getC());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    llvm::SmallVector<ir::Value *, 2> sizes;
    for (unsigned mode = 0; mode < getOrder(inst.getC()); ++mode)
      sizes.push_back(b.size(inst.getC(), mode));
    auto idx = openForeach(b, sizes);
    ir::Value *a = b.castTo(b.load(inst.getA(), idx), kind);
    ir::Value *x = b.castTo(b.load(inst.getB(), idx), kind);
    b.update(b.mul(a, x), inst.getC(), idx, alpha, beta, inst.isAtomic());
  }

  void lowerAxpby(ir::AxpbyInst inst, LoweringBuilder &b) {
    ScalarKind kind = getElementKind(inst.getB());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    unsigned order = getOrder(inst.getB());
    if (order == 0) {
      openSingleWorkItem(b);
      ir::Value *a = b.castTo(b.load(inst.getA(), {}), kind);
      b.update(a, inst.getB(), {}, alpha, beta, inst.isAtomic());
      return;
    }
    llvm::SmallVector<ir::Value *, 2> sizes;
    for (unsigned mode = 0; mode < order; ++mode)
      sizes.push_back(b.size(inst.getB(), mode));
    auto idx = openForeach(b, sizes);
    llvm::SmallVector<ir::Value *, 2> aIdx(idx.begin(), idx.end());
    if (order == 2)
      aIdx = op(inst.getTransposeA(), idx[0], idx[1]);
    ir::Value *a = b.castTo(b.load(inst.getA(), aIdx), kind);
    b.update(a, inst.getB(), idx, alpha, beta, inst.isAtomic());
  }

  /// Whether the untransposed sum \p inst (b(i) = sum over k of A(i, k))
  /// runs column by column: on a vector CPU core (as gemvAsGemm) a
  /// work-item summing a row walks A with the stride of a column.
  bool sumByColumns(ir::SumInst inst) const {
    return getOrder(inst.getB()) == 1 &&
           inst.getTransposeA() == ir::Transpose::N && !inst.isAtomic() &&
           isVectorCpuLoop({inst.getB(), inst.getA()},
                           {inst.getA(), inst.getB()});
  }

  /// Each work-item takes a run of rows, scales its part of b by beta and
  /// then adds alpha times each column of A to it: every step reads a
  /// piece of a column contiguously, in `simd` loops that vectorize-loops
  /// puts on vectors, while the run of b stays in the cache.
  void lowerSumByColumns(ir::SumInst inst, LoweringBuilder &b) {
    ScalarKind kind = getElementKind(inst.getB());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    int64_t runLength = 4 * int64_t(core->nativeVectorWidth);
    ir::Value *rows = b.size(inst.getB(), 0);
    ir::Value *runs =
        b.create<ir::DivInst>(b.getLoc(), b.add(rows, b.index(runLength - 1)),
                              b.index(runLength))
            .getResult();
    ir::Value *run = openForeach(b, {runs}).front();
    ir::Value *first = b.mul(run, b.index(runLength));
    ir::Value *end = b.create<ir::MinInst>(
                          b.getLoc(), b.add(first, b.index(runLength)), rows)
                         .getResult();
    // `for %i = first, end { body(%i) }`, simd.
    auto overRun =
        [&](LoweringBuilder &outer,
            llvm::function_ref<void(LoweringBuilder &, ir::Value *)> body) {
          auto loop = outer.create<ir::ForInst>(
              outer.getLoc(), first, end, nullptr,
              llvm::ArrayRef<ir::Value *>{}, ir::getSimdLoopAttributes(*ctx));
          LoweringBuilder inner(*ctx, outer.getLoc());
          inner.setInsertionPointToEnd(loop.getBody());
          body(inner, loop.getBody().getParameter(0));
        };
    ir::Value *one = b.createConstant(b.getLoc(), ir::ConstantValue(1.0),
                                      b.getScalarType(kind));
    overRun(b, [&](LoweringBuilder &l, ir::Value *i) {
      l.update(l.zero(l.getScalarType(kind)), inst.getB(), {i}, one, beta,
               /*atomic=*/false);
    });
    auto columns =
        b.create<ir::ForInst>(b.getLoc(), b.index(0), b.size(inst.getA(), 1),
                              nullptr, llvm::ArrayRef<ir::Value *>{});
    LoweringBuilder column(*ctx, b.getLoc());
    column.setInsertionPointToEnd(columns.getBody());
    ir::Value *k = columns.getBody().getParameter(0);
    overRun(column, [&](LoweringBuilder &l, ir::Value *i) {
      l.update(l.load(inst.getA(), {i, k}), inst.getB(), {i}, alpha, one,
               /*atomic=*/false);
    });
  }

  void lowerSum(ir::SumInst inst, LoweringBuilder &b) {
    if (sumByColumns(inst))
      return lowerSumByColumns(inst, b);
    ScalarKind kind = getElementKind(inst.getB());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    if (getOrder(inst.getB()) == 0) {
      openSingleWorkItem(b);
      ir::Value *sum =
          sumLoop(b, b.size(inst.getA(), 0), kind,
                  [&](LoweringBuilder &l, ir::Value *k) {
                    return l.castTo(l.load(inst.getA(), {k}), kind);
                  });
      b.update(sum, inst.getB(), {}, alpha, beta, inst.isAtomic());
      return;
    }
    ir::Transpose tA = inst.getTransposeA();
    unsigned rowMode = tA == ir::Transpose::T ? 1 : 0;
    ir::Value *depth = b.size(inst.getA(), 1 - rowMode);
    ir::Value *i = openForeach(b, {b.size(inst.getB(), 0)}).front();
    ir::Value *sum =
        sumLoop(b, depth, kind, [&](LoweringBuilder &l, ir::Value *k) {
          return l.castTo(l.load(inst.getA(), op(tA, i, k)), kind);
        });
    b.update(sum, inst.getB(), {i}, alpha, beta, inst.isAtomic());
  }

  void lowerCumsum(ir::CumsumInst inst, LoweringBuilder &b) {
    ScalarKind kind = getElementKind(inst.getB());
    ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
    ir::Value *beta = b.castTo(inst.getBeta(), kind);
    unsigned order = getOrder(inst.getA());
    unsigned mode = static_cast<unsigned>(inst.getMode());
    ir::Value *length = b.size(inst.getA(), mode);
    llvm::SmallVector<ir::Value *, 4> others;
    for (unsigned m = 0; m < order; ++m)
      if (m != mode)
        others.push_back(b.size(inst.getA(), m));
    llvm::SmallVector<ir::Value *, 4> outer;
    if (others.empty())
      openSingleWorkItem(b);
    else
      outer = openForeach(b, others);

    // for %j = 0, length init(%acc = 0) { %acc += A[.., j, ..]; B[...] = ..}
    ir::Value *init = b.zero(b.getScalarType(kind));
    auto loop = b.create<ir::ForInst>(b.getLoc(), b.index(0), length, nullptr,
                                      llvm::ArrayRef<ir::Value *>{init});
    LoweringBuilder inner(*ctx, b.getLoc());
    inner.setInsertionPointToEnd(loop.getBody());
    ir::Value *j = loop.getBody().getParameter(0);
    ir::Value *acc = loop.getBody().getParameter(1);
    llvm::SmallVector<ir::Value *, 4> idx(outer.begin(), outer.end());
    idx.insert(idx.begin() + mode, j);
    ir::Value *next =
        inner.add(acc, inner.castTo(inner.load(inst.getA(), idx), kind));
    inner.update(next, inst.getB(), idx, alpha, beta, inst.isAtomic());
    inner.create<ir::YieldInst>(b.getLoc(), llvm::ArrayRef<ir::Value *>{next});
  }

  bool shouldPackA(ir::GemmInst inst, int64_t sizeM, int64_t sizeN,
                   int64_t blockK) const;
  bool readsAElementwise(ir::GemmInst inst) const;
  int64_t getMaxPackedSteps(ir::GemmInst inst, int64_t sizeM) const;
  std::optional<int64_t> getPackableBlockSteps(ir::GemmInst inst, int64_t sizeM,
                                               int64_t sizeN, int64_t sizeK,
                                               int64_t blockK) const;
  int64_t selectGemmTiling(ir::GemmInst inst, int64_t sizeM, int64_t sizeN,
                           int64_t sizeK);
  std::pair<int64_t, int64_t> selectKBlocks(ir::GemmInst inst, int64_t sizeM,
                                            int64_t sizeN, int64_t sizeK,
                                            int64_t blockK) const;
  void lowerGemm(ir::GemmInst inst, LoweringBuilder &b);
  void emitGemmTiles(ir::GemmInst inst, LoweringBuilder &b, ir::Value *kLower,
                     ir::Value *kUpper, ir::Value *alpha, ir::Value *beta);
  void emitPackA(ir::GemmInst inst, LoweringBuilder &b, ir::Value *kLower,
                 ir::Value *kUpper);
  void emitPackTransposedA(ir::GemmInst inst, LoweringBuilder &b,
                           ir::Value *kLower, ir::Value *depth);
  /// A tile of \p rows rows (tileM, or lastRowsM for the last row of tiles
  /// of a static M) at (m, n) of extent (tm, tn): unchecked where it is
  /// whole, else checking the columns (remN) and, with \p overhangM, the
  /// rows.
  void emitGemmTileOrRemainder(ir::GemmInst inst, LoweringBuilder &b,
                               ir::Value *m, ir::Value *n, ir::Value *tm,
                               ir::Value *tn, int64_t rows, bool overhangM,
                               ir::Value *kLower, ir::Value *kUpper,
                               ir::Value *alpha, ir::Value *beta);
  void emitGemmTile(ir::GemmInst inst, LoweringBuilder &b, ir::Value *m,
                    ir::Value *n, int64_t rows, bool checkM, bool checkN,
                    ir::Value *kLower, ir::Value *kUpper, ir::Value *alpha,
                    ir::Value *beta);

  KernelShape shape;
  ir::Context *ctx = nullptr;
  DiagnosticEngine *diags = nullptr;
  const CoreInfo *core = nullptr;
  /// The requested gemm tiling and why it is illegal (if it is).
  GemmTiling tilingOverride;
  std::optional<std::string> tilingError;
  bool hadError = false;
  // Tile shape of the gemm being lowered, and which of its modes have a
  // remainder tile.
  int64_t tileM = 0, tileN = 0, tileK = 0;
  bool remM = false, remN = false, remK = false;
  /// The rows of the last row of tiles where M is static and leaves a
  /// remainder on one lane (0 otherwise): those tiles are typed with these
  /// rows and access them unchecked, as vectors.
  int64_t lastRowsM = 0;
  /// The current K block of A as panels in local memory (emitPackA; null
  /// when A is read in place).
  ir::Value *packedA = nullptr;
};

int64_t ceilDiv(int64_t value, int64_t divisor) {
  return (value + divisor - 1) / divisor;
}

/// Rounds \p value up to a multiple of \p multiple.
int64_t roundUp(int64_t value, int64_t multiple) {
  return ceilDiv(value, multiple) * multiple;
}

/// Whether to copy A, one K block of \p blockK at a time, into local memory
/// as panels: the rows of each tile of M one after the other, a tile's panel
/// contiguous (emitPackA). A CPU core's tile loads a column of its rows of
/// A as vectors at every K step, for every column tile of C:
///  - a transposed A turns that into one load per element; the copy reads A
///    once per block;
///  - an A whose K steps (its columns) lie a page or more apart (1024 rows,
///    say) puts each step of a panel on a page of its own and in the same
///    few sets of the L1 cache, so that a panel does not stay in L1 between
///    column tiles; copied, a panel of 32 rows by 256 steps is 32 KiB in a
///    row. TC's matmul on PoCL, AVX-512: 1024^3 10.6-19.5 -> 7.7-13.2 ms,
///    2048^3 112-150 -> 76-99 ms (docs/lowering.md).
/// PoCL keeps local memory in the caches. Worth it from two column tiles
/// on, where the copy's block fits half of local memory. Not with a K
/// remainder step: its checked loads would read past a panel.
bool LowerCollectivePass::shouldPackA(ir::GemmInst inst, int64_t sizeM,
                                      int64_t sizeN, int64_t blockK) const {
  if (shape.subgroupSize != 1 || core->nativeVectorWidth <= 1 ||
      core->dedicatedLocalMemory || ir::isDynamic(sizeM) ||
      ir::isDynamic(sizeN) || ir::isDynamic(blockK) || remK ||
      sizeN < 2 * tileN)
    return false;
  auto *aType = llvm::cast<ir::MemRefType>(inst.getA()->getType());
  if (!readsAElementwise(inst)) {
    // Steps a page apart, and enough of them to outnumber the L1 TLB's
    // entries (64 on x86 cores) and the L1 cache's ways: the panel of a
    // small block (a convolution's gemm over 16 channels) stays in L1
    // anyway, and its copy only costs.
    constexpr int64_t kPageBytes = 4096, kMinSteps = 64;
    int64_t columnStride = aType->getStride(1);
    if (sizeM % tileM != 0 || blockK < kMinSteps || aType->getStride(0) != 1 ||
        ir::isDynamic(columnStride) ||
        columnStride * ir::getSizeInBytes(getElementKind(inst.getA())) <
            kPageBytes)
      return false;
  }
  return blockK <= getMaxPackedSteps(inst, sizeM);
}

/// Whether a tile would load its column of A element by element: A read
/// transposed, or its rows a stride apart (a strided convolution's view of
/// its input, every second float). Copied, A is read once per block.
bool LowerCollectivePass::readsAElementwise(ir::GemmInst inst) const {
  if (inst.getTransposeA() == ir::Transpose::T)
    return true;
  auto *aType = llvm::cast<ir::MemRefType>(inst.getA()->getType());
  return aType->getStride(0) != 1 && !ir::isDynamic(aType->getStride(0));
}

/// The most K steps of A whose panels (emitPackA) fit half of local memory.
int64_t LowerCollectivePass::getMaxPackedSteps(ir::GemmInst inst,
                                               int64_t sizeM) const {
  int64_t stepBytes =
      roundUp(sizeM, tileM) * ir::getSizeInBytes(getElementKind(inst.getA()));
  return static_cast<int64_t>(core->localMemoryBytes / 2) /
         std::max<int64_t>(stepBytes, 1);
}

/// Shorter K blocks for an A that shouldPackA copies at the length that
/// fits local memory but whose block of \p blockK steps (the data cache's,
/// GemmTiling) would not fit there (nullopt otherwise): the copy pays more
/// than long blocks do. On PoCL (EPYC, AVX-512, 48 KiB of L1: blocks of 342
/// steps, 342 KiB of panels for 256 rows, against 256 KiB) matmul_grad's
/// d_A gemm, a transposed A, at 1024^3 took 110 ms read in place, 6.1 ms in
/// blocks of 256 steps; TC's matmul (steps 4 KiB apart) 7.6-8.2 against
/// 6.6-6.8 ms (docs/lowering.md). An atomic gemm walks K at once.
std::optional<int64_t>
LowerCollectivePass::getPackableBlockSteps(ir::GemmInst inst, int64_t sizeM,
                                           int64_t sizeN, int64_t sizeK,
                                           int64_t blockK) const {
  if (inst.isAtomic() || ir::isDynamic(sizeK) || ir::isDynamic(sizeM))
    return std::nullopt;
  int64_t maxSteps = getMaxPackedSteps(inst, sizeM);
  int64_t steps = maxSteps - maxSteps % std::max<int64_t>(tileK, 1);
  if (steps <= 0 || blockK <= steps || !shouldPackA(inst, sizeM, sizeN, steps))
    return std::nullopt;
  return steps;
}

/// Sets the register tile (tileM, tileN, tileK: GemmTiling, clipped to
/// static sizes, the row tile a multiple of the subgroup) and the
/// remainders for \p inst; returns the K block asked for. An illegal
/// override is reported; the default keeps the IR well-formed until the
/// pass fails.
int64_t LowerCollectivePass::selectGemmTiling(ir::GemmInst inst, int64_t sizeM,
                                              int64_t sizeN, int64_t sizeK) {
  int64_t sg = shape.subgroupSize;
  if (tilingError) {
    diags->emitError(inst->getLoc()) << "invalid gemm tiling for subgroup size "
                                     << sg << ": " << *tilingError;
    hadError = true;
  }
  bool useOverride = !tilingError;
  auto pick = [&](int64_t requested, int64_t fallback) {
    return useOverride && requested ? requested : fallback;
  };
  GemmTiling defaultTiling =
      getDefaultGemmTiling(*core, shape.subgroupSize,
                           ir::getSizeInBytes(getElementKind(inst.getA())),
                           ir::isDynamic(sizeK) ? 0 : sizeK);
  tileM = pick(tilingOverride.rows, defaultTiling.rows);
  tileN = pick(tilingOverride.cols, defaultTiling.cols);
  tileK = pick(tilingOverride.kStep, defaultTiling.kStep);
  if (!ir::isDynamic(sizeM))
    tileM = std::min(tileM, roundUp(std::max<int64_t>(sizeM, 1), sg));
  if (!ir::isDynamic(sizeN))
    tileN = std::min(tileN, std::max<int64_t>(sizeN, 1));
  // On a narrow C (four tiles wide or less), a default column count that
  // leaves a remainder tile gives way to the largest divisor of N at least
  // half as wide, so that no tile runs checked (per-element) accesses.
  if (!(useOverride && tilingOverride.cols) && !ir::isDynamic(sizeN) &&
      sizeN % tileN != 0 && sizeN <= 4 * tileN)
    for (int64_t cols = tileN - 1; 2 * cols >= tileN; --cols)
      if (sizeN % cols == 0) {
        tileN = cols;
        break;
      }
  if (!ir::isDynamic(sizeK))
    tileK = std::min(tileK, std::max<int64_t>(sizeK, 1));
  // A short static K that the default step does not divide is taken in one
  // step: no remainder iteration with checked (per-element) loads.
  if (!(useOverride && tilingOverride.kStep) && !ir::isDynamic(sizeK) &&
      sizeK > tileK && sizeK <= 2 * defaultTiling.kStep && sizeK % tileK != 0) {
    GemmTiling wholeK = {tileM, tileN, sizeK};
    if (!checkGemmTiling(wholeK, *core, shape.subgroupSize))
      tileK = sizeK;
  }
  remM = ir::isDynamic(sizeM) || sizeM % tileM != 0;
  lastRowsM = !ir::isDynamic(sizeM) && sg == 1 ? sizeM % tileM : 0;
  remN = ir::isDynamic(sizeN) || sizeN % tileN != 0;
  remK = ir::isDynamic(sizeK) || sizeK % tileK != 0;
  return pick(tilingOverride.kBlock, defaultTiling.kBlock);
}

/// The number of K blocks of \p inst and their length, from the block
/// asked for: blocks of equal length, a multiple of the K step (512 = 2 x
/// 256 rather than 384 + 128), shorter where a copied A needs them to fit
/// (getPackableBlockSteps). Atomic gemms (several groups adding to one C)
/// and a dynamic K walk K at once.
std::pair<int64_t, int64_t>
LowerCollectivePass::selectKBlocks(ir::GemmInst inst, int64_t sizeM,
                                   int64_t sizeN, int64_t sizeK,
                                   int64_t blockK) const {
  int64_t numBlocks = inst.isAtomic() || ir::isDynamic(sizeK)
                          ? 1
                          : ceilDiv(sizeK, std::max<int64_t>(blockK, 1));
  blockK = roundUp(ceilDiv(sizeK, numBlocks), tileK);
  if (std::optional<int64_t> steps =
          getPackableBlockSteps(inst, sizeM, sizeN, sizeK, blockK)) {
    numBlocks = ceilDiv(sizeK, *steps);
    blockK = roundUp(ceilDiv(sizeK, numBlocks), tileK);
  }
  return {numBlocks, blockK};
}

void LowerCollectivePass::lowerGemm(ir::GemmInst inst, LoweringBuilder &b) {
  ScalarKind kind = getElementKind(inst.getC());
  auto *cType = llvm::cast<ir::MemRefType>(inst.getC()->getType());
  auto *aType = llvm::cast<ir::MemRefType>(inst.getA()->getType());
  unsigned kMode = inst.getTransposeA() == ir::Transpose::T ? 0 : 1;
  int64_t sizeM = cType->getShape(0), sizeN = cType->getShape(1);
  int64_t sizeK = aType->getShape(kMode);
  auto [numBlocks, blockK] = selectKBlocks(
      inst, sizeM, sizeN, sizeK, selectGemmTiling(inst, sizeM, sizeN, sizeK));

  // The first block applies beta, the others add to C.
  ir::Value *alpha = b.castTo(inst.getAlpha(), kind);
  ir::Value *beta = b.castTo(inst.getBeta(), kind);
  ir::Value *zero = b.index(0);
  ir::Value *upperK = b.size(inst.getA(), kMode);
  packedA = nullptr;
  if (shouldPackA(inst, sizeM, sizeN, std::min(sizeK, blockK))) {
    int64_t panels = ceilDiv(sizeM, tileM);
    auto *packType = ir::MemRefType::get(
        *ctx, getElementKind(inst.getA()),
        {tileM, panels * std::min(sizeK, blockK)}, {}, ir::AddressSpace::Local);
    packedA = b.create<ir::AllocaInst>(b.getLoc(), packType).getResult();
  }
  if (numBlocks == 1 || sizeK <= blockK) {
    emitGemmTiles(inst, b, zero, upperK, alpha, beta);
    return;
  }
  ir::Value *block = b.index(blockK);
  emitGemmTiles(inst, b, zero, block, alpha, beta);
  auto blocks = b.create<ir::ForInst>(b.getLoc(), block, upperK, block,
                                      llvm::ArrayRef<ir::Value *>{});
  LoweringBuilder blockBuilder(*ctx, b.getLoc());
  blockBuilder.setInsertionPointToEnd(blocks.getBody());
  ir::Value *kLower = blocks.getBody().getParameter(0);
  ir::Value *kUpper =
      blockBuilder
          .create<ir::MinInst>(b.getLoc(), blockBuilder.add(kLower, block),
                               upperK)
          .getResult();
  emitGemmTiles(inst, blockBuilder, kLower, kUpper, alpha,
                blockBuilder.createConstant(b.getLoc(), 1.0, alpha->getType()));
}

/// packedA[i mod tileM, (i div tileM) * depth + k] = A(i, kLower + k) for
/// the rows i of every tile of M and the depth = kUpper - kLower steps of
/// the block: each tile's panel of rows, step after step. insert-barriers
/// orders the copy before the tiles, and the tiles before the next block's
/// copy.
void LowerCollectivePass::emitPackA(ir::GemmInst inst, LoweringBuilder &b,
                                    ir::Value *kLower, ir::Value *kUpper) {
  Location loc = b.getLoc();
  int64_t sizeM =
      llvm::cast<ir::MemRefType>(inst.getC()->getType())->getShape()[0];
  ir::Value *zero = b.index(0);
  ir::Value *depth = b.create<ir::SubInst>(loc, kUpper, kLower).getResult();
  ir::Value *tile = b.index(tileM);
  auto store = [&](LoweringBuilder &body, ir::Value *value, ir::Value *row,
                   ir::Value *panel, ir::Value *k) {
    body.create<ir::StoreInst>(
        loc, value, packedA,
        llvm::ArrayRef<ir::Value *>{row, body.add(body.mul(panel, depth), k)});
  };
  if (inst.getTransposeA() == ir::Transpose::T) {
    emitPackTransposedA(inst, b, kLower, depth);
    return;
  }
  // A's rows in order: a work-item per tile and step copies the tile's
  // rows in a `simd` loop, on vectors where they are contiguous. A partial
  // last tile (only with strided rows, shouldPackA) repeats row M - 1 past
  // M; those rows only reach rows of C that are not stored.
  auto copy = b.create<ir::ForeachInst>(
      loc, llvm::ArrayRef<ir::Value *>{zero, zero},
      llvm::ArrayRef<ir::Value *>{b.index(ceilDiv(sizeM, tileM)), depth});
  LoweringBuilder body(*ctx, loc);
  body.setInsertionPointToEnd(copy.getBody());
  ir::Value *panel = copy.getBody().getParameter(0);
  ir::Value *k = copy.getBody().getParameter(1);
  ir::Value *first = body.mul(panel, tile);
  ir::Value *step = body.add(k, kLower);
  auto rows = body.create<ir::ForInst>(loc, zero, tile, body.index(1),
                                       llvm::ArrayRef<ir::Value *>{},
                                       ir::getSimdLoopAttributes(*ctx));
  LoweringBuilder row(*ctx, loc);
  row.setInsertionPointToEnd(rows.getBody());
  ir::Value *r = rows.getBody().getParameter(0);
  ir::Value *i = row.add(first, r);
  if (sizeM % tileM != 0)
    i = row.create<ir::MinInst>(loc, i, row.index(sizeM - 1)).getResult();
  ir::Value *value = row.load(inst.getA(), {i, step});
  store(row, value, r, panel, k);
}

/// Steps per block of the transposed copy. Each block moves a chunk's rows
/// (a cache line of them) times this many elements through registers, which
/// PoCL compiles slowly: for fcrelu (B=64, N=M=1024) 4 steps added 0.3-0.5 s
/// to the first launch and 16 steps 1.1 s, and ran no faster than 2 steps,
/// which add under 0.1 s.
constexpr int64_t kPackSteps = 2;
/// The bytes of a cache line on the CPU cores the copy is for.
constexpr int64_t kCacheLineBytes = 64;

/// emitPackA for a transposed A, whose steps are contiguous. A work-item
/// per chunk of rows that fills a cache line of the panel (16 floats): blocks
/// of kPackSteps steps by the chunk's rows are loaded as one vector per row and
/// stored as one vector per step, transposed in registers; the steps left over,
/// and every step where a chunk is narrower than a vector or crosses
/// panels, are copied row by row along the steps. The copy used to have a
/// work-item per step walk the rows, a row of A apart each time: a page for
/// rows of 1024 floats (docs/lowering.md, "A in panels on a CPU"). The rows
/// the last tile has past M repeat row M - 1; they only reach rows of C
/// that are not stored.
void LowerCollectivePass::emitPackTransposedA(ir::GemmInst inst,
                                              LoweringBuilder &b,
                                              ir::Value *kLower,
                                              ir::Value *depth) {
  Location loc = b.getLoc();
  auto *aType = llvm::cast<ir::MemRefType>(inst.getA()->getType());
  ScalarKind kind = aType->getElementKind();
  int64_t sizeM =
      llvm::cast<ir::MemRefType>(inst.getC()->getType())->getShape()[0];
  int64_t rows = roundUp(sizeM, tileM);
  int64_t line = kCacheLineBytes / ir::getSizeInBytes(kind);
  int64_t chunk = line;
  while (rows % chunk != 0)
    chunk /= 2;
  bool onVectors = (kind == ScalarKind::F32 || kind == ScalarKind::F64) &&
                   chunk == line && tileM % chunk == 0 &&
                   aType->getStride(0) == 1;
  ir::Value *zero = b.index(0);
  ir::Value *tile = b.index(tileM);
  auto copy = b.create<ir::ForeachInst>(
      loc, llvm::ArrayRef<ir::Value *>{zero},
      llvm::ArrayRef<ir::Value *>{b.index(rows / chunk)});
  LoweringBuilder body(*ctx, loc);
  body.setInsertionPointToEnd(copy.getBody());
  ir::Value *first =
      body.mul(copy.getBody().getParameter(0), body.index(chunk));
  auto rowOf = [&](LoweringBuilder &lb, ir::Value *i) {
    if (sizeM % tileM == 0)
      return i;
    return lb.create<ir::MinInst>(loc, i, lb.index(sizeM - 1)).getResult();
  };
  auto column = [&](LoweringBuilder &lb, ir::Value *panel, ir::Value *k) {
    return lb.add(lb.mul(panel, depth), k);
  };

  ir::Value *scalarFrom = zero;
  if (onVectors) {
    ir::Value *lane = body.create<ir::RemInst>(loc, first, tile).getResult();
    ir::Value *panel = body.create<ir::DivInst>(loc, first, tile).getResult();
    ir::Value *width = body.index(kPackSteps);
    scalarFrom =
        body.create<ir::SubInst>(
                loc, depth,
                body.create<ir::RemInst>(loc, depth, width).getResult())
            .getResult();
    auto blocks = body.create<ir::ForInst>(loc, zero, scalarFrom, width,
                                           llvm::ArrayRef<ir::Value *>{});
    LoweringBuilder block(*ctx, loc);
    block.setInsertionPointToEnd(blocks.getBody());
    ir::Value *k0 = blocks.getBody().getParameter(0);
    ir::Value *step = block.add(k0, kLower);
    const ir::Type *rowType = ir::VectorType::get(*ctx, kind, kPackSteps);
    const ir::Type *lineType = ir::VectorType::get(*ctx, kind, chunk);
    llvm::SmallVector<ir::Value *, 16> loaded;
    for (int64_t r = 0; r < chunk; ++r) {
      ir::Value *row = rowOf(block, block.add(first, block.index(r)));
      loaded.push_back(block
                           .create<ir::VectorLoadInst>(
                               loc, rowType, inst.getA(),
                               llvm::ArrayRef<ir::Value *>{step, row})
                           .getResult());
    }
    for (int64_t k = 0; k < kPackSteps; ++k) {
      ir::Value *steps = block.zero(lineType);
      for (int64_t r = 0; r < chunk; ++r) {
        ir::Value *element =
            block.create<ir::VectorExtractInst>(loc, loaded[r], k).getResult();
        steps = block.create<ir::VectorInsertInst>(loc, element, steps, r)
                    .getResult();
      }
      block.create<ir::VectorStoreInst>(
          loc, steps, packedA,
          llvm::ArrayRef<ir::Value *>{
              lane, column(block, panel, block.add(k0, block.index(k)))});
    }
  }

  auto rowLoop =
      body.create<ir::ForInst>(loc, zero, body.index(chunk), body.index(1),
                               llvm::ArrayRef<ir::Value *>{});
  LoweringBuilder rowBody(*ctx, loc);
  rowBody.setInsertionPointToEnd(rowLoop.getBody());
  ir::Value *i = rowBody.add(first, rowLoop.getBody().getParameter(0));
  ir::Value *row = rowOf(rowBody, i);
  ir::Value *lane = rowBody.create<ir::RemInst>(loc, i, tile).getResult();
  ir::Value *panel = rowBody.create<ir::DivInst>(loc, i, tile).getResult();
  auto steps = rowBody.create<ir::ForInst>(
      loc, scalarFrom, depth, rowBody.index(1), llvm::ArrayRef<ir::Value *>{});
  LoweringBuilder step(*ctx, loc);
  step.setInsertionPointToEnd(steps.getBody());
  ir::Value *k = steps.getBody().getParameter(0);
  ir::Value *value = step.load(inst.getA(), {step.add(k, kLower), row});
  step.create<ir::StoreInst>(
      loc, value, packedA,
      llvm::ArrayRef<ir::Value *>{lane, column(step, panel, k)});
}

/// A `foreach_tile` over C whose tiles add alpha * A[:, kLower:kUpper] *
/// B[kLower:kUpper, :] to beta * C.
void LowerCollectivePass::emitGemmTiles(ir::GemmInst inst, LoweringBuilder &b,
                                        ir::Value *kLower, ir::Value *kUpper,
                                        ir::Value *alpha, ir::Value *beta) {
  ir::Value *zero = b.index(0);
  if (packedA)
    emitPackA(inst, b, kLower, kUpper);
  auto tiles = b.create<ir::ForeachTileInst>(
      b.getLoc(), llvm::ArrayRef<ir::Value *>{zero, zero},
      llvm::ArrayRef<ir::Value *>{b.size(inst.getC(), 0),
                                  b.size(inst.getC(), 1)},
      llvm::ArrayRef<int64_t>{tileM, tileN});
  ir::Region &body = tiles.getBody();
  ir::Value *m = body.getParameter(0), *n = body.getParameter(1);
  ir::Value *tm = body.getParameter(2), *tn = body.getParameter(3);
  LoweringBuilder inner(*ctx, b.getLoc());
  inner.setInsertionPointToEnd(body);
  if (!lastRowsM) {
    emitGemmTileOrRemainder(inst, inner, m, n, tm, tn, tileM, remM, kLower,
                            kUpper, alpha, beta);
    return;
  }
  // The last row of tiles of a static M as tiles of its own rows: a vector
  // access of 8 rows, say, instead of per-element accesses at the edge of
  // a tile of 32.
  ir::Value *fullM =
      inner.create<ir::EqualInst>(b.getLoc(), tm, inner.index(tileM))
          .getResult();
  auto branch = inner.create<ir::IfInst>(
      b.getLoc(), llvm::ArrayRef<const ir::Type *>(), fullM);
  LoweringBuilder thenBuilder(*ctx, b.getLoc());
  thenBuilder.setInsertionPointToEnd(branch.getThen());
  emitGemmTileOrRemainder(inst, thenBuilder, m, n, tm, tn, tileM, false, kLower,
                          kUpper, alpha, beta);
  LoweringBuilder elseBuilder(*ctx, b.getLoc());
  elseBuilder.setInsertionPointToEnd(branch.getElse());
  emitGemmTileOrRemainder(inst, elseBuilder, m, n, tm, tn, lastRowsM, false,
                          kLower, kUpper, alpha, beta);
}

void LowerCollectivePass::emitGemmTileOrRemainder(
    ir::GemmInst inst, LoweringBuilder &b, ir::Value *m, ir::Value *n,
    ir::Value *tm, ir::Value *tn, int64_t rows, bool overhangM,
    ir::Value *kLower, ir::Value *kUpper, ir::Value *alpha, ir::Value *beta) {
  if (!overhangM && !remN) {
    emitGemmTile(inst, b, m, n, rows, false, false, kLower, kUpper, alpha,
                 beta);
    return;
  }
  // Full tiles run unchecked; the remainder tiles check what may overhang.
  ir::Value *full = nullptr;
  if (overhangM)
    full = b.create<ir::EqualInst>(b.getLoc(), tm, b.index(tileM)).getResult();
  if (remN) {
    ir::Value *fullN =
        b.create<ir::EqualInst>(b.getLoc(), tn, b.index(tileN)).getResult();
    full = full ? b.create<ir::AndInst>(b.getLoc(), full, fullN).getResult()
                : fullN;
  }
  auto branch = b.create<ir::IfInst>(b.getLoc(),
                                     llvm::ArrayRef<const ir::Type *>(), full);
  LoweringBuilder thenBuilder(*ctx, b.getLoc());
  thenBuilder.setInsertionPointToEnd(branch.getThen());
  emitGemmTile(inst, thenBuilder, m, n, rows, false, false, kLower, kUpper,
               alpha, beta);
  LoweringBuilder elseBuilder(*ctx, b.getLoc());
  elseBuilder.setInsertionPointToEnd(branch.getElse());
  emitGemmTile(inst, elseBuilder, m, n, rows, overhangM, remN, kLower, kUpper,
               alpha, beta);
}

/// One tile of C at (m, n) of \p rows x tileN: a loop over [kLower,
/// kUpper) accumulating A and B tiles, then the alpha/beta update of C;
/// its accesses check the rows with \p checkM, the columns with \p checkN.
void LowerCollectivePass::emitGemmTile(ir::GemmInst inst, LoweringBuilder &b,
                                       ir::Value *m, ir::Value *n, int64_t rows,
                                       bool checkM, bool checkN,
                                       ir::Value *kLower, ir::Value *kUpper,
                                       ir::Value *alpha, ir::Value *beta) {
  Location loc = b.getLoc();
  bool checkK = remK;
  ScalarKind kc = getElementKind(inst.getC());
  ScalarKind ka = getElementKind(inst.getA());
  ScalarKind kb = getElementKind(inst.getB());
  ir::Transpose tA = inst.getTransposeA(), tB = inst.getTransposeB();
  auto *accType =
      ir::CoopMatrixType::get(*ctx, kc, rows, tileN, ir::MatrixUse::Acc);
  auto *aTileType =
      ir::CoopMatrixType::get(*ctx, ka, rows, tileK, ir::MatrixUse::A);
  auto *bTileType =
      ir::CoopMatrixType::get(*ctx, kb, tileK, tileN, ir::MatrixUse::B);

  // With A in panels (emitPackA), step k of tile m is column
  // panelStart + k of the copy: its panel's first column, less kLower.
  ir::Value *panelStart = nullptr;
  if (packedA) {
    ir::Value *depth = b.create<ir::SubInst>(loc, kUpper, kLower).getResult();
    ir::Value *panel =
        b.create<ir::DivInst>(loc, m, b.index(tileM)).getResult();
    panelStart =
        b.create<ir::SubInst>(loc, b.mul(panel, depth), kLower).getResult();
  }
  ir::Value *init = b.zero(accType);
  ir::Value *step = b.index(tileK);
  auto loop = b.create<ir::ForInst>(loc, kLower, kUpper, step,
                                    llvm::ArrayRef<ir::Value *>{init});
  LoweringBuilder l(*ctx, loc);
  l.setInsertionPointToEnd(loop.getBody());
  ir::Value *k = loop.getBody().getParameter(0);
  ir::Value *acc = loop.getBody().getParameter(1);
  auto aPos = op(tA, m, k);
  ir::Value *aSource = inst.getA();
  bool checkAM = checkM;
  if (packedA) {
    // A panel has every row of its tile, past M too: no row checks.
    aSource = packedA;
    tA = ir::Transpose::N;
    checkAM = false;
    aPos = {l.index(0), l.add(panelStart, k)};
  }
  ir::Value *aTile = l.create<ir::CooperativeMatrixLoadInst>(
                          loc, aTileType, aSource, aPos[0], aPos[1], tA,
                          makeChecked(checkAM, checkK))
                         .getResult();
  auto bPos = op(tB, k, n);
  ir::Value *bTile = l.create<ir::CooperativeMatrixLoadInst>(
                          loc, bTileType, inst.getB(), bPos[0], bPos[1], tB,
                          makeChecked(checkK, checkN))
                         .getResult();
  ir::Value *next =
      l.create<ir::CooperativeMatrixMulAddInst>(loc, accType, aTile, bTile, acc)
          .getResult();
  l.create<ir::YieldInst>(loc, llvm::ArrayRef<ir::Value *>{next});

  ir::Value *result = loop.getResults().front();
  if (!isConstantNumber(alpha, 1.0))
    result = b.create<ir::CooperativeMatrixScaleInst>(loc, alpha, result)
                 .getResult();
  ir::CheckedFlag checked = makeChecked(checkM, checkN);
  if (inst.isAtomic()) {
    if (isConstantNumber(beta, 0.0))
      b.create<ir::CooperativeMatrixAtomicStoreInst>(
          loc, result, inst.getC(), m, n, ir::Transpose::N, checked);
    else
      b.create<ir::CooperativeMatrixAtomicAddInst>(
          loc, result, inst.getC(), m, n, ir::Transpose::N, checked);
    return;
  }
  result = b.addScaledOld(
      result, beta,
      [&](LoweringBuilder &lb) {
        return lb
            .create<ir::CooperativeMatrixLoadInst>(loc, accType, inst.getC(), m,
                                                   n, ir::Transpose::N, checked)
            .getResult();
      },
      [&](LoweringBuilder &lb, ir::Value *old) {
        return lb.create<ir::CooperativeMatrixScaleInst>(loc, beta, old)
            .getResult();
      });
  b.create<ir::CooperativeMatrixStoreInst>(loc, result, inst.getC(), m, n,
                                           ir::Transpose::N, checked);
}

} // namespace

std::unique_ptr<Pass> comprehend::backend::createLowerCollectivePass() {
  return std::make_unique<LowerCollectivePass>();
}
