//===- LowerDef.cpp - Lowering of one TC def to its kernels ---------------===//
//
// A def becomes one function per kernel launch. DefLowerer checks the
// options and sizes, infers the ranges and declares the def's tensors, runs
// the def-level passes (DefPasses.h: calls inlined, statements rewritten,
// segments scheduled, temporaries placed), then emits each segment's
// kernels: an identity fill, BLAS instructions (BlasPatterns.cpp,
// ConvAsGemm.cpp) or the kernels of an isl schedule (LowerSchedule.cpp).
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"
#include "ExprLowering.h"

#include "comprehend/tc/ExprVisitor.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/TimeProfiler.h"

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

std::optional<unsigned>
lowering::appendConcreteShape(const poly::TensorShape &shape, unsigned rank,
                              LoweredTensor &tensor) {
  for (unsigned d = 0; d < rank; ++d) {
    std::optional<int64_t> extent =
        d < shape.extent.size() ? shape.extent[d] : std::nullopt;
    std::optional<int64_t> lo = d < shape.lo.size() ? shape.lo[d] : 0;
    if (!extent || !lo || *extent <= 0)
      return d;
    tensor.shape.push_back(*extent);
    tensor.lowerBounds.push_back(*lo);
  }
  return std::nullopt;
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

/// Lowers one def: the checks, the def-level passes, and the emission of
/// the kernels of the segments they leave.
class DefLowerer {
public:
  /// \p ranges: the def's ranges at \p sizes, when the caller inferred
  /// them; null infers them here.
  DefLowerer(const Program &program, const Def &def,
             const llvm::StringMap<int64_t> &sizes, ir::Program &out,
             DiagnosticEngine &diags, const LoweringOptions &options,
             const DefRanges *ranges = nullptr)
      : def(def), out(out), diags(diags), options(options), givenRanges(ranges),
        builder(out.getContext()), context{builder, diags, sizes, {}},
        state(program, def, options, context) {}

  std::optional<LoweredDef> run();
  LogicalResult printSchedule(llvm::raw_ostream &os);

private:
  /// Checks the options and sizes, infers the ranges, declares the tensors
  /// and runs the def-level passes.
  LogicalResult prepare();
  LogicalResult checkOptions();
  LogicalResult checkSizes();
  LogicalResult declareTensors(const DefRanges &ranges);
  /// Creates the function of one launch whose statements are \p
  /// statements, with a parameter per tensor they touch except \p locals.
  ir::Function &createKernel(llvm::ArrayRef<unsigned> statements,
                             llvm::ArrayRef<StmtContext> stmts,
                             const llvm::StringSet<> &locals,
                             llvm::StringRef name);
  /// Allocates the local-memory slice \p sliceShape (TC order) of
  /// temporary \p name at the insertion point and binds the tensor to it.
  TensorBinding *createLocalTemporary(llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> sliceShape);
  /// Lowers the kernels of \p segment; \p numKernels is the def's number
  /// of kernels (one keeps the def's name).
  LogicalResult lowerSegment(const Segment &segment, size_t numKernels);
  LogicalResult lowerBlasSegment(const Segment &segment, size_t numKernels);
  /// Lowers an identity-fill segment (Segment::Kind::IdentityFill).
  void lowerIdentityFill(const StmtContext &stmt, llvm::StringRef name);
  /// The name of the def's next kernel out of \p numKernels.
  std::string kernelName(size_t numKernels) const;
  /// Removes the temporaries without memory of their own (in local memory
  /// or in an output's) from the parameter table.
  LogicalResult dropUnpassedTemporaries();

  const Def &def;
  ir::Program &out;
  DiagnosticEngine &diags;
  const LoweringOptions &options;
  const DefRanges *givenRanges;
  std::optional<DefRanges> inferredRanges;
  ir::Builder builder;
  DefContext context;
  DefLoweringState state;
};

} // namespace

LogicalResult DefLowerer::checkSizes() {
  bool ok = true;
  for (const std::string &sizeVar : def.getSizeVars())
    if (!context.sizes.count(sizeVar)) {
      diags.emitError(def.getName().loc)
          << "size variable '" << sizeVar << "' of '" << def.getName().name
          << "' has no value, and the def cannot be lowered without one";
      ok = false;
    }
  return success(ok);
}

LogicalResult DefLowerer::declareTensors(const DefRanges &ranges) {
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
    if (std::optional<unsigned> d =
            appendConcreteShape(shapeIt->second, info.rank, tensor)) {
      diags.emitError(info.loc)
          << "dimension " << *d << " of tensor '" << name
          << "' has no positive constant extent with the given sizes";
      ok = false;
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
    state.result.tensors.push_back(std::move(tensor));
  }
  return success(ok);
}

ir::Function &DefLowerer::createKernel(llvm::ArrayRef<unsigned> statements,
                                       llvm::ArrayRef<StmtContext> stmts,
                                       const llvm::StringSet<> &locals,
                                       llvm::StringRef name) {
  // The parameters are the tensors the launch touches, in the def's order,
  // except its local temporaries.
  llvm::StringSet<> used;
  lowering::collectLaunchTensors(stmts, statements, used);
  for (const auto &local : locals)
    used.erase(local.first());
  llvm::SmallVector<ir::FunctionParam, 8> params;
  LoweredKernel &kernel = state.result.kernels.emplace_back();
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
                                   llvm::StringRef name) {
  context.scope = stmt.scope;
  llvm::StringRef tensor = context.resolve(stmt.stmt.getLhs().name);
  auto entry = context.tensors.find(tensor);
  const TensorBinding &binding = entry->second;
  Location loc = stmt.stmt.getLoc();
  LoweredKernel &kernel = state.result.kernels.emplace_back();
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
  state.temporariesNotPassed.insert(name);
  return &binding;
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
  context.gemmRowsPerLane = options.gemmRowsPerLane;
  if (options.groupWork > 0)
    context.groupWork = options.groupWork;
  context.vectorRun = options.vectorRun;
  return success(ok);
}

