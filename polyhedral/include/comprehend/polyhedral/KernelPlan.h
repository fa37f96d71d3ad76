//===- KernelPlan.h - Statement order, kernels and tiling with isl -*- C++
//-*-===//
//
// Groundwork for lowering a TC def: the statements' iteration domains and
// access relations become isl objects, isl's dataflow analysis gives the
// dependences between statements (read-after-write, write-after-read,
// write-after-write), and the dependences decide which consecutive statements
// can share one kernel launch, where a work-group barrier separates them and
// where a new launch is needed. A kernel's group dimensions form one
// permutable band of an isl schedule tree that is tiled with the tile sizes
// the autotuner chooses.
//
// Work mapping assumed by the plan: the first `groupDims` LHS indices of a
// statement are distributed over work-groups; the remaining LHS indices over
// the work-items of a group. Two statements can share a launch when every
// dependence between them keeps the group coordinates; they need no barrier
// when it also keeps the work-item coordinates.
//
// Only our own types appear here; isl stays in polyhedral/lib.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_KERNELPLAN_H
#define COMPREHEND_POLYHEDRAL_KERNELPLAN_H

#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/polyhedral/RangeInference.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace comprehend::poly {

/// One statement of a def as the scheduler sees it: `lhs(lhsIndices) op= ...`
/// executed for every point of the box `lo[d] <= iterators[d] < hi[d]`.
struct ScheduledStatement {
  std::string lhsTensor;
  /// LHS indices, a subset of the iterators.
  llvm::SmallVector<std::string, 4> lhsIndices;
  /// Every index variable (LHS indices first, then reduction variables).
  llvm::SmallVector<std::string, 4> iterators;
  /// Bounds per iterator, over the size parameters (hi exclusive).
  llvm::SmallVector<IndexExpr, 4> lo, hi;
  /// Every tensor read; non-affine subscripts may touch the whole tensor.
  llvm::SmallVector<TensorAccess, 4> reads;
  /// Whether the statement also reads its LHS (a reduction without `!`, or
  /// an update such as `O(i) = O(i) + 1` listed among the reads anyway).
  bool readsLhs = false;
  /// Whether the statement combines its right-hand side into the LHS with
  /// a reduction operator (`+=`, `max=`, ...), and whether it first sets
  /// the LHS to the operator's identity (`!`). The mapper (Schedule.h)
  /// models such a statement as an init and an update.
  bool reduction = false;
  bool hasInit = false;
};

/// The scheduler's view of a statement whose ranges were inferred: every
/// iterator gets its inferred [lo, hi). Fails when a bound is piecewise
/// (a Select; see VarRange::loExpr).
llvm::Expected<ScheduledStatement>
makeScheduledStatement(const StatementInfo &stmt, const StatementRanges &ranges,
                       bool readsLhs);

/// How two statements in textual order must be separated.
enum class SyncKind {
  None,     ///< every dependence stays within one work-item
  Barrier,  ///< dependences stay within one work-group: a barrier suffices
  NewLaunch ///< dependences cross work-groups: a separate kernel launch
};

/// A dependence between two different statements (source before target).
struct Dependence {
  enum class Kind { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };
  unsigned source = 0, target = 0;
  Kind kind = Kind::ReadAfterWrite;
  std::string tensor;
  SyncKind sync = SyncKind::None;
  /// isl text of the relation, for dumps and tests.
  std::string relation;
};

/// Statements that run in one kernel launch, in textual order.
struct Kernel {
  llvm::SmallVector<unsigned, 4> statements;
  /// Per statement: whether a work-group barrier must precede it.
  llvm::SmallVector<bool, 4> barrierBefore;
};

struct PlanOptions {
  /// Number of leading LHS indices mapped to work-groups (and tiled).
  unsigned groupDims = 1;
};

/// Statement order, dependences and kernel partition of one def.
struct KernelPlan {
  /// Textual order: TC statements have sequential semantics.
  llvm::SmallVector<unsigned, 8> order;
  llvm::SmallVector<Dependence, 8> dependences;
  llvm::SmallVector<Kernel, 4> kernels;
};

/// Computes the plan of \p statements over the size variables \p params.
/// Fails (without diagnostics: the input was checked by Sema and range
/// inference) when isl cannot represent a domain or a write.
llvm::Expected<KernelPlan> planKernels(llvm::ArrayRef<std::string> params,
                                       llvm::ArrayRef<ScheduledStatement> stmts,
                                       const PlanOptions &options = {});

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_KERNELPLAN_H
