//===- TransposeGemmOperands.cpp - Transposed gemm operands as copies -----===//
//
// A gemm's register tile on a GPU core loads A a row per lane (the backend's
// `foreach_tile`, docs/nvidia.md): the lanes of a warp read neighbouring
// floats where A's rows are contiguous, and 32 cache lines per load where A
// is read transposed (its reduction index contiguous, `gemm.t`). That is
// the form of both gradients of a matrix product and of a linear layer's
// `Y(b, o) +=! X(b, i) * W(o, i)`. The statement
//
//   d_A(m, k) +=! d_C(m, n) * B(k, n)
//
// becomes two:
//
//   B_t(n, k) = B(k, n)
//   d_A(m, k) +=! d_C(m, n) * B_t(n, k)
//
// The copy is a loop statement in a launch of its own (its writes
// coalesced), which reads B once; the gemm then reads its operand in place.
// On an H200 the backward of a 2048^3 matmul took 1.60 ms instead of 5.76
// (its d_A gemm 0.63 instead of 4.78), a linear layer of 4096 x 1024 x 1024
// 0.32 ms instead of 2.40. Batch indices keep their positions
// (`Y_t(b, n, k) = Y(b, k, n)`). Only where the options ask for it
// (LoweringOptions::gemmTransposeCopy, `tc.gemm_transpose_copy`; by
// default on GPU cores where the gemm is large enough, kMinCopiedWork), and
// only for the def's own statements without `where` lets or `exists`. A
// transposed B operand (`gemm.n.t`: a tile every lane reads whole) is
// copied too where the knob is 2, by default from 2^30 multiply-adds. On a
// vector CPU core the copy is for a transposed B alone, where its K steps
// lie a page apart (kMinCopiedWorkCpu).
// This is the def-level pass `transpose-gemm-operands` (DefPasses.h).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "llvm/Support/MathExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// The copy pays where the gemm has at least this many multiply-adds and
/// its rows fill a warp's tile. Measured on an H200 (bench/gpu/
/// transposed-gemm.cases): a linear layer of 32 x 256 x 256 (2^21) ran in
/// 0.031 ms with the copy, 0.067 without; matmul_grad at 97 x 61 x 33
/// (2 x 195 000) in 0.041 with, 0.035 without (the extra launch); batched
/// 20000 x 16^3 rows of 16 in 0.107 with, 0.100 without.
constexpr int64_t kMinCopiedWork = int64_t(1) << 20;
constexpr int64_t kMinCopiedRows = 32;
/// A transposed B operand (a tile that every lane of a warp reads whole) is
/// copied too from this many multiply-adds: matmul_grad's d_B gemm at
/// 2048^3 (2^33) took 0.647 ms with the copy, 0.944 without; the backward
/// at 512^3 (2^27) 0.076 ms copying both operands, 0.071 copying A alone.
constexpr int64_t kMinCopiedWorkB = int64_t(1) << 30;

/// Which operands the copy pays for in \p stmt (see kMinCopiedWork): the
/// value of `tc.gemm_transpose_copy` the default takes.
int64_t getDefaultCopies(const StmtContext &stmt) {
  // Saturating: a statement's points may exceed int64_t.
  uint64_t work = 1;
  for (const IndexRange &range : stmt.ranges)
    work = llvm::SaturatingMultiply(work, uint64_t(range.hi - range.lo));
  // The gemm's rows are the output memref's mode 0: the last LHS index.
  const IndexRange &rows = *stmt.lookup(stmt.stmt.getIndices().back().name);
  if (work < uint64_t(kMinCopiedWork) || rows.hi - rows.lo < kMinCopiedRows)
    return 0;
  return work >= uint64_t(kMinCopiedWorkB) ? 2 : 1;
}

/// On a vector CPU core the backend packs a transposed A in the kernel
/// (docs/lowering.md); a transposed B it reads in place, a few floats per K
/// step, each step a row of B's tensor further on. Where those rows are a
/// page or more long, every step of the K loop is a new page: measured on
/// PoCL (Xeon, AVX-512, `comprehend run --repeat 10`, best run), the
/// d_B gemm of a matrix product (`R(k, n) +=! P(m, n) * Q(m, k)`) at 1024^3
/// took 11.0-11.4 ms in place and 7.7-8.4 ms with the copy, at 2048^3 107-112
/// against 74-75 ms, at 4096 x 256 x 1024 (K x N x M) 14.6 against 10.7-11.2;
/// at 512^3 (2^27 multiply-adds) both took 1.24-1.27 ms, at 256^3 the copy's
/// launch cost 0.05 ms. Rows of 1 KB (1024 x 1024 x 256): no difference. Where
/// A is transposed too, copying both (the knob's 2) did not pay (2048^3:
/// 107-112 ms either way), so the default is kept at 0 there.
constexpr int64_t kMinCopiedWorkCpu = int64_t(1) << 28;
constexpr int64_t kPageBytes = 4096;

