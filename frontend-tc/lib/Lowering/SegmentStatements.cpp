//===- SegmentStatements.cpp - Launches of a def and their schedules ------===//
//
// The def-level pass `segment` splits the statements into segments, each
// one source of kernels:
//  - a statement with a BLAS form (a contraction of two tensors as gemm or
//    gemv, or a convolution lowered to gemms) alone in its kernel, or with
//    the pointwise statement after it as its epilogue (GemmEpilogue.cpp);
//  - before a `!` reduction whose ranges miss elements of its LHS, a kernel
//    that fills the LHS with the reduction's identity;
//  - every run of other statements between them, whose isl schedule
//    (poly::mapSchedule) gives its kernels; a statement of
//    DefLoweringState::runStarts starts a new run, and so does one that
//    reads what its run wrote through a subscript with `%`.
//
// A run is scheduled with the fusion strategy of the options and, where isl
// cannot map that, without fusion. TC reads a reduction's own LHS on its
// right-hand side as it was before the statement, which the lowering keeps
// only where one reduction loop holds nothing but the update (its
// accumulator is stored after the loop). Where the schedule fuses more into
// that loop, the reduction reads a snapshot instead (snapshotSelfReads,
// which adds statements to the run) and the run is scheduled again.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/Sequence.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

bool lowering::isConvGemm(DefLoweringState &state, const StmtContext &stmt) {
  const LoweringOptions &options = state.options;
  state.context.scope = stmt.scope;
  return options.matchBlas && options.convAsGemm.value_or(true) &&
         lowerAsConvGemm(state.context, stmt, /*dryRun=*/true,
                         /*force=*/options.convAsGemm.has_value());
}

namespace {

/// Records in the knobs used whether a statement is convolution-like
/// (tc.conv_gemm) and whether the default lowers it to gemms.
void noteConvGemmKnob(DefLoweringState &state) {
  DefContext &context = state.context;
  for (const StmtContext &stmt : state.stmts) {
    context.scope = stmt.scope;
    if (state.options.matchBlas &&
        lowerAsConvGemm(context, stmt, /*dryRun=*/true, /*force=*/true))
      context.knobsUsed.convGemm = true;
    if (isConvGemm(state, stmt))
      context.knobsUsed.convGemmDefault = true;
  }
}

} // namespace

/// A contraction of two tensors with a gemm or gemv form, or a convolution
/// lowered to gemms. Memory-bound BLAS shapes (sum, hadamard, axpby, ger)
/// gain more from fusion with their neighbours in the schedule.
bool lowering::isBlasStatement(DefLoweringState &state,
                               const StmtContext &stmt) {
  if (!state.options.matchBlas || stmt.stmt.getReductionVars().empty())
    return false;
  state.context.scope = stmt.scope;
  llvm::StringSet<> reads;
  collectReads(stmt, reads);
  return reads.size() >= 2 &&
         (lowerAsBlas(state.context, stmt, /*dryRun=*/true) ||
          isConvGemm(state, stmt));
}

