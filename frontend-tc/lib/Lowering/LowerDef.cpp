//===- LowerDef.cpp - Lowering of one TC def to one function --------------===//
#include "DefLowering.h"
#include "ExprLowering.h"

#include "comprehend/tc/ExprVisitor.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/TimeProfiler.h"

#include <deque>
#include <functional>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

const ir::Type *lowering::getIrType(ir::Context &ctx, ScalarType type) {
  if (std::optional<ir::ScalarKind> kind = toIrScalarKind(type))
    return ir::ScalarType::get(ctx, *kind);
  return ir::BoolType::get(ctx);
}

const ir::MemRefType *lowering::getMemRefType(ir::Context &ctx,
                                              ir::ScalarKind kind,
                                              llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> reversed(shape.rbegin(), shape.rend());
  return ir::MemRefType::get(ctx, kind, reversed);
}

void lowering::collectReads(const StmtContext &stmt, llvm::StringSet<> &reads) {
  llvm::StringSet<> names;
  auto collect = [&](const Expr &, llvm::StringRef tensor) {
    names.insert(tensor);
  };
  forEachTensorRead(stmt.stmt.getRhs(), collect, /*throughLets=*/true);
  for (const WhereClause &where : stmt.stmt.getWheres())
    if (where.getKind() != WhereClause::Kind::Range)
      forEachTensorRead(where.getValue(), collect, /*throughLets=*/true);
  for (const auto &entry : names)
    reads.insert(stmt.scope ? stmt.scope->resolve(entry.first())
                            : entry.first());
}

void lowering::collectKernelStatements(
    const poly::AstNode &root, llvm::SmallVectorImpl<unsigned> &statements) {
  if (root.kind == poly::AstNode::Kind::Instance &&
      !llvm::is_contained(statements, root.statement))
    statements.push_back(root.statement);
  for (const poly::AstNode &child : root.children)
    collectKernelStatements(child, statements);
  for (const poly::AstNode &child : root.elseChildren)
    collectKernelStatements(child, statements);
}

void lowering::collectLaunchTensors(llvm::ArrayRef<StmtContext> stmts,
                                    llvm::ArrayRef<unsigned> statements,
                                    llvm::StringSet<> &tensors) {
  for (unsigned index : statements) {
    const StmtContext &stmt = stmts[index];
    collectReads(stmt, tensors);
    llvm::StringRef lhs = stmt.stmt.getLhs().name;
    tensors.insert(stmt.scope ? stmt.scope->resolve(lhs) : lhs);
  }
}

namespace {

/// The renames of \p scope as (callee or temporary name, def name) pairs,
/// sorted: a StringMap's order is no order.
llvm::SmallVector<std::pair<std::string, std::string>, 1>
getSortedRenames(const CallScope &scope) {
  llvm::SmallVector<std::pair<std::string, std::string>, 1> renames;
  for (const auto &entry : scope.tensors)
    renames.emplace_back(entry.first().str(), entry.second);
  llvm::sort(renames);
  return renames;
}

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
  /// The statements; for a run, after the rewrites of DefLowerer::mapRun.
  llvm::SmallVector<StmtContext, 4> stmts;
  /// For a run: the tensors that statements of other segments touch, and
  /// the schedule of its statements.
  llvm::StringSet<> touchedElsewhere;
  std::optional<poly::MappedSchedule> schedule;
  poly::FusionStrategy fusion = poly::FusionStrategy::Max;

  Segment(Kind kind, llvm::ArrayRef<StmtContext> stmts)
      : kind(kind), stmts(stmts.begin(), stmts.end()) {}

  size_t getNumKernels() const {
    return schedule ? schedule->kernels.size() : 1;
  }
};

/// Lowers one def; the state of DefContext plus the def-level steps.
class DefLowerer {
public:
  /// \p ranges: the def's ranges at \p sizes, when the caller inferred
  /// them; null infers them here.
  DefLowerer(const Program &program, const Def &def,
             const llvm::StringMap<int64_t> &sizes, ir::Program &out,
             DiagnosticEngine &diags, const LoweringOptions &options,
             const DefRanges *ranges = nullptr)
      : program(program), def(def), sizes(sizes), out(out), diags(diags),
        options(options), givenRanges(ranges),
        builder(out.getContext()), context{builder, diags, sizes, {}} {}

