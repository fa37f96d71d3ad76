//===- DefPasses.h - The def-level passes of the lowering -------*- C++ -*-===//
//
// Private to frontend-tc/lib/Lowering. The lowering of one def
// (LowerDef.cpp) checks its options and sizes, infers its ranges and
// declares its tensors, then runs the def-level passes over a
// DefLoweringState, one file each, in the order of the table in
// DefPasses.cpp:
//
//   inline-calls          InlineCalls.cpp
//   merge-pointwise-updates MergePointwiseUpdates.cpp
//   snapshot-self-reads   SnapshotSelfReads.cpp
//   hoist-to-temporaries  HoistToTemporaries.cpp
//   transpose-gemm-operands TransposeGemmOperands.cpp
//   split-batch-reductions SplitBatchReductions.cpp
//   transpose-weight-gradients TransposeWeightGradients.cpp
//   split-column-reductions SplitColumnReductions.cpp
//   segment               SegmentStatements.cpp
//   share-output-storage  ShareOutputStorage.cpp
//   promote-temporaries   PromoteTemporaries.cpp
//
// and emits one function per kernel from the segments they leave. Each
// pass reports through the context's diagnostics and returns failure when
// the def cannot be lowered. `comprehend compile --print-def-after`
// prints the state after a pass as TC source (PrintDefState.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_LOWERING_DEFPASSES_H
#define COMPREHEND_TC_LIB_LOWERING_DEFPASSES_H

#include "DefLowering.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace comprehend::tc::lowering {

/// Consecutive statements of a def whose kernels come from one source.
struct Segment {
  enum class Kind {
    /// A run of statements lowered from its isl schedule.
    Mapped,
    /// One statement lowered to BLAS instructions, alone in its kernel.
    Blas,
    /// Sets every element of the LHS of the `!` reduction of the next
    /// segment, whose ranges miss some, to the reduction's identity.
    IdentityFill,
  };
  Kind kind;
  /// The statements; for a run, after the rewrites of the passes.
  llvm::SmallVector<StmtContext, 4> stmts;
  /// For a run: the tensors that statements of other segments touch, the
  /// schedule of its statements and, per kernel of the schedule, the
  /// temporaries it keeps in local memory.
  llvm::StringSet<> touchedElsewhere;
  std::optional<poly::MappedSchedule> schedule;
  poly::FusionStrategy fusion = poly::FusionStrategy::Max;
  llvm::SmallVector<llvm::SmallVector<PromotedTensor, 2>, 1> promoted;

  Segment(Kind kind, llvm::ArrayRef<StmtContext> stmts)
      : kind(kind), stmts(stmts.begin(), stmts.end()) {}

  size_t getNumKernels() const {
    return schedule ? schedule->kernels.size() : 1;
  }
};

/// What the def-level passes transform.
struct DefLoweringState {
  DefLoweringState(const Program &program, const Def &def,
                   const LoweringOptions &options, DefContext &context)
      : program(program), def(def), options(options), context(context) {}

  const Program &program;
  const Def &def;
  const LoweringOptions &options;
  DefContext &context;
  /// The def's ranges at the context's sizes.
  const DefRanges *ranges = nullptr;
  LoweredDef result;
  /// The def's statements in order, until `segment` moves them into
  /// segments.
  llvm::SmallVector<StmtContext, 4> stmts;
  /// Statements that start a run of their own (`segment`), scheduled apart
  /// from the statements before them (split-column-reductions).
  llvm::SmallPtrSet<const ComprehensionStmt *, 2> runStarts;
  std::deque<Segment> segments;
  /// The scopes of inlined calls and of the temporaries renamed to the
  /// outputs that hold them, and the names of the callees' temporaries
  /// (stable addresses: statements and tensor keys refer to them).
  std::deque<CallScope> scopes;
  std::deque<std::string> temporaryNames;
  RewrittenStatements rewritten;
  /// The temporaries that some launch holds in local memory, and those
  /// that live in an output's memory: no parameters.
  llvm::StringSet<> temporariesNotPassed;
};