namespace {

/// Whether \p stmt is a `!` reduction whose ranges miss elements of its
/// LHS tensor: `!` assigns the identity to every element first.
bool needsIdentityFill(DefContext &context, const StmtContext &stmt) {
  if (!stmt.stmt.hasInit() || stmt.stmt.getReduction() == ReductionKind::None)
    return false;
  context.scope = stmt.scope;
  const TensorBinding *lhs = context.lookup(stmt.stmt.getLhs().name);
  if (!lhs)
    return false;
  for (unsigned d = 0; d < lhs->shape.size(); ++d) {
    const IndexRange *range = stmt.lookup(stmt.stmt.getIndices()[d].name);
    if (!range || range->lo > lhs->lowerBounds[d] ||
        range->hi < lhs->lowerBounds[d] + lhs->shape[d])
      return true;
  }
  return false;
}

/// Adds to \p unsafeSelfReads the reductions of \p stmts that read their
/// own LHS but whose update is not alone in its reduction loop in
/// \p schedule.
void findUnsafeSelfReads(
    llvm::ArrayRef<StmtContext> stmts,
    llvm::ArrayRef<poly::ScheduledStatement> scheduled,
    const poly::MappedSchedule &schedule,
    llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafeSelfReads) {
  llvm::SmallVector<bool, 8> readsOwnLhs;
  for (const poly::ScheduledStatement &stmt : scheduled)
    readsOwnLhs.push_back(
        stmt.reduction &&
        llvm::any_of(stmt.reads, [&](const poly::TensorAccess &access) {
          return access.tensor == stmt.lhsTensor;
        }));
  std::function<void(const poly::AstNode &, const poly::AstNode *)> check =
      [&](const poly::AstNode &node, const poly::AstNode *parent) {
        if (node.kind == poly::AstNode::Kind::Instance) {
          bool alone = stmts[node.statement].ranges.size() ==
                           stmts[node.statement].stmt.getIndices().size() + 1 &&
                       parent && parent->kind == poly::AstNode::Kind::For &&
                       parent->reduction && parent->children.size() == 1;
          if (!node.init && readsOwnLhs[node.statement] && !alone)
            unsafeSelfReads.insert(&stmts[node.statement].stmt);
          return;
        }
        for (const poly::AstNode &child : node.children)
          check(child, &node);
        for (const poly::AstNode &child : node.elseChildren)
          check(child, &node);
      };
  for (const poly::MappedKernel &kernel : schedule.kernels)
    check(kernel.root, nullptr);
}

/// Maps the schedule of the statements of \p segment (a run), with the
/// fusion strategy of the options and, where isl cannot map that, without
/// fusion; reductions that read their own LHS where the schedule fuses
/// their loop read a snapshot instead.
LogicalResult mapRun(DefLoweringState &state, Segment &segment) {
  std::string reason;
  for (poly::FusionStrategy fusion :
       {state.options.fusion, poly::FusionStrategy::None}) {
    // Each round that fails on reductions reading their own LHS rewrites
    // those, which then read a copy: the next round cannot fail on them.
    for (;;) {
      llvm::SmallPtrSet<const ComprehensionStmt *, 2> unsafe;
      llvm::Expected<poly::MappedSchedule> schedule =
          scheduleRun(state, segment.stmts, fusion, unsafe);
      if (schedule) {
        segment.schedule = std::move(*schedule);
        segment.fusion = fusion;
        return success();
      }
      reason = llvm::toString(schedule.takeError());
      if (unsafe.empty())
        break;
      auto isUnsafe = [&](const ComprehensionStmt &stmt) {
        return unsafe.contains(&stmt);
      };
      if (failed(snapshotSelfReads(state.context, segment.stmts,
                                   state.rewritten, state.result, isUnsafe)))
        return failure();
    }
    if (fusion == poly::FusionStrategy::None)
      break;
  }
  return state.context.diags.emitError(segment.stmts.front().stmt.getLoc())
         << "compiler limitation: the statements from here on have no isl "
            "schedule the lowering can use: "
         << reason;
}

} // namespace

llvm::Expected<poly::MappedSchedule> lowering::scheduleRun(
    DefLoweringState &state, llvm::ArrayRef<StmtContext> stmts,
    poly::FusionStrategy fusion,
    llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafeSelfReads) {
  DefContext &context = state.context;
  const LoweringOptions &options = state.options;
  llvm::SmallVector<poly::ScheduledStatement, 4> scheduled;
  for (const StmtContext &stmt : stmts) {
    context.scope = stmt.scope;
    scheduled.push_back(toScheduled(context, stmt));
  }
  poly::ScheduleOptions scheduleOptions;
  scheduleOptions.fusion = fusion;
  scheduleOptions.tileSizes.assign(options.tileSizes.begin(),
                                   options.tileSizes.end());
  scheduleOptions.groupWork = context.groupWork;
  scheduleOptions.innerMapping = options.innerMapping;
  scheduleOptions.vectorRows = options.vectorRows;
  scheduleOptions.vectorRun = options.vectorRun;
  scheduleOptions.minParallelPoints = options.minParallelPoints;
  scheduleOptions.mapInnermostMembers = options.mapInnermostMembers;
  scheduleOptions.shareTrailingKernels = options.shareTrailingKernels;
  scheduleOptions.unfuseStrides = options.unfuseStrides;
  llvm::Expected<poly::MappedSchedule> schedule =
      poly::mapSchedule({}, scheduled, scheduleOptions);
  if (!schedule)
    return schedule;
  findUnsafeSelfReads(stmts, scheduled, *schedule, unsafeSelfReads);
  if (!unsafeSelfReads.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a reduction that reads its own LHS is not alone in its reduction "
        "loop");
  return schedule;
}