  std::optional<LoweredDef> run();
  LogicalResult printSchedule(llvm::raw_ostream &os);

private:
  /// Checks the options and sizes, infers the ranges, declares the tensors
  /// and collects the statements (calls inlined).
  LogicalResult prepare(LoweredDef &result,
                        llvm::SmallVectorImpl<StmtContext> &stmts);
  /// Splits \p stmts into segments (Segment) and maps the schedule of each
  /// run of statements that no BLAS instruction takes.
  LogicalResult planSegments(llvm::ArrayRef<StmtContext> stmts,
                             LoweredDef &result, std::deque<Segment> &segments);
  /// Maps the schedule of the statements of \p segment (a run), with the
  /// fusion strategy of the options and, where isl cannot map that, without
  /// fusion. A reduction that reads its own LHS where the schedule fuses
  /// its loop reads a copy instead (snapshotSelfReads), which adds
  /// statements to the run.
  LogicalResult mapRun(Segment &segment, LoweredDef &result);
  /// The schedule of \p stmts (one run) with fusion strategy \p fusion.
  /// A reduction that reads its own LHS but is not alone in its reduction
  /// loop is an error, with the statement added to \p unsafeSelfReads.
  llvm::Expected<poly::MappedSchedule> scheduleRun(
      llvm::ArrayRef<StmtContext> stmts, poly::FusionStrategy fusion,
      llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafeSelfReads);
  /// The temporaries of kernel \p index of \p segment's schedule that can
  /// live in local memory of \p bytes (findPromotedTemporaries), except
  /// those that statements outside the segment touch.
  llvm::SmallVector<PromotedTensor, 2>
  promoted(const Segment &segment, llvm::ArrayRef<poly::MappedKernel> kernels,
           unsigned index, int64_t bytes);
  /// Creates the function of one launch whose statements are \p
  /// statements, with a parameter per tensor they touch except \p locals.
  ir::Function &createKernel(llvm::ArrayRef<unsigned> statements,
                             llvm::ArrayRef<StmtContext> stmts,
                             const llvm::StringSet<> &locals,
                             llvm::StringRef name, LoweredDef &result);
  /// Allocates the local-memory slice \p sliceShape (TC order) of
  /// temporary \p name at the insertion point and binds the tensor to it.
  TensorBinding *createLocalTemporary(llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> sliceShape);
  /// The mapped schedule of \p segment's statements (scheduleRun), with the
  /// temporaries that stay in global memory and can live in an output's
  /// memory renamed through \p sharing: the segment's statements are then
  /// the renamed ones.
  llvm::Expected<poly::MappedSchedule>
  mapSharingOutputs(Segment &segment, poly::FusionStrategy fusion,
                    CallScope &sharing,
                    llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafe);
  /// Lowers the kernels of \p segment into \p result; \p numKernels is
  /// the def's number of kernels (one keeps the def's name).
  LogicalResult lowerSegment(const Segment &segment, size_t numKernels,
                             LoweredDef &result);
  /// The name of the def's next kernel out of \p numKernels.
  std::string kernelName(size_t numKernels, const LoweredDef &result) const;
  /// Removes the temporaries without memory of their own (in local memory
  /// or in an output's) from the parameter table.
  LogicalResult dropUnpassedTemporaries(LoweredDef &result);
  /// Records in the knobs used whether a statement is convolution-like
  /// (tc.conv_gemm) and whether the default lowers it to gemms.
  void noteConvGemmKnob(llvm::ArrayRef<StmtContext> stmts);
  /// Whether \p stmt is lowered to gemms over views (lowerAsConvGemm).
  bool isConvGemm(const StmtContext &stmt) {
    context.scope = stmt.scope;
    return options.matchBlas && options.convAsGemm.value_or(true) &&
           lowerAsConvGemm(context, stmt, /*dryRun=*/true,
                           /*force=*/options.convAsGemm.has_value());
  }
  /// Whether \p stmt is lowered to BLAS instructions in a kernel of its
  /// own: a contraction of two tensors with a gemm or gemv form, or a
  /// convolution lowered to gemms. Memory-bound BLAS shapes (sum, hadamard,
  /// axpby, ger) gain more from fusion with their neighbours in the
  /// schedule.
  bool isBlasStatement(const StmtContext &stmt) {
    if (!options.matchBlas || stmt.stmt.getReductionVars().empty())
      return false;
    context.scope = stmt.scope;
    llvm::StringSet<> reads;
    collectReads(stmt, reads);
    return reads.size() >= 2 &&
           (lowerAsBlas(context, stmt, /*dryRun=*/true) || isConvGemm(stmt));
  }
  /// Whether \p stmt is a `!` reduction whose ranges miss elements of its
  /// LHS tensor: `!` assigns the identity to every element first.
  bool needsIdentityFill(const StmtContext &stmt) {
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
  /// Lowers an identity-fill segment (Segment::Kind::IdentityFill).
  void lowerIdentityFill(const StmtContext &stmt, llvm::StringRef name,
                         LoweredDef &result);
  /// Rejects a statement whose LHS ranges reach outside its tensor's shape.
  LogicalResult checkWritesInShape(llvm::ArrayRef<StmtContext> stmts);
  LogicalResult checkOptions();
  LogicalResult checkSizes();
  LogicalResult declareTensors(const DefRanges &ranges, LoweredDef &result);
  std::optional<StmtContext> getStmtContext(const ComprehensionStmt &stmt,
                                            const StmtRanges &ranges,
                                            const CallScope *scope);
  LogicalResult collectStatements(const DefRanges &ranges,
                                  const CallScope *scope,
                                  llvm::SmallVectorImpl<StmtContext> &stmts,
                                  LoweredDef &result);
  LogicalResult inlineCall(const CallStmt &call, const CallScope *parent,
                           llvm::SmallVectorImpl<StmtContext> &stmts,
                           LoweredDef &result);

  const Program &program;
  const Def &def;
  const llvm::StringMap<int64_t> &sizes;
  ir::Program &out;
  DiagnosticEngine &diags;
  const LoweringOptions &options;
  const DefRanges *givenRanges;
  ir::Builder builder;
  DefContext context;
  /// The scopes of inlined calls and the names of the callees' temporaries
  /// (stable addresses: statements and tensor keys refer to them).
  std::deque<CallScope> scopes;
  std::deque<std::string> temporaryNames;
  RewrittenStatements rewritten;
  /// The temporaries that some launch holds in local memory, and those
  /// that live in an output's memory: no parameters.
  llvm::StringSet<> temporariesNotPassed;
};

} // namespace

