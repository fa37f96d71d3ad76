//===- InlineCalls.cpp - The def's statements, calls inlined --------------===//
//
// The first def-level pass lists the statements of the def with the
// concrete ranges of their indices. A TC call `a, b = f(x, y)` becomes the
// statements of f, whose tensor names resolve through a CallScope: f's
// inputs and outputs to the caller's tensors, f's temporaries to new
// temporaries of the def named <callee>_<n>_<name>, f's size variables to
// the extents of the arguments. Calls inside f are inlined the same way.
//
// It also rejects a statement whose LHS ranges reach outside its tensor's
// shape: a tensor's shape comes from the last statement that writes it
// (TC's rule), so an earlier statement whose ranges reach further would
// write out of bounds. The evaluator rejects such a def too.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

class CallInliner {
public:
  explicit CallInliner(DefLoweringState &state)
      : state(state), context(state.context), diags(context.diags) {}

  /// Appends the statements of \p ranges (of the def, or of a callee
  /// through \p scope) to the state's.
  LogicalResult collectStatements(const DefRanges &ranges,
                                  const CallScope *scope);

private:
  std::optional<StmtContext> getStmtContext(const ComprehensionStmt &stmt,
                                            const StmtRanges &ranges,
                                            const CallScope *scope);
  LogicalResult inlineCall(const CallStmt &call, const CallScope *parent);
  /// Binds the callee's inputs and outputs to the arguments and results of
  /// \p call, and its size variables to the arguments' extents.
  LogicalResult bindArguments(const CallStmt &call, const Def &callee,
                              CallScope &scope);
  /// Checks the shapes of the callee's outputs and declares its
  /// temporaries as temporaries of the def.
  LogicalResult declareCalleeTensors(const CallStmt &call, const Def &callee,
                                     const DefRanges &ranges, CallScope &scope);
  /// The shape of \p name, a tensor of \p callee, in this call.
  std::optional<LoweredTensor> getCalleeShape(const Def &callee,
                                              llvm::StringRef name,
                                              const TensorInfo &info,
                                              const DefRanges &ranges);

  DefLoweringState &state;
  DefContext &context;
  DiagnosticEngine &diags;
};

} // namespace

std::optional<StmtContext>
CallInliner::getStmtContext(const ComprehensionStmt &stmt,
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

LogicalResult CallInliner::collectStatements(const DefRanges &ranges,
                                             const CallScope *scope) {
  for (const StmtRanges &stmtRanges : ranges.statements) {
    if (const auto *call = llvm::dyn_cast<CallStmt>(stmtRanges.stmt)) {
      if (failed(inlineCall(*call, scope)))
        return failure();
      continue;
    }
    const auto &stmt = llvm::cast<ComprehensionStmt>(*stmtRanges.stmt);
    std::optional<StmtContext> stmtContext =
        getStmtContext(stmt, stmtRanges, scope);
    if (!stmtContext)
      return failure();
    state.stmts.push_back(std::move(*stmtContext));
  }
  return success();
}

LogicalResult CallInliner::bindArguments(const CallStmt &call,
                                         const Def &callee, CallScope &scope) {
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee.getInputs())) {
    const TensorBinding *binding = context.lookup(arg.name);
    if (!binding || binding->shape.size() != param.type->dims.size())
      return diags.emitError(arg.loc)
             << "argument '" << arg.name << "' of the call of '"
             << callee.getName().name << "' has no shape of rank "
             << param.type->dims.size();
    if (llvm::any_of(binding->lowerBounds, [](int64_t lo) { return lo; }))
      return diags.emitError(arg.loc)
             << "argument '" << arg.name
             << "' does not start at index 0 and cannot be passed to '"
             << callee.getName().name << "'";
    for (auto [dim, extent] : llvm::zip(param.type->dims, binding->shape))
      if (!dim.sizeVar.empty())
        scope.sizes[dim.sizeVar] = extent;
    scope.tensors[param.name.name] = context.resolve(arg.name).str();
  }
  for (auto [res, output] : llvm::zip(call.getResults(), callee.getOutputs()))
    scope.tensors[output.name.name] = context.resolve(res.name).str();
  return success();
}

