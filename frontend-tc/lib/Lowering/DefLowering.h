//===- DefLowering.h - State shared by the lowering of one def --*- C++ -*-===//
//
// Private to frontend-tc/lib/Lowering. LowerDef.cpp drives the lowering of a
// def through the def-level passes (DefPasses.h); BlasPatterns.cpp and
// ConvAsGemm.cpp lower the statements that map to collective BLAS
// instructions; LowerSchedule.cpp lowers every other statement from the isl
// schedule of its run of statements.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H
#define COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H

#include "comprehend/ir/Builder.h"
#include "comprehend/polyhedral/Schedule.h"
#include "comprehend/tc/Lowering.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <functional>
#include <memory>

namespace comprehend::tc::lowering {

/// About how many points a work-group gets by default when the mapper tiles
/// a band whose points are cheap (elementwise statements).
inline constexpr int64_t kDefaultGroupWork = 64;

/// A TC tensor and the memref parameter that holds it.
struct TensorBinding {
  ir::Value *memref = nullptr;
  ScalarType type = ScalarType::Float;
  ir::ScalarKind kind = ir::ScalarKind::F32;
  /// Neither an input nor an output of the def (callee temporaries too).
  bool temporary = false;
  /// Extents and lower bounds in TC order.
  llvm::SmallVector<int64_t, 4> shape, lowerBounds;
  /// For a temporary the mapper keeps in local memory: the TC dimensions
  /// (bit d for dimension d) that every access subscripts with the group's
  /// own coordinate, so that the group's slice has one element there.
  unsigned localFixedDims = 0;
};

/// The concrete half-open range of one index variable of a statement.
struct IndexRange {
  std::string var;
  int64_t lo = 0, hi = 0;
};

/// The names of an inlined callee (a TC call): its tensors are tensors of
/// the def being lowered, its size variables have the arguments' extents.
struct CallScope {
  /// Callee tensor name -> the lowered def's tensor name.
  llvm::StringMap<std::string> tensors;
  llvm::StringMap<int64_t> sizes;

  /// The def's name of the callee's tensor \p tensor.
  llvm::StringRef resolve(llvm::StringRef tensor) const {
    auto it = tensors.find(tensor);
    return it == tensors.end() ? tensor : llvm::StringRef(it->second);
  }
};

/// What the statement lowerings need to know about the def being lowered.
struct DefContext {
  ir::Builder &builder;
  DiagnosticEngine &diags;
  const llvm::StringMap<int64_t> &sizes;
  llvm::MapVector<llvm::StringRef, TensorBinding> tensors;
  /// The grid of the kernel being lowered.
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// The output block of one work-group for BLAS statements (memref modes 0
  /// and 1); 0 chooses by the problem size (see LoweringOptions).
  int64_t blockRows = 0, blockCols = 0;
  /// The fewest work-groups a default BLAS block aims for (see
  /// LoweringOptions::minBlockGroups); 0 keeps the CPU rule.
  int64_t minBlockGroups = 0;
  /// About how many points one group gets where the mapper tiles by work
  /// (see LoweringOptions::groupWork; never 0 here).
  int64_t groupWork = kDefaultGroupWork;
  /// Points of a contiguous run that one work-item walks as a vector loop
  /// (LoweringOptions::vectorRun); 0 on cores without vector work-items.
  int64_t vectorRun = 0;
  /// Whether a parallel reduction gives each work-item a chunk of
  /// consecutive iterations (cores whose work-items run their loops on
  /// vector lanes) rather than every work-group-size-th one (coalesced
  /// across the work-items of a GPU).
  bool contiguousPartials = false;
  /// GPU cores (LoweringOptions::gemmRowsPerLane): a gemm's register tile
  /// is a warp's, a row per lane.
  bool gemmRowsPerLane = false;
  /// The most subgroups a work-group may have (LoweringOptions::
  /// maxSubgroups): the partial results of a parallel reduction, one per
  /// subgroup, take this many elements of local memory.
  int64_t maxSubgroups = 1024;
  /// The knobs whose values the lowering has consulted so far
  /// (LoweredDef::knobs).
  LoweringKnobUse knobsUsed = {};

  /// The callee whose statement is being lowered, or null for the def's own
  /// statements; names in the statement are resolved through it.
  const CallScope *scope = nullptr;

  /// The def's name of tensor \p tensor of the current statement.
  llvm::StringRef resolve(llvm::StringRef tensor) const {
    return scope ? scope->resolve(tensor) : tensor;
  }
  const TensorBinding *lookup(llvm::StringRef tensor) const {
    auto it = tensors.find(resolve(tensor));
    return it == tensors.end() ? nullptr : &it->second;
  }
  /// The value of size variable \p var in the current statement.
  int64_t getSize(llvm::StringRef var) const {
    return scope ? scope->sizes.lookup(var) : sizes.lookup(var);
  }
};

/// One comprehension with its concrete ranges (LHS indices first, then the
/// reduction indices, as in ComprehensionStmt::getIndexVars).
struct StmtContext {
  const ComprehensionStmt &stmt;
  llvm::SmallVector<IndexRange, 4> ranges;
  /// The inlined callee the statement comes from (null: the def itself).
  const CallScope *scope = nullptr;