LogicalResult DefLowerer::checkSizes() {
  bool ok = true;
  for (const std::string &sizeVar : def.getSizeVars())
    if (!sizes.count(sizeVar)) {
      diags.emitError(def.getName().loc)
          << "size variable '" << sizeVar << "' of '" << def.getName().name
          << "' has no value, and the def cannot be lowered without one";
      ok = false;
    }
  return success(ok);
}

LogicalResult DefLowerer::declareTensors(const DefRanges &ranges,
                                         LoweredDef &result) {
  bool ok = true;
  for (const auto &[name, info] : def.getTensors()) {
    std::optional<ir::ScalarKind> kind = toIrScalarKind(info.type);
    if (!kind) {
      diags.emitError(info.loc)
          << "tensor '" << name << "' of type '" << getSpelling(info.type)
          << "' cannot be lowered; memrefs of bool do not exist";
      ok = false;
      continue;
    }
    LoweredTensor tensor;
    tensor.name = name.str();
    tensor.role = info.role;
    tensor.type = info.type;
    auto shapeIt = ranges.shapes.find(name);
    if (shapeIt == ranges.shapes.end()) {
      diags.emitError(info.loc)
          << "the shape of tensor '" << name << "' is unknown";
      ok = false;
      continue;
    }
    const poly::TensorShape &shape = shapeIt->second;
    for (unsigned d = 0; d < info.rank; ++d) {
      std::optional<int64_t> extent =
          d < shape.extent.size() ? shape.extent[d] : std::nullopt;
      std::optional<int64_t> lo = d < shape.lo.size() ? shape.lo[d] : 0;
      if (!extent || !lo || *extent <= 0) {
        diags.emitError(info.loc)
            << "dimension " << d << " of tensor '" << name
            << "' has no positive constant extent with the given sizes";
        ok = false;
        break;
      }
      tensor.shape.push_back(*extent);
      tensor.lowerBounds.push_back(*lo);
    }
    if (!ok)
      continue;
    TensorBinding binding;
    binding.type = info.type;
    binding.kind = *kind;
    binding.temporary = info.role == TensorInfo::Role::Temporary;
    binding.shape = tensor.shape;
    binding.lowerBounds = tensor.lowerBounds;
    context.tensors.insert({name, binding});
    result.tensors.push_back(std::move(tensor));
  }
  return success(ok);
}

ir::Function &DefLowerer::createKernel(llvm::ArrayRef<unsigned> statements,
                                       llvm::ArrayRef<StmtContext> stmts,
                                       const llvm::StringSet<> &locals,
                                       llvm::StringRef name,
                                       LoweredDef &result) {
  // The parameters are the tensors the launch touches, in the def's order,
  // except its local temporaries.
  llvm::StringSet<> used;
  lowering::collectLaunchTensors(stmts, statements, used);
  for (const auto &local : locals)
    used.erase(local.first());
  llvm::SmallVector<ir::FunctionParam, 8> params;
  LoweredKernel &kernel = result.kernels.emplace_back();
  for (unsigned i = 0; i < context.tensors.size(); ++i) {
    auto &[tensorName, binding] = context.tensors.begin()[i];
    binding.memref = nullptr;
    binding.localFixedDims = 0;
    if (!used.contains(tensorName))
      continue;
    params.push_back({tensorName, getMemRefType(out.getContext(), binding.kind,
                                                binding.shape)});
    kernel.tensorIndices.push_back(i);
  }
  kernel.function = &builder.createFunction(out, name, params, def.getLoc());
  for (unsigned p = 0; p < params.size(); ++p)
    context.tensors.begin()[kernel.tensorIndices[p]].second.memref =
        kernel.function->getParameter(p);
  return *kernel.function;
}