namespace {

/// Whether a subscript of \p read takes a remainder.
bool readsThroughRemainder(const ApplyExpr &read) {
  bool remainder = false;
  for (const auto &subscript : read.getArgs())
    walk<BinaryExpr>(*subscript, [&](const BinaryExpr &binary) {
      remainder |= binary.getOp() == BinaryOp::Mod;
    });
  return remainder;
}

/// Whether \p stmt reads, through a subscript that takes a remainder, a
/// tensor that a statement of \p run writes: the gather of a strided
/// convolution's data gradient from its phases (GradConv.cpp). With the
/// convolution as loops in the same run, isl's scheduler spent unbounded
/// time on such dependences at one size in three (integer cuts in isl_tab
/// that its operation quota does not count); in a run of its own the
/// gather depends on nothing. Reads through a quotient alone (a pooling's
/// gradient, `d_O(n, c, h / 2, w / 2)`) schedule fine and stay fused.
bool readsRunThroughRemainder(DefContext &context, const StmtContext &stmt,
                              const Segment &run) {
  llvm::SmallPtrSet<const TensorBinding *, 4> written;
  for (const StmtContext &earlier : run.stmts) {
    context.scope = earlier.scope;
    written.insert(context.lookup(earlier.stmt.getLhs().name));
  }
  context.scope = stmt.scope;
  bool found = false;
  auto visit = [&](const Expr &expr) {
    walk<ApplyExpr>(expr, [&](const ApplyExpr &apply) {
      found |= apply.isTensorRead() && readsThroughRemainder(apply) &&
               written.contains(context.lookup(apply.getCallee().name));
    });
  };
  visit(stmt.stmt.getRhs());
  for (const WhereClause &where : stmt.stmt.getWheres())
    if (where.getKind() != WhereClause::Kind::Range)
      visit(where.getValue());
  return found;
}

} // namespace

LogicalResult lowering::segmentStatements(DefLoweringState &state) {
  noteConvGemmKnob(state);
  std::deque<Segment> &segments = state.segments;
  for (const StmtContext &stmt : state.stmts) {
    bool fill = needsIdentityFill(state.context, stmt);
    bool blas = isBlasStatement(state, stmt);
    if (fill)
      segments.emplace_back(Segment::Kind::IdentityFill, stmt);
    if (blas) {
      segments.emplace_back(Segment::Kind::Blas, stmt);
      continue;
    }
    if (!fill && !segments.empty() &&
        segments.back().kind == Segment::Kind::Blas &&
        segments.back().stmts.size() == 1 &&
        joinsGemmLaunch(state, segments.back().stmts.front(), stmt)) {
      segments.back().stmts.push_back(stmt);
      continue;
    }
    if (segments.empty() || segments.back().kind != Segment::Kind::Mapped ||
        state.runStarts.contains(&stmt.stmt) ||
        readsRunThroughRemainder(state.context, stmt, segments.back()))
      segments.emplace_back(Segment::Kind::Mapped,
                            llvm::ArrayRef<StmtContext>());
    segments.back().stmts.push_back(stmt);
  }
  state.stmts.clear();
  for (Segment &segment : segments) {
    if (segment.kind != Segment::Kind::Mapped)
      continue;
    for (const Segment &other : segments)
      if (&other != &segment)
        collectLaunchTensors(
            other.stmts,
            llvm::to_vector(llvm::seq<unsigned>(0, other.stmts.size())),
            segment.touchedElsewhere);
    if (failed(mapRun(state, segment)))
      return failure();
  }
  return success();
}