std::optional<LoweredTensor>
CallInliner::getCalleeShape(const Def &callee, llvm::StringRef name,
                            const TensorInfo &info, const DefRanges &ranges) {
  const poly::TensorShape &shape = ranges.shapes.lookup(name);
  LoweredTensor tensor;
  tensor.role = TensorInfo::Role::Temporary;
  tensor.type = info.type;
  if (std::optional<unsigned> d =
          appendConcreteShape(shape, info.rank, tensor)) {
    diags.emitError(info.loc)
        << "dimension " << *d << " of tensor '" << name << "' of '"
        << callee.getName().name
        << "' has no positive constant extent in this call";
    return std::nullopt;
  }
  return tensor;
}

LogicalResult CallInliner::declareCalleeTensors(const CallStmt &call,
                                                const Def &callee,
                                                const DefRanges &ranges,
                                                CallScope &scope) {
  for (const auto &[name, info] : callee.getTensors()) {
    if (info.role == TensorInfo::Role::Input)
      continue;
    std::optional<LoweredTensor> tensor =
        getCalleeShape(callee, name, info, ranges);
    if (!tensor)
      return failure();
    if (info.role == TensorInfo::Role::Output) {
      const TensorBinding *binding = context.lookup(scope.tensors[name]);
      if (!binding || binding->shape != tensor->shape ||
          binding->lowerBounds != tensor->lowerBounds)
        return diags.emitError(call.getLoc())
               << "output '" << name << "' of '" << callee.getName().name
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
    std::string candidate = (callee.getName().name + "_" +
                             llvm::Twine(state.scopes.size() - 1) + "_" + name)
                                .str();
    while (context.tensors.count(candidate) ||
           state.def.lookupTensor(candidate))
      candidate += "_";
    llvm::StringRef unique =
        state.temporaryNames.emplace_back(std::move(candidate));
    scope.tensors[name] = unique.str();
    TensorBinding binding;
    binding.type = info.type;
    binding.kind = *kind;
    binding.temporary = true;
    binding.shape = tensor->shape;
    binding.lowerBounds = tensor->lowerBounds;
    context.tensors.insert({unique, binding});
    tensor->name = unique.str();
    state.result.tensors.push_back(std::move(*tensor));
  }
  return success();
}

LogicalResult CallInliner::inlineCall(const CallStmt &call,
                                      const CallScope *parent) {
  const Def *callee = call.getCalleeDef();
  if (!callee)
    return diags.emitError(call.getLoc())
           << "call of unknown def '" << call.getCallee().name << "'";
  context.scope = parent;
  CallScope &scope = state.scopes.emplace_back();
  if (failed(bindArguments(call, *callee, scope)))
    return failure();
  std::optional<DefRanges> ranges =
      inferRanges(state.program, *callee, scope.sizes, diags);
  if (!ranges)
    return diags.emitError(call.getLoc())
           << "the ranges of '" << callee->getName().name
           << "' cannot be inferred for this call";
  if (failed(declareCalleeTensors(call, *callee, *ranges, scope)))
    return failure();
  return collectStatements(*ranges, &scope);
}

/// Rejects a statement whose LHS ranges reach outside its tensor's shape.
static LogicalResult checkWritesInShape(DefLoweringState &state) {
  DefContext &context = state.context;
  bool ok = true;
  for (const StmtContext &stmt : state.stmts) {
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
      context.diags.emitError(indices[d].loc)
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

LogicalResult lowering::inlineCalls(DefLoweringState &state) {
  if (failed(CallInliner(state).collectStatements(*state.ranges,
                                                  /*scope=*/nullptr)))
    return failure();
  return checkWritesInShape(state);
}