void DefLowerer::lowerIdentityFill(const StmtContext &stmt,
                                   llvm::StringRef name, LoweredDef &result) {
  context.scope = stmt.scope;
  llvm::StringRef tensor = context.resolve(stmt.stmt.getLhs().name);
  auto entry = context.tensors.find(tensor);
  const TensorBinding &binding = entry->second;
  Location loc = stmt.stmt.getLoc();
  LoweredKernel &kernel = result.kernels.emplace_back();
  kernel.tensorIndices.push_back(entry - context.tensors.begin());
  const ir::MemRefType *type =
      getMemRefType(out.getContext(), binding.kind, binding.shape);
  kernel.function =
      &builder.createFunction(out, name, {{tensor.str(), type}}, loc);
  ir::Value *memref = kernel.function->getParameter(0);
  // Every element, in the memref's own order: no subscript mapping needed.
  llvm::SmallVector<ir::Value *, 4> from, to;
  for (int64_t extent : type->getShape()) {
    from.push_back(builder.createIndexConstant(loc, 0));
    to.push_back(builder.createIndexConstant(loc, extent));
  }
  auto foreach = builder.create<ir::ForeachInst>(loc, from, to);
  builder.setInsertionPointToEnd(foreach.getBody());
  ExprLowerer lowerer(context, stmt);
  ir::Value *identity = lowerer.constant(
      loc, binding.type, getIdentity(stmt.stmt.getReduction(), binding.type));
  llvm::SmallVector<ir::Value *, 4> indices;
  for (unsigned d = 0; d < from.size(); ++d)
    indices.push_back(foreach.getBody().getParameter(d));
  builder.create<ir::StoreInst>(loc, identity, memref, indices);
}

TensorBinding *
DefLowerer::createLocalTemporary(llvm::StringRef name,
                                 llvm::ArrayRef<int64_t> sliceShape) {
  TensorBinding &binding = context.tensors.find(name)->second;
  llvm::SmallVector<int64_t, 4> reversed(sliceShape.rbegin(),
                                         sliceShape.rend());
  const auto *type = ir::MemRefType::get(out.getContext(), binding.kind,
                                         reversed, {}, ir::AddressSpace::Local);
  binding.memref =
      builder.create<ir::AllocaInst>(def.getLoc(), type)->getResult(0);
  binding.memref->setName(name);
  temporariesNotPassed.insert(name);
  return &binding;
}

std::optional<StmtContext>
DefLowerer::getStmtContext(const ComprehensionStmt &stmt,
                           const StmtRanges &ranges, const CallScope *scope) {
  StmtContext result{stmt, {}, scope};
  for (const std::string &var : stmt.getIndexVars()) {
    const poly::VarRange *range = ranges.ranges.lookup(var);
    if (!range || !range->lo || !range->hi) {
      diags.emitError(stmt.getLoc())
          << "the range of index '" << var << "' is not constant";
      return std::nullopt;
    }
    result.ranges.push_back({var, *range->lo, *range->hi});
  }
  return result;
}

LogicalResult DefLowerer::checkOptions() {
  bool ok = true;
  auto check = [&](llvm::StringRef name, int64_t value) {
    if (value >= 0)
      return;
    diags.emitError(def.getName().loc)
        << "lowering option '" << name
        << "' must be positive (or 0 for the default), found " << value;
    ok = false;
  };
  check("block_rows", options.blockRows);
  check("block_cols", options.blockCols);
  check("group_work", options.groupWork);
  check("max_subgroups", options.maxSubgroups);
  context.blockRows = options.blockRows;
  context.contiguousPartials = options.vectorRows > 0;
  if (options.maxSubgroups > 0)
    context.maxSubgroups = options.maxSubgroups;
  context.blockCols = options.blockCols;
  context.minBlockGroups = std::max<int64_t>(0, options.minBlockGroups);
  if (options.groupWork > 0)
    context.groupWork = options.groupWork;
  return success(ok);
}

LogicalResult
DefLowerer::collectStatements(const DefRanges &ranges, const CallScope *scope,
                              llvm::SmallVectorImpl<StmtContext> &stmts,
                              LoweredDef &result) {
  for (const StmtRanges &stmtRanges : ranges.statements) {
    if (const auto *call = llvm::dyn_cast<CallStmt>(stmtRanges.stmt)) {
      if (failed(inlineCall(*call, scope, stmts, result)))
        return failure();
      continue;
    }
    const auto &stmt = llvm::cast<ComprehensionStmt>(*stmtRanges.stmt);
    std::optional<StmtContext> stmtContext =
        getStmtContext(stmt, stmtRanges, scope);
    if (!stmtContext)
      return failure();
    stmts.push_back(std::move(*stmtContext));
  }
  return success();
}