/// The default of `tc.gemm_transpose_copy` on a vector CPU core for \p stmt,
/// whose gemm reads \p operands transposed: 2 where only B is, its K steps
/// lie a page or more apart, and the gemm is large (see kMinCopiedWorkCpu).
int64_t getDefaultCpuCopies(const DefContext &def, const StmtContext &stmt,
                            llvm::ArrayRef<TransposedGemmRead> operands) {
  if (operands.size() != 1 || operands.front().isA)
    return 0;
  uint64_t work = 1;
  for (const IndexRange &range : stmt.ranges)
    work = llvm::SaturatingMultiply(work, uint64_t(range.hi - range.lo));
  if (work < uint64_t(kMinCopiedWorkCpu))
    return 0;
  const ApplyExpr &read = *operands.front().read;
  const TensorBinding *tensor = def.lookup(read.getCallee().name);
  if (!tensor)
    return 0;
  // The K step of B is the read's subscript that no LHS index is.
  auto isLhsIndex = [&](llvm::StringRef var) {
    return llvm::any_of(stmt.stmt.getIndices(),
                        [&](const Ident &lhs) { return lhs.name == var; });
  };
  for (unsigned position : operands.front().modes) {
    const auto &var = llvm::cast<IdentExpr>(*read.getArgs()[position]);
    if (isLhsIndex(var.getName()))
      continue;
    int64_t stepBytes = ir::getSizeInBytes(tensor->kind);
    for (unsigned d = position + 1; d < tensor->shape.size(); ++d)
      stepBytes *= tensor->shape[d];
    return stepBytes >= kPageBytes ? 2 : 0;
  }
  return 0;
}

/// Copies the operand \p operand of \p stmt reads into a temporary with its
/// two modes swapped, appending the copy to \p result; returns the read
/// of the temporary that replaces it.
ExprPtr copyOperand(DefLoweringState &state, const StmtContext &stmt,
                    const TransposedGemmRead &operand,
                    llvm::SmallVectorImpl<StmtContext> &result) {
  const ApplyExpr &read = *operand.read;
  llvm::SmallVector<const IdentExpr *, 4> swapped;
  for (const ExprPtr &arg : read.getArgs())
    swapped.push_back(llvm::cast<IdentExpr>(arg.get()));
  std::swap(swapped[operand.modes[0]], swapped[operand.modes[1]]);
  return copyToPermutedTemporary(state.context, state.rewritten, state.result,
                                 stmt, read, swapped, result);
}

/// Rewrites \p stmt into the copies and the gemm that reads them (see the
/// file comment), appending them to \p result; false where it keeps its
/// form.
bool transposeOperands(DefLoweringState &state, const StmtContext &stmt,
                       llvm::SmallVectorImpl<StmtContext> &result) {
  DefContext &def = state.context;
  if (stmt.scope || hasLetsOrExists(stmt.stmt))
    return false;
  llvm::SmallVector<TransposedGemmRead, 2> operands =
      findTransposedGemmReads(def, stmt);
  if (operands.empty())
    return false;
  const LoweringOptions &options = state.options;
  int64_t byDefault = options.gemmRowsPerLane
                          ? getDefaultCopies(stmt)
                          : getDefaultCpuCopies(def, stmt, operands);
  def.knobsUsed.gemmTransposeCopy = true;
  def.knobsUsed.gemmTransposeCopyDefault =
      std::max(def.knobsUsed.gemmTransposeCopyDefault, byDefault);
  int64_t copied = options.gemmTransposeCopy.value_or(byDefault);
  llvm::DenseMap<const Expr *, ExprPtr> replaced;
  for (const TransposedGemmRead &operand : operands)
    if (copied >= (operand.isA ? 1 : 2))
      replaced[operand.read] = copyOperand(state, stmt, operand, result);
  if (replaced.empty())
    return false;
  const ComprehensionStmt &gemm = rewriteRhs(
      stmt.stmt,
      [&](const Expr &old) -> ExprPtr {
        auto it = replaced.find(&old);
        return it == replaced.end() ? nullptr : std::move(it->second);
      },
      state.rewritten);
  result.push_back(StmtContext{gemm, stmt.ranges, nullptr});
  return true;
}

} // namespace

LogicalResult lowering::transposeGemmOperands(DefLoweringState &state) {
  if (!state.options.matchBlas)
    return success();
  state.context.scope = nullptr;
  rewriteEachStatement(state, [&](const StmtContext &stmt, auto &result) {
    return transposeOperands(state, stmt, result);
  });
  return success();
}