LogicalResult DefLowerer::prepare() {
  if (failed(checkOptions()) || failed(checkSizes()))
    return failure();
  if (!givenRanges)
    inferredRanges = inferRanges(state.program, def, context.sizes, diags);
  state.ranges = givenRanges      ? givenRanges
                 : inferredRanges ? &*inferredRanges
                                  : nullptr;
  if (!state.ranges || failed(declareTensors(*state.ranges)))
    return failure();
  return runDefPasses(state);
}

std::string DefLowerer::kernelName(size_t numKernels) const {
  std::string name = def.getName().name.str();
  if (numKernels > 1)
    name += "_" + std::to_string(state.result.kernels.size());
  return name;
}

LogicalResult DefLowerer::lowerBlasSegment(const Segment &segment,
                                           size_t numKernels) {
  const StmtContext &stmt = segment.stmts.front();
  // A second statement is the gemm's epilogue (GemmEpilogue.cpp).
  const StmtContext *epilogue =
      segment.stmts.size() > 1 ? &segment.stmts[1] : nullptr;
  llvm::SmallVector<unsigned, 2> statements = {0};
  if (epilogue)
    statements.push_back(1);
  createKernel(statements, segment.stmts, {}, kernelName(numKernels));
  context.grid = {1, 1, 1};
  context.scope = stmt.scope;
  // An epilogue's right-hand side may fail to lower (a builtin the IR lacks);
  // the lowering reports it, located, and the segment fails.
  unsigned errorsBefore = diags.getNumErrors();
  if (!lowerAsBlas(context, stmt, /*dryRun=*/false, epilogue) &&
      !(isConvGemm(state, stmt) &&
        lowerAsConvGemm(context, stmt, /*dryRun=*/false, /*force=*/true,
                        epilogue)))
    return diags.emitError(stmt.stmt.getLoc())
           << "compiler bug: the statement of '" << stmt.stmt.getLhs().name
           << "' lost its BLAS form";
  if (diags.getNumErrors() != errorsBefore)
    return failure();
  state.result.kernels.back().grid = context.grid;
  return success();
}

LogicalResult DefLowerer::lowerSegment(const Segment &segment,
                                       size_t numKernels) {
  switch (segment.kind) {
  case Segment::Kind::IdentityFill:
    lowerIdentityFill(segment.stmts.front(), kernelName(numKernels));
    return success();
  case Segment::Kind::Blas:
    return lowerBlasSegment(segment, numKernels);
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
    llvm::ArrayRef<PromotedTensor> local = segment.promoted[index];
    llvm::StringSet<> locals;
    for (const PromotedTensor &tensor : local)
      locals.insert(tensor.name);
    createKernel(used, segment.stmts, locals, kernelName(numKernels));
    for (const PromotedTensor &tensor : local)
      createLocalTemporary(tensor.name, tensor.sliceShape)->localFixedDims =
          tensor.fixedDims;
    if (failed(lowerScheduledKernel(context, segment.stmts,
                                    schedule.kernels[index])))
      ok = false;
    state.result.kernels.back().grid = context.grid;
  }
  return success(ok);
}

LogicalResult DefLowerer::printSchedule(llvm::raw_ostream &os) {
  if (failed(prepare()))
    return failure();
  const LoweredDef &result = state.result;
  const std::deque<Segment> &segments = state.segments;
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
  if (failed(prepare()))
    return std::nullopt;
  size_t numKernels = 0;
  for (const Segment &segment : state.segments)
    numKernels += segment.getNumKernels();
  bool ok = true;
  for (const Segment &segment : state.segments)
    if (failed(lowerSegment(segment, numKernels)))
      ok = false;
  if (!ok)
    return std::nullopt;
  state.result.knobs = context.knobsUsed;
  if (failed(dropUnpassedTemporaries()))
    return std::nullopt;
  return std::move(state.result);
}

LogicalResult DefLowerer::dropUnpassedTemporaries() {
  LoweredDef &result = state.result;
  // Temporaries in local memory or in an output's memory are no parameters:
  // drop them from the caller's table and renumber the kernels' references.
  // A kernel that takes one as a parameter would be launched without it.
  for (const LoweredKernel &kernel : result.kernels)
    for (unsigned index : kernel.tensorIndices)
      if (state.temporariesNotPassed.contains(result.tensors[index].name))
        return diags.emitError(def.getName().loc)
               << "compiler bug: temporary '" << result.tensors[index].name
               << "' has no memory of its own but a launch takes it as a "
                  "parameter";
  llvm::SmallVector<unsigned, 8> newIndex;
  llvm::SmallVector<LoweredTensor, 4> kept;
  for (LoweredTensor &tensor : result.tensors) {
    newIndex.push_back(kept.size());
    if (!state.temporariesNotPassed.contains(tensor.name))
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