LogicalResult DefLowerer::inlineCall(const CallStmt &call,
                                     const CallScope *parent,
                                     llvm::SmallVectorImpl<StmtContext> &stmts,
                                     LoweredDef &result) {
  const Def *callee = call.getCalleeDef();
  if (!callee)
    return diags.emitError(call.getLoc())
           << "call of unknown def '" << call.getCallee().name << "'";
  // The callee's sizes are the extents of the arguments.
  context.scope = parent;
  CallScope &scope = scopes.emplace_back();
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee->getInputs())) {
    const TensorBinding *binding = context.lookup(arg.name);
    if (!binding || binding->shape.size() != param.type->dims.size())
      return diags.emitError(arg.loc)
             << "argument '" << arg.name << "' of the call of '"
             << callee->getName().name << "' has no shape of rank "
             << param.type->dims.size();
    if (llvm::any_of(binding->lowerBounds, [](int64_t lo) { return lo; }))
      return diags.emitError(arg.loc)
             << "argument '" << arg.name
             << "' does not start at index 0 and cannot be passed to '"
             << callee->getName().name << "'";
    for (auto [dim, extent] : llvm::zip(param.type->dims, binding->shape))
      if (!dim.sizeVar.empty())
        scope.sizes[dim.sizeVar] = extent;
    scope.tensors[param.name.name] = context.resolve(arg.name).str();
  }
  for (auto [res, output] : llvm::zip(call.getResults(), callee->getOutputs()))
    scope.tensors[output.name.name] = context.resolve(res.name).str();

  std::optional<DefRanges> ranges =
      inferRanges(program, *callee, scope.sizes, diags);
  if (!ranges)
    return diags.emitError(call.getLoc())
           << "the ranges of '" << callee->getName().name
           << "' cannot be inferred for this call";
  // The callee's outputs must have the shapes the caller gave its results;
  // its temporaries become temporaries of the def, named <callee>_<n>_<name>.
  for (const auto &[name, info] : callee->getTensors()) {
    if (info.role == TensorInfo::Role::Input)
      continue;
    const poly::TensorShape &shape = ranges->shapes[name];
    LoweredTensor tensor;
    tensor.role = TensorInfo::Role::Temporary;
    tensor.type = info.type;
    for (unsigned d = 0; d < info.rank; ++d) {
      std::optional<int64_t> extent =
          d < shape.extent.size() ? shape.extent[d] : std::nullopt;
      std::optional<int64_t> lo = d < shape.lo.size() ? shape.lo[d] : 0;
      if (!extent || !lo || *extent <= 0)
        return diags.emitError(info.loc)
               << "dimension " << d << " of tensor '" << name << "' of '"
               << callee->getName().name
               << "' has no positive constant extent in this call";
      tensor.shape.push_back(*extent);
      tensor.lowerBounds.push_back(*lo);
    }
    if (info.role == TensorInfo::Role::Output) {
      const TensorBinding *binding = context.lookup(scope.tensors[name]);
      if (!binding || binding->shape != tensor.shape ||
          binding->lowerBounds != tensor.lowerBounds)
        return diags.emitError(call.getLoc())
               << "output '" << name << "' of '" << callee->getName().name
               << "' does not have the shape of '" << scope.tensors[name]
               << "' in this call";
      continue;
    }
    std::optional<ir::ScalarKind> kind = toIrScalarKind(info.type);
    if (!kind)
      return diags.emitError(info.loc)
             << "tensor '" << name << "' of type '" << getSpelling(info.type)
             << "' cannot be lowered; memrefs of bool do not exist";
    // Identifiers of the IR: letters, digits and '_'; a clash with a name
    // of the def gets more underscores.
    std::string candidate = (callee->getName().name + "_" +
                             llvm::Twine(scopes.size() - 1) + "_" + name)
                                .str();
    while (context.tensors.count(candidate) || def.lookupTensor(candidate))
      candidate += "_";
    llvm::StringRef unique = temporaryNames.emplace_back(std::move(candidate));
    scope.tensors[name] = unique.str();
    TensorBinding binding;
    binding.type = info.type;
    binding.kind = *kind;
    binding.temporary = true;
    binding.shape = tensor.shape;
    binding.lowerBounds = tensor.lowerBounds;
    context.tensors.insert({unique, binding});
    tensor.name = unique.str();
    result.tensors.push_back(std::move(tensor));
  }
  return collectStatements(*ranges, &scope, stmts, result);
}

LogicalResult DefLowerer::prepare(LoweredDef &result,
                                  llvm::SmallVectorImpl<StmtContext> &stmts) {
  if (failed(checkOptions()) || failed(checkSizes()))
    return failure();
  std::optional<DefRanges> inferred;
  if (!givenRanges)
    inferred = inferRanges(program, def, sizes, diags);
  const DefRanges *ranges = givenRanges ? givenRanges
                            : inferred  ? &*inferred
                                        : nullptr;
  if (!ranges)
    return failure();
  if (failed(declareTensors(*ranges, result)))
    return failure();
  if (failed(collectStatements(*ranges, /*scope=*/nullptr, stmts, result)) ||
      failed(checkWritesInShape(stmts)))
    return failure();
  if (failed(snapshotSelfReads(context, stmts, rewritten, result)))
    return failure();
  hoistToTemporaries(context, stmts, rewritten, result);
  return success();
}

LogicalResult
DefLowerer::checkWritesInShape(llvm::ArrayRef<StmtContext> stmts) {
  // A tensor's shape comes from the last statement that writes it (TC's
  // rule); an earlier statement whose ranges reach further would write out
  // of bounds. The evaluator rejects such a def too.
  bool ok = true;
  for (const StmtContext &stmt : stmts) {
    context.scope = stmt.scope;
    const Ident &lhsName = stmt.stmt.getLhs();
    const TensorBinding *lhs = context.lookup(lhsName.name);
    if (!lhs)
      continue;
    llvm::ArrayRef<Ident> indices = stmt.stmt.getIndices();
    for (unsigned d = 0; d < indices.size() && d < lhs->shape.size(); ++d) {
      const IndexRange *range = stmt.lookup(indices[d].name);
      int64_t lo = lhs->lowerBounds[d], hi = lo + lhs->shape[d];
      if (!range || range->hi <= range->lo ||
          (range->lo >= lo && range->hi <= hi))
        continue;
      diags.emitError(indices[d].loc)
          << "the statement writes '" << lhsName.name
          << "' outside the shape inferred for it: '" << indices[d].name
          << "' ranges over [" << range->lo << ", " << range->hi
          << ") but dimension " << d << " of '" << lhsName.name << "' is ["
          << lo << ", " << hi << ") (from the last statement that writes it)";
      ok = false;
      break;
    }
  }
  return success(ok);
}