  const IndexRange *lookup(llvm::StringRef var) const {
    for (const IndexRange &range : ranges)
      if (range.var == var)
        return &range;
    return nullptr;
  }
};

/// The number of values index \p var (one of \p stmt's) takes in \p stmt.
inline int64_t extentOf(const StmtContext &stmt, llvm::StringRef var) {
  const IndexRange *range = stmt.lookup(var);
  return range->hi - range->lo;
}

/// The barrier before a statement: `barrier.global` orders the global
/// memory, `barrier.local` the local temporaries.
struct Barrier {
  bool global = false, local = false;
  explicit operator bool() const { return global || local; }
};

/// The scheduler's view of \p stmt (ScheduledStatements.cpp): concrete
/// bounds, subscripts as IndexExprs, tensors named as in the def (the
/// context's scope must be the statement's).
poly::ScheduledStatement toScheduled(const DefContext &def,
                                     const StmtContext &stmt);

/// Lowers one kernel of the def's mapped schedule (poly::mapSchedule over
/// \p stmts) into the function being built: group loops become `group_id`,
/// work-item loops `foreach`, other loops `for` (a reduction loop carries
/// its accumulator), guards `if`, and `barrier.global` separates the parts
/// of a group that touch what an earlier part wrote or read.
LogicalResult lowerScheduledKernel(DefContext &def,
                                   llvm::ArrayRef<StmtContext> stmts,
                                   const poly::MappedKernel &kernel);

/// The local memory that lowerScheduledKernel takes for the partial results
/// of the parallel reductions of \p kernel: DefContext::maxSubgroups
/// elements per element kind reduced.
int64_t getReductionBufferBytes(DefContext &def,
                                llvm::ArrayRef<StmtContext> stmts,
                                const poly::MappedKernel &kernel);

/// A temporary of one mapped kernel that lives in local memory.
struct PromotedTensor {
  std::string name;
  /// The group's slice in TC order: 1 on the fixed dimensions.
  llvm::SmallVector<int64_t, 4> sliceShape;
  /// See TensorBinding::localFixedDims.
  unsigned fixedDims = 0;
};

/// The temporaries of kernel \p kernelIndex of \p kernels that can live in
/// local memory (PromoteTemporaries.cpp): touched by no other kernel, every
/// access inside the group loops, none reading an incoming value, in the
/// def's order while their slices fit in \p localMemoryBytes.
llvm::SmallVector<PromotedTensor, 2>
findPromotedTemporaries(DefContext &def, llvm::ArrayRef<StmtContext> stmts,
                        llvm::ArrayRef<poly::MappedKernel> kernels,
                        unsigned kernelIndex, int64_t localMemoryBytes);

/// The temporaries among \p candidates that can live in the memory of an
/// output of the def (ShareOutputStorage.cpp): temporary -> output. The
/// caller renames them (a CallScope) before scheduling.
llvm::StringMap<std::string>
findSharedOutputStorage(DefContext &def, llvm::ArrayRef<StmtContext> stmts,
                        const llvm::StringSet<> &candidates);

/// Returns the replacement of an expression, or null to copy it.
using ExprReplacer = std::function<ExprPtr(const Expr &)>;

/// A copy of \p expr that keeps what Sema resolved; each subexpression
/// for which \p replace returns an expression is replaced by it
/// (Rewriting.cpp).
ExprPtr cloneExpr(const Expr &expr, const ExprReplacer &replace = nullptr);

/// A read `tensor(indices)` of the element type of \p at, at its location.
ExprPtr makeTensorRead(llvm::StringRef tensor,
                       llvm::ArrayRef<const IdentExpr *> indices,
                       const Expr &at);

/// \p read (a tensor read) reading \p tensor instead, at the same point.
ExprPtr cloneReadOf(const ApplyExpr &read, llvm::StringRef tensor);

/// The statements and names the rewrites before scheduling create
/// (hoistToTemporaries, snapshotSelfReads): they live as long as the
/// lowering of the def.
struct RewrittenStatements {
  std::vector<std::unique_ptr<ComprehensionStmt>> stmts;
  std::deque<std::string> names;
};

/// The statement `lhs(indices) reduction rhs` (`!` where \p init) without
/// where clauses, at \p loc with its operator at \p opLoc, whose index
/// variables are \p vars (the LHS indices, then the reduction indices);
/// kept in \p created.
const ComprehensionStmt &
createStatement(RewrittenStatements &created, Location loc, Location opLoc,
                Ident lhs, llvm::ArrayRef<Ident> indices,
                ReductionKind reduction, bool init, ExprPtr rhs,
                llvm::ArrayRef<std::string> vars);

/// \p like (its locations, LHS, indices and index variables) with
/// reduction \p reduction, `!` where \p init, and right-hand side \p rhs;
/// kept in \p created.
const ComprehensionStmt &restateStatement(const ComprehensionStmt &like,
                                          ReductionKind reduction, bool init,
                                          ExprPtr rhs,
                                          RewrittenStatements &created);

/// Declares a temporary of \p binding's type and shape in \p def, named
/// \p base (with underscores added while the def has that name), and
/// appends it to the tensors of \p lowered; returns its name.
llvm::StringRef declareTemporary(DefContext &def, RewrittenStatements &created,
                                 LoweredDef &lowered, const llvm::Twine &base,
                                 TensorBinding binding);

/// Declares (declareTemporary) a temporary of the element type of \p stmt's
/// LHS whose dimensions are \p stmt's ranges of \p indices, named \p base.
llvm::StringRef
declareLhsTemporary(DefContext &def, RewrittenStatements &created,
                    LoweredDef &lowered, const StmtContext &stmt,
                    llvm::ArrayRef<Ident> indices, const llvm::Twine &base);

/// Appends to \p result the statement `lhs(indices) op rhs` that writes
/// \p stmt's LHS at its own indices: reduction \p reduction (`!` where
/// \p init), index variables the LHS indices and then \p reductionVars,
/// over \p stmt's ranges of them; the statement is kept in \p created.
void appendLhsStatement(RewrittenStatements &created, const StmtContext &stmt,
                        ReductionKind reduction, bool init, ExprPtr rhs,
                        llvm::ArrayRef<llvm::StringRef> reductionVars,
                        llvm::SmallVectorImpl<StmtContext> &result);

/// Undeclares the temporary \p name that declareTemporary declared and no
/// statement of the def's reads or writes.
void forgetTemporary(DefContext &def, LoweredDef &lowered,
                     llvm::StringRef name);

/// An occurrence of index variable \p var in \p expr, or null.
const IdentExpr *findIndexExpr(const Expr &expr, llvm::StringRef var);

/// Copies \p read, a read subscripted by plain indices, into a temporary
/// `<tensor>_t` subscripted by the same indices in the order \p order:
/// appends the copy `T(order) = read`, over \p consumer's ranges of those
/// indices, to \p result and returns the read `T(order)` that replaces
/// \p read in \p consumer.
ExprPtr copyToPermutedTemporary(DefContext &def, RewrittenStatements &created,
                                LoweredDef &lowered,
                                const StmtContext &consumer,
                                const ApplyExpr &read,
                                llvm::ArrayRef<const IdentExpr *> order,
                                llvm::SmallVectorImpl<StmtContext> &result);

/// Whether \p stmt has `where` lets or `exists` clauses, which rewriteRhs
/// does not copy (its `in` ranges are in the statement's ranges already).
bool hasLetsOrExists(const ComprehensionStmt &stmt);

/// A copy of \p stmt without its `where` clauses (see hasLetsOrExists)
/// whose right-hand side is copied with \p replace, kept in \p created.
const ComprehensionStmt &rewriteRhs(const ComprehensionStmt &stmt,
                                    const ExprReplacer &replace,
                                    RewrittenStatements &created);

/// Points the reads of a statement's own LHS at another point than the
/// one it writes to a copy of the LHS made by a new statement just before
/// (SnapshotSelfReads.cpp): the statement then reads the LHS as it was
/// before it, as TC's semantics say. The copy is declared in \p def and
/// appended to the tensors of \p result. Fails with a diagnostic where
/// the copy cannot serve (a statement with a `where` let or `exists`).
/// The statements for which \p lhsPointToo holds have their reads of the
/// LHS point go to the copy too.
LogicalResult snapshotSelfReads(
    DefContext &def, llvm::SmallVectorImpl<StmtContext> &stmts,
    RewrittenStatements &created, LoweredDef &result,
    llvm::function_ref<bool(const ComprehensionStmt &)> lhsPointToo = nullptr);

/// Appends the extent and lower bound of each of the first \p rank
/// dimensions of \p shape to \p tensor; returns the first dimension whose
/// extent is no positive constant (then \p tensor is incomplete), or none.
std::optional<unsigned> appendConcreteShape(const poly::TensorShape &shape,
                                            unsigned rank,
                                            LoweredTensor &tensor);

/// Collects the tensors \p stmt reads (right-hand side and `where` lets),
/// by their names in the def (resolved through the statement's scope).
void collectReads(const StmtContext &stmt, llvm::StringSet<> &reads);

/// The statements that have an instance in the kernel with AST \p root, in
/// the order of their first instance.
void collectKernelStatements(const poly::AstNode &root,
                             llvm::SmallVectorImpl<unsigned> &statements);

/// Collects the tensors that a launch of \p statements (indices into
/// \p stmts) takes, by their names in the def: every tensor each statement
/// reads or writes, even where only its init runs in the launch.
void collectLaunchTensors(llvm::ArrayRef<StmtContext> stmts,
                          llvm::ArrayRef<unsigned> statements,
                          llvm::StringSet<> &tensors);

/// The part of a gemm statement's output that one work-group computes:
/// the LHS indices fixed at a value (a batch index on a group id), and
/// those cut into blocks, each as the half-open range [first, last) the
/// group spans; any other LHS index spans its whole range.
struct GroupBlock {
  llvm::StringMap<ir::Value *> fixed;
  llvm::StringMap<std::pair<ir::Value *, ir::Value *>> spans;
};

/// Emits \p epilogue (a pointwise statement on a gemm's output, see
/// isGemmEpilogue) over the work-group's \p block at the insertion point,
/// after the group's gemms (GemmEpilogue.cpp).
void emitGemmEpilogue(DefContext &def, const StmtContext &epilogue,
                      const GroupBlock &block);

/// Tries to lower \p stmt, alone in its kernel or with the pointwise
/// \p epilogue after it (GemmEpilogue.cpp), to one collective BLAS
/// instruction (with subviews, and `group_id` for batch indices and
/// blocks). Returns false, emitting nothing, when the statement does not
/// have such a form. With \p dryRun only answers whether it has one.
bool lowerAsBlas(DefContext &def, const StmtContext &stmt, bool dryRun = false,
                 const StmtContext *epilogue = nullptr);
/// Whether lowerAsBlas lowers \p stmt to a gemm (the form that takes an
/// epilogue).
bool isGemmForm(const DefContext &def, const StmtContext &stmt);

/// A read that a gemm statement (lowerAsBlas) takes as an operand
/// transposed (`gemm.t` for A: the reduction index is its contiguous one),
/// and the positions of its subscripts that are the gemm's two modes (the
/// others are batch indices).
struct TransposedGemmRead {
  const ApplyExpr *read = nullptr;
  /// The gemm's A operand (else its B operand).
  bool isA = false;
  llvm::SmallVector<unsigned, 2> modes;
};

/// The operands of \p stmt that its gemm reads transposed, where it is
/// lowered to one.
llvm::SmallVector<TransposedGemmRead, 2>
findTransposedGemmReads(const DefContext &def, const StmtContext &stmt);

/// Multiplies \p alpha by \p expr when it is a numeric literal (a factor
/// of a product that BLAS patterns fold into alpha); false otherwise.
bool foldLiteralFactor(const Expr &expr, double &alpha);

/// Tries to lower the convolution-like \p stmt (an output index shifted by
/// a reduction index in one read) to gemms over views of its operands, one
/// work-group per point of its batch indices (ConvAsGemm.cpp). Returns
/// false, emitting nothing, when it has no such form; with \p dryRun only
/// answers. The statement must be alone in its launch, or followed by the
/// pointwise \p epilogue (GemmEpilogue.cpp) where convGemmTakesEpilogue.
/// Unless \p force, only where the gemms pay off (kMinConvGemmReduction).
bool lowerAsConvGemm(DefContext &def, const StmtContext &stmt,
                     bool dryRun = false, bool force = false,
                     const StmtContext *epilogue = nullptr);
/// Whether lowerAsConvGemm lowers \p stmt (forced) to gemms over views of
/// its operands, a work-group per point of its batch indices: the form that
/// takes an epilogue (not the panels of ConvPanelGemm.cpp).
bool convGemmTakesEpilogue(DefContext &def, const StmtContext &stmt);

/// The default lowers a convolution to gemms when their reduction (the
/// input channels) has at least this many iterations. Measured on PoCL
/// (conv2d, 3x3, interleaved): 1 and 3 channels ran 2.4-3x faster as
/// loops, 4 about even, 8 and 16 2-4x faster as gemms, 64 17x.
inline constexpr int64_t kMinConvGemmReduction = 8;

/// The IR type of a TC scalar type (bool is the IR's bool type).
const ir::Type *getIrType(ir::Context &ctx, ScalarType type);

/// The memref type of a tensor with TC-order \p shape (modes reversed).
const ir::MemRefType *getMemRefType(ir::Context &ctx, ir::ScalarKind kind,
                                    llvm::ArrayRef<int64_t> shape);

} // namespace comprehend::tc::lowering

#endif // COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H