/// One def-level pass: a name, what it does, and the pass.
struct DefPass {
  llvm::StringLiteral name;
  llvm::StringLiteral description;
  LogicalResult (*run)(DefLoweringState &state);
};

/// The def-level passes in the order they run (DefPasses.cpp).
llvm::ArrayRef<DefPass> getDefPasses();

/// Runs the def-level passes over \p state, printing the state where the
/// options ask for it.
LogicalResult runDefPasses(DefLoweringState &state);

/// Prints \p state as TC source: the def's signature, its statements as the
/// passes left them (names as in the def, concrete ranges as `where`
/// clauses) and, as comments, the segments, the temporaries kept in an
/// output's memory and those kept in local memory (PrintDefState.cpp).
void printDefState(const DefLoweringState &state, llvm::raw_ostream &os);

// The passes, in pipeline order.
LogicalResult inlineCalls(DefLoweringState &state);
LogicalResult mergePointwiseUpdates(DefLoweringState &state);
LogicalResult snapshotSelfReads(DefLoweringState &state);
LogicalResult hoistToTemporaries(DefLoweringState &state);
LogicalResult transposeGemmOperands(DefLoweringState &state);
LogicalResult splitBatchReductions(DefLoweringState &state);
LogicalResult transposeWeightGradients(DefLoweringState &state);
LogicalResult splitColumnReductions(DefLoweringState &state);
LogicalResult segmentStatements(DefLoweringState &state);
LogicalResult shareOutputStorage(DefLoweringState &state);
LogicalResult promoteTemporaries(DefLoweringState &state);

/// The statements of \p state with each one that \p rewrite replaces (it
/// appends the replacement to its second argument and returns true) in
/// the replacement's place; the shared loop of the rewriting passes.
void rewriteEachStatement(
    DefLoweringState &state,
    llvm::function_ref<bool(const StmtContext &,
                            llvm::SmallVectorImpl<StmtContext> &)>
        rewrite);

/// Whether \p stmt is lowered to BLAS instructions in a kernel of its own
/// (SegmentStatements.cpp).
bool isBlasStatement(DefLoweringState &state, const StmtContext &stmt);
/// Whether \p stmt is lowered to gemms over views (lowerAsConvGemm).
bool isConvGemm(DefLoweringState &state, const StmtContext &stmt);
/// The reads of the LHS of \p stmt in \p expr at a point other than the LHS
/// point, or at any point with \p lhsPointToo (SnapshotSelfReads.cpp).
void collectSelfReads(const Expr &expr, const ComprehensionStmt &stmt,
                      bool lhsPointToo,
                      llvm::SmallVectorImpl<const ApplyExpr *> &out);
/// Whether \p next, the statement after the BLAS statement \p gemm, runs
/// in the gemm's launch as its epilogue (GemmEpilogue.cpp).
bool joinsGemmLaunch(DefLoweringState &state, const StmtContext &gemm,
                     const StmtContext &next);

/// The schedule of \p stmts (one run) with fusion strategy \p fusion
/// (SegmentStatements.cpp). A reduction that reads its own LHS but is not
/// alone in its reduction loop is an error, with the statement added to
/// \p unsafeSelfReads.
llvm::Expected<poly::MappedSchedule>
scheduleRun(DefLoweringState &state, llvm::ArrayRef<StmtContext> stmts,
            poly::FusionStrategy fusion,
            llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafeSelfReads);

/// The temporaries of kernel \p index of \p kernels, the schedule of
/// \p segment, that can live in local memory of \p bytes
/// (findPromotedTemporaries), except those that statements outside the
/// segment touch (PromoteTemporaries.cpp).
llvm::SmallVector<PromotedTensor, 2>
findSegmentPromotions(DefLoweringState &state, const Segment &segment,
                      llvm::ArrayRef<poly::MappedKernel> kernels,
                      unsigned index, int64_t bytes);

} // namespace comprehend::tc::lowering

#endif // COMPREHEND_TC_LIB_LOWERING_DEFPASSES_H