llvm::Expected<poly::MappedSchedule> DefLowerer::scheduleRun(
    llvm::ArrayRef<StmtContext> stmts, poly::FusionStrategy fusion,
    llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafeSelfReads) {
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
  llvm::Expected<poly::MappedSchedule> schedule =
      poly::mapSchedule({}, scheduled, scheduleOptions);
  if (!schedule)
    return schedule;
  // TC reads a reduction's own LHS on its right-hand side as it was before
  // the statement. The lowering keeps that only where one reduction loop
  // holds nothing but the update (its accumulator is stored after the
  // loop); elsewhere each iteration would see the earlier ones' updates.
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
  for (const poly::MappedKernel &kernel : schedule->kernels)
    check(kernel.root, nullptr);
  if (!unsafeSelfReads.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a reduction that reads its own LHS is not alone in its reduction "
        "loop");
  return schedule;
}

llvm::SmallVector<PromotedTensor, 2>
DefLowerer::promoted(const Segment &segment,
                     llvm::ArrayRef<poly::MappedKernel> kernels, unsigned index,
                     int64_t bytes) {
  // What the kernel's parallel reductions keep in local memory is not
  // there for temporaries.
  bytes -= getReductionBufferBytes(context, segment.stmts, kernels[index]);
  llvm::SmallVector<PromotedTensor, 2> tensors =
      findPromotedTemporaries(context, segment.stmts, kernels, index, bytes);
  llvm::erase_if(tensors, [&](const PromotedTensor &tensor) {
    return segment.touchedElsewhere.contains(tensor.name);
  });
  return tensors;
}

llvm::Expected<poly::MappedSchedule> DefLowerer::mapSharingOutputs(
    Segment &segment, poly::FusionStrategy fusion, CallScope &sharing,
    llvm::SmallPtrSetImpl<const ComprehensionStmt *> &unsafe) {
  llvm::Expected<poly::MappedSchedule> schedule =
      scheduleRun(segment.stmts, fusion, unsafe);
  if (!schedule)
    return schedule;
  // Candidates: the temporaries of this run alone that no kernel of its
  // schedule promotes; hosts: the outputs no other segment touches.
  llvm::StringSet<> global;
  for (const auto &[name, binding] : context.tensors)
    if (binding.temporary && !segment.touchedElsewhere.contains(name))
      global.insert(name);
  for (unsigned index = 0; index < schedule->kernels.size(); ++index)
    for (const PromotedTensor &tensor :
         promoted(segment, schedule->kernels, index, options.localMemoryBytes))
      global.erase(tensor.name);
  sharing.tensors = findSharedOutputStorage(context, segment.stmts, global);
  llvm::SmallVector<std::string, 2> touchedHosts;
  for (const auto &entry : sharing.tensors)
    if (segment.touchedElsewhere.contains(entry.second))
      touchedHosts.push_back(entry.first().str());
  for (const std::string &temporary : touchedHosts)
    sharing.tensors.erase(temporary);
  if (sharing.tensors.empty())
    return schedule;
  sharing.sizes = sizes;
  llvm::SmallVector<StmtContext, 4> renamed;
  for (const StmtContext &stmt : segment.stmts)
    renamed.push_back(
        {stmt.stmt, stmt.ranges, stmt.scope ? stmt.scope : &sharing});
  // The renamed statements have dependences of their own: schedule them
  // again, and keep the names where they do not map.
  llvm::SmallPtrSet<const ComprehensionStmt *, 2> unsafeRenamed;
  llvm::Expected<poly::MappedSchedule> shared =
      scheduleRun(renamed, fusion, unsafeRenamed);
  if (shared) {
    segment.stmts.assign(renamed.begin(), renamed.end());
    return shared;
  }
  llvm::consumeError(shared.takeError());
  sharing.tensors.clear();
  return schedule;
}

LogicalResult DefLowerer::mapRun(Segment &segment, LoweredDef &result) {
  std::string reason;
  for (poly::FusionStrategy fusion :
       {options.fusion, poly::FusionStrategy::None}) {
    // Each round that fails on reductions reading their own LHS rewrites
    // those, which then read a copy: the next round cannot fail on them.
    for (;;) {
      llvm::SmallPtrSet<const ComprehensionStmt *, 2> unsafe;
      CallScope &sharing = scopes.emplace_back();
      llvm::Expected<poly::MappedSchedule> schedule =
          mapSharingOutputs(segment, fusion, sharing, unsafe);
      if (schedule) {
        for (auto &[temporary, output] : getSortedRenames(sharing)) {
          temporariesNotPassed.insert(temporary);
          result.storedInOutputs.emplace_back(std::move(temporary),
                                              std::move(output));
        }
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
      if (failed(snapshotSelfReads(context, segment.stmts, rewritten, result,
                                   isUnsafe)))
        return failure();
    }
    if (fusion == poly::FusionStrategy::None)
      break;
  }
  return diags.emitError(segment.stmts.front().stmt.getLoc())
         << "compiler limitation: the statements from here on have no isl "
            "schedule the lowering can use: "
         << reason;
}

LogicalResult DefLowerer::planSegments(llvm::ArrayRef<StmtContext> stmts,
                                       LoweredDef &result,
                                       std::deque<Segment> &segments) {
  for (const StmtContext &stmt : stmts) {
    bool fill = needsIdentityFill(stmt);
    bool blas = isBlasStatement(stmt);
    if (fill)
      segments.emplace_back(Segment::Kind::IdentityFill, stmt);
    if (blas) {
      segments.emplace_back(Segment::Kind::Blas, stmt);
      continue;
    }
    if (segments.empty() || segments.back().kind != Segment::Kind::Mapped)
      segments.emplace_back(Segment::Kind::Mapped,
                            llvm::ArrayRef<StmtContext>());
    segments.back().stmts.push_back(stmt);
  }
  for (Segment &segment : segments) {
    if (segment.kind != Segment::Kind::Mapped)
      continue;
    for (const Segment &other : segments)
      if (&other != &segment)
        collectLaunchTensors(
            other.stmts,
            llvm::to_vector(llvm::seq<unsigned>(0, other.stmts.size())),
            segment.touchedElsewhere);
    if (failed(mapRun(segment, result)))
      return failure();
  }
  return success();
}

std::string DefLowerer::kernelName(size_t numKernels,
                                   const LoweredDef &result) const {
  std::string name = def.getName().name.str();
  if (numKernels > 1)
    name += "_" + std::to_string(result.kernels.size());
  return name;
}

LogicalResult DefLowerer::lowerSegment(const Segment &segment,
                                       size_t numKernels, LoweredDef &result) {
  const StmtContext &first = segment.stmts.front();
  switch (segment.kind) {
  case Segment::Kind::IdentityFill:
    lowerIdentityFill(first, kernelName(numKernels, result), result);
    return success();
  case Segment::Kind::Blas:
    createKernel({0}, segment.stmts, {}, kernelName(numKernels, result),
                 result);
    context.grid = {1, 1, 1};
    context.scope = first.scope;
    if (!lowerAsBlas(context, first) &&
        !(isConvGemm(first) && lowerAsConvGemm(context, first,
                                               /*dryRun=*/false,
                                               /*force=*/true)))
      return diags.emitError(first.stmt.getLoc())
             << "compiler bug: the statement of '" << first.stmt.getLhs().name
             << "' lost its BLAS form";
    result.kernels.back().grid = context.grid;
    return success();
  case Segment::Kind::Mapped:
    break;
  }
  const poly::MappedSchedule &schedule = *segment.schedule;
  LoweringKnobUse &knobs = context.knobsUsed;
  knobs.schedule = true;
  knobs.groupWork |= schedule.usedGroupWork;
  if (schedule.usedVectorRuns) {
    knobs.vectorRun = true;
    knobs.vectorRunDefault = options.vectorRun;
  }
  bool ok = true;
  for (unsigned index = 0; index < schedule.kernels.size(); ++index) {
    llvm::SmallVector<unsigned, 8> used;
    collectKernelStatements(schedule.kernels[index].root, used);
    llvm::SmallVector<PromotedTensor, 2> local =
        promoted(segment, schedule.kernels, index, options.localMemoryBytes);
    // tc.local_temporaries matters where some temporary would go to
    // local memory under the lowering's own budget.
    if (!knobs.localTemporaries)
      knobs.localTemporaries =
          !promoted(segment, schedule.kernels, index,
                    std::max(options.localMemoryBytes,
                             LoweringOptions().localMemoryBytes))
               .empty();
    llvm::StringSet<> locals;
    for (const PromotedTensor &tensor : local)
      locals.insert(tensor.name);
    createKernel(used, segment.stmts, locals, kernelName(numKernels, result),
                 result);
    for (const PromotedTensor &tensor : local)
      createLocalTemporary(tensor.name, tensor.sliceShape)->localFixedDims =
          tensor.fixedDims;
    if (failed(lowerScheduledKernel(context, segment.stmts,
                                    schedule.kernels[index])))
      ok = false;
    result.kernels.back().grid = context.grid;
  }
  return success(ok);
}

LogicalResult DefLowerer::printSchedule(llvm::raw_ostream &os) {
  LoweredDef result;
  llvm::SmallVector<StmtContext, 4> stmts;
  std::deque<Segment> segments;
  if (failed(prepare(result, stmts)) ||
      failed(planSegments(stmts, result, segments)))
    return failure();
  for (const auto &[temporary, lhs] : result.hoisted)
    os << "# temporary '" << temporary << "' holds a subexpression of the "
       << "statement of '" << lhs << "'\n";
  for (const auto &[temporary, output] : result.storedInOutputs)
    os << "# temporary '" << temporary << "' lives in output '" << output
       << "'\n";
  unsigned kernel = 0;
  for (const Segment &segment : segments) {
    llvm::StringRef lhs = segment.stmts.front().stmt.getLhs().name;
    switch (segment.kind) {
    case Segment::Kind::IdentityFill:
      os << "# kernel " << kernel++ << ": fills '" << lhs
         << "' with the identity of its reduction\n";
      continue;
    case Segment::Kind::Blas:
      os << "# kernel " << kernel++ << ": the statement of '" << lhs
         << "' as BLAS instructions\n";
      continue;
    case Segment::Kind::Mapped:
      break;
    }
    const poly::MappedSchedule &schedule = *segment.schedule;
    os << "# schedule tree of '" << def.getName().name << "'";
    if (segments.size() > 1)
      os << " from the statement of '" << lhs << "'";
    os << " (fusion " << poly::getFusionStrategyName(segment.fusion) << ")\n"
       << schedule.scheduleTree << "\n# isl AST\n"
       << schedule.astText;
    for (const poly::MappedKernel &mapped : schedule.kernels) {
      os << "# kernel " << kernel++ << ", grid " << mapped.grid[0] << "x"
         << mapped.grid[1] << "x" << mapped.grid[2] << "\n";
      poly::print(mapped.root, os);
    }
  }
  return success();
}

std::optional<LoweredDef> DefLowerer::run() {
  llvm::TimeTraceScope scope("TC lowering");
  LoweredDef result;
  llvm::SmallVector<StmtContext, 4> stmts;
  std::deque<Segment> segments;
  if (failed(prepare(result, stmts)))
    return std::nullopt;
  noteConvGemmKnob(stmts);
  if (failed(planSegments(stmts, result, segments)))
    return std::nullopt;
  size_t numKernels = 0;
  for (const Segment &segment : segments)
    numKernels += segment.getNumKernels();
  bool ok = true;
  for (const Segment &segment : segments)
    if (failed(lowerSegment(segment, numKernels, result)))
      ok = false;
  if (!ok)
    return std::nullopt;
  result.knobs = context.knobsUsed;
  if (failed(dropUnpassedTemporaries(result)))
    return std::nullopt;
  return result;
}

void DefLowerer::noteConvGemmKnob(llvm::ArrayRef<StmtContext> stmts) {
  for (const StmtContext &stmt : stmts) {
    context.scope = stmt.scope;
    if (options.matchBlas &&
        lowerAsConvGemm(context, stmt, /*dryRun=*/true, /*force=*/true))
      context.knobsUsed.convGemm = true;
    if (isConvGemm(stmt))
      context.knobsUsed.convGemmDefault = true;
  }
}

LogicalResult DefLowerer::dropUnpassedTemporaries(LoweredDef &result) {
  // Temporaries in local memory or in an output's memory are no parameters:
  // drop them from the caller's table and renumber the kernels' references.
  // A kernel that takes one as a parameter would be launched without it.
  for (const LoweredKernel &kernel : result.kernels)
    for (unsigned index : kernel.tensorIndices)
      if (temporariesNotPassed.contains(result.tensors[index].name))
        return diags.emitError(def.getName().loc)
               << "compiler bug: temporary '" << result.tensors[index].name
               << "' has no memory of its own but a launch takes it as a "
                  "parameter";
  llvm::SmallVector<unsigned, 8> newIndex;
  llvm::SmallVector<LoweredTensor, 4> kept;
  for (LoweredTensor &tensor : result.tensors) {
    newIndex.push_back(kept.size());
    if (!temporariesNotPassed.contains(tensor.name))
      kept.push_back(std::move(tensor));
  }
  result.tensors = std::move(kept);
  for (LoweredKernel &kernel : result.kernels)
    for (unsigned &index : kernel.tensorIndices)
      index = newIndex[index];
  return success();
}

LogicalResult tc::printSchedule(const Program &program, const Def &def,
                                const llvm::StringMap<int64_t> &sizes,
                                llvm::raw_ostream &os, DiagnosticEngine &diags,
                                const LoweringOptions &options) {
  ir::Context ctx;
  ir::Program out(ctx);
  return DefLowerer(program, def, sizes, out, diags, options).printSchedule(os);
}

std::optional<LoweredDef> tc::lowerDef(const Program &program, const Def &def,
                                       const llvm::StringMap<int64_t> &sizes,
                                       ir::Program &out,
                                       DiagnosticEngine &diags,
                                       const LoweringOptions &options) {
  return DefLowerer(program, def, sizes, out, diags, options).run();
}

std::optional<LoweredDef> tc::lowerDef(const Program &program, const Def &def,
                                       const llvm::StringMap<int64_t> &sizes,
                                       const DefRanges &ranges,
                                       ir::Program &out,
                                       DiagnosticEngine &diags,
                                       const LoweringOptions &options) {
  return DefLowerer(program, def, sizes, out, diags, options, &ranges).run();
}
