//===- Sema.cpp - Semantic checks of Tensor Comprehensions ----------------===//
//
// Names live in one namespace per def (size variables, tensors) plus, per
// statement, the index variables and `where` lets. Lookup order inside a
// statement: index, let, size variable, tensor.
//
//===----------------------------------------------------------------------===//
#include "comprehend/tc/Sema.h"
#include "comprehend/tc/Builtins.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::tc;

static std::string plural(size_t count, llvm::StringRef noun) {
  return std::to_string(count) + " " + noun.str() + (count == 1 ? "" : "s");
}

static std::string quoted(ScalarType type) {
  return ("'" + getSpelling(type) + "'").str();
}

namespace {

/// Where an expression occurs; decides which names and reads are allowed.
enum class ExprContext {
  Value, ///< RHS, lets, `exists`: unknown names become index variables
  Bound, ///< `where` range bounds: size expressions only
};

/// The per-statement scope.
struct StmtScope {
  llvm::SmallVector<std::string, 4> indexVars;
  llvm::StringMap<Location> indexLocs;
  llvm::StringMap<const WhereClause *> lets;
  llvm::StringMap<Location> constrained; ///< `where v in lo:hi` per var
};

class DefChecker {
public:
  DefChecker(const Program &program, Def &def, DiagnosticEngine &diags,
             const llvm::DenseSet<const Def *> &validDefs)
      : program(program), def(def), diags(diags), validDefs(validDefs),
        tensors(def.getTensorsMutable()) {}

  LogicalResult check();

private:
  InFlightDiagnostic error(Location loc) {
    failedAny = true;
    return diags.emitError(loc);
  }
  /// Reports `'x' is already defined as a ...` with a note at the earlier
  /// definition if \p name is taken in the def or in \p scope.
  LogicalResult checkNewName(const Ident &name, const StmtScope *scope);
  LogicalResult checkNotBuiltin(const Ident &name);

  void declareParams();
  void checkStmt(ComprehensionStmt &stmt);
  void checkCall(CallStmt &call);
  LogicalResult checkWhere(WhereClause &where, StmtScope &scope);
  LogicalResult checkExpr(Expr &expr, StmtScope &scope, ExprContext context);
  LogicalResult checkIdent(IdentExpr &ident, StmtScope &scope,
                           ExprContext context);
  LogicalResult checkApply(ApplyExpr &apply, StmtScope &scope,
                           ExprContext context);
  LogicalResult expectBool(const Expr &expr);
  /// The tensor \p name if it may be read here; reports an error otherwise.
  const TensorInfo *lookupReadable(const Ident &name);
  /// Records a write of \p lhs with \p rank dimensions and element type
  /// \p type; checks inputs, annotations and earlier definitions.
  LogicalResult defineTensor(const Ident &lhs, unsigned rank, ScalarType type,
                             Location valueLoc);
  void addIndex(StmtScope &scope, llvm::StringRef name, Location loc) {
    scope.indexVars.push_back(name.str());
    scope.indexLocs.try_emplace(name, loc);
  }

  const Program &program;
  Def &def;
  DiagnosticEngine &diags;
  /// Defs above this one that passed Sema (calls to others fail quietly).
  const llvm::DenseSet<const Def *> &validDefs;
  llvm::MapVector<llvm::StringRef, TensorInfo> &tensors;
  llvm::StringMap<Location> sizeVars;
  /// Tensors that hold a value at the current statement.
  llvm::StringSet<> defined;
  /// Names on the left of some statement (even one that failed).
  llvm::StringSet<> written;
  /// Names whose declaration was rejected: their uses report nothing more.
  llvm::StringSet<> poisoned;
  bool failedAny = false;
};

} // namespace

LogicalResult DefChecker::checkNotBuiltin(const Ident &name) {
  if (!getBuiltinArity(name.name))
    return success();
  return error(name.loc) << "'" << name.name
                         << "' is a built-in function and cannot be redefined";
}

LogicalResult DefChecker::checkNewName(const Ident &name,
                                       const StmtScope *scope) {
  if (failed(checkNotBuiltin(name)))
    return failure();
  Location previous;
  llvm::StringRef what;
  if (scope && scope->indexLocs.count(name.name)) {
    what = "an index variable";
    previous = scope->indexLocs.lookup(name.name);
  } else if (scope && scope->lets.count(name.name)) {
    what = "a 'where' binding";
    previous = scope->lets.lookup(name.name)->getLoc();
  } else if (sizeVars.count(name.name)) {
    what = "a size variable";
    previous = sizeVars.lookup(name.name);
  } else if (const TensorInfo *info = def.lookupTensor(name.name)) {
    what = "a tensor";
    previous = info->loc;
  } else {
    return success();
  }
  InFlightDiagnostic diag = error(name.loc);
  diag << "'" << name.name << "' is already defined as " << what;
  diag.note(previous, "previous definition is here");
  return diag;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

void DefChecker::declareParams() {
  for (const Param &param : def.getInputs()) {
    // Size variables first: they stay usable even if the name is rejected.
    if (param.type) {
      for (const TensorType::Dim &dim : param.type->dims) {
        if (dim.sizeVar.empty() || sizeVars.count(dim.sizeVar))
          continue;
        Ident sizeVar{dim.sizeVar, dim.loc};
        if (failed(checkNewName(sizeVar, nullptr)))
          continue;
        sizeVars.try_emplace(dim.sizeVar, dim.loc);
        def.getSizeVarsMutable().push_back(dim.sizeVar.str());
      }
    }
    if (failed(checkNewName(param.name, nullptr)))
      continue;
    if (!param.type) {
      poisoned.insert(param.name.name);
      error(param.name.loc)
          << "input '" << param.name.name << "' needs a type, e.g. 'float(N) "
          << param.name.name << "'";
      continue;
    }
    TensorInfo info;
    info.role = TensorInfo::Role::Input;
    info.type = param.type->scalar;
    info.rank = param.type->dims.size();
    info.loc = param.name.loc;
    info.declared = &*param.type;
    tensors.insert({param.name.name, info});
    defined.insert(param.name.name);
  }
  for (const Param &param : def.getOutputs()) {
    if (failed(checkNewName(param.name, nullptr)))
      continue;
    TensorInfo info;
    info.role = TensorInfo::Role::Output;
    info.loc = param.name.loc;
    if (param.type) {
      info.declared = &*param.type;
      info.type = param.type->scalar;
      info.rank = param.type->dims.size();
      for (const TensorType::Dim &dim : param.type->dims)
        if (!dim.sizeVar.empty() && !sizeVars.count(dim.sizeVar))
          error(dim.loc) << "undefined size variable '" << dim.sizeVar
                         << "' in the type of output '" << param.name.name
                         << "'";
    }
    tensors.insert({param.name.name, info});
  }
}

//===----------------------------------------------------------------------===//
// Definitions of tensors
//===----------------------------------------------------------------------===//

LogicalResult DefChecker::defineTensor(const Ident &lhs, unsigned rank,
                                       ScalarType type, Location valueLoc) {
  if (failed(checkNotBuiltin(lhs)))
    return failure();
  if (sizeVars.count(lhs.name)) {
    InFlightDiagnostic diag = error(lhs.loc);
    diag << "'" << lhs.name << "' is a size variable and cannot be written";
    diag.note(sizeVars.lookup(lhs.name), "size variable defined here");
    return diag;
  }
  auto it = tensors.find(lhs.name);
  if (it == tensors.end()) {
    TensorInfo info;
    info.role = TensorInfo::Role::Temporary;
    info.type = type;
    info.rank = rank;
    info.loc = lhs.loc;
    info.firstDef = lhs.loc;
    tensors.insert({lhs.name, info});
    defined.insert(lhs.name);
    return success();
  }
  TensorInfo &info = it->second;
  if (info.role == TensorInfo::Role::Input) {
    InFlightDiagnostic diag = error(lhs.loc);
    diag << "'" << lhs.name
         << "' is an input and cannot be written: TC inputs are immutable";
    diag.note(info.loc, "input declared here");
    return diag;
  }
  bool first = !defined.contains(lhs.name);
  if (first && info.declared && info.declared->dims.size() != rank) {
    InFlightDiagnostic diag = error(lhs.loc);
    diag << "tensor '" << lhs.name << "' defined with "
         << plural(rank, "dimension") << " but declared as an output with "
         << plural(info.declared->dims.size(), "dimension");
    diag.note(info.declared->loc, "output type declared here");
    return diag;
  }
  if (!first && info.rank != rank) {
    InFlightDiagnostic diag = error(lhs.loc);
    diag << "tensor '" << lhs.name << "' has " << plural(info.rank, "dimension")
         << " but is written with " << plural(rank, "index variable");
    diag.note(info.firstDef, "first defined here");
    return diag;
  }
  bool fixedType = info.declared || !first;
  if (fixedType && promote(type, info.type) != info.type) {
    InFlightDiagnostic diag = error(valueLoc);
    diag << "attempting to assign type " << quoted(type) << " to narrower type "
         << quoted(info.type) << " of '" << lhs.name
         << "' without an explicit cast";
    diag.note(info.declared ? info.declared->loc : info.firstDef,
              "type of '" + lhs.name + "' set here");
    return diag;
  }
  if (first) {
    if (!info.declared)
      info.type = type;
    info.rank = rank;
    info.firstDef = lhs.loc;
  }
  defined.insert(lhs.name);
  return success();
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

static llvm::StringRef getReductionSpelling(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Add:
    return "+=";
  case ReductionKind::Mul:
    return "*=";
  case ReductionKind::Min:
    return "min=";
  case ReductionKind::Max:
    return "max=";
  case ReductionKind::None:
    break;
  }
  return "=";
}

void DefChecker::checkStmt(ComprehensionStmt &stmt) {
  StmtScope scope;
  bool ok = true;
  written.insert(stmt.getLhs().name);
  for (const Ident &index : stmt.getIndices()) {
    // A rejected index is still entered, so its uses add no more errors.
    ok &= succeeded(checkNewName(index, &scope));
    addIndex(scope, index.name, index.loc);
  }
  for (WhereClause &where : stmt.getWheres())
    ok &= succeeded(checkWhere(where, scope));
  ok &= succeeded(checkExpr(stmt.getRhs(), scope, ExprContext::Value));
  stmt.setIndexVars(scope.indexVars);
  if (!ok)
    return;

  llvm::ArrayRef<std::string> reductions = stmt.getReductionVars();
  if (!reductions.empty() && stmt.getReduction() == ReductionKind::None) {
    InFlightDiagnostic diag = error(stmt.getOpLoc());
    diag << "this statement includes reduction variable"
         << (reductions.size() == 1 ? " " : "s ");
    for (size_t i = 0; i < reductions.size(); ++i)
      diag << (i ? ", '" : "'") << reductions[i] << "'";
    diag << " but does not specify a reduction (use '+=!', '*=!', 'min=!' "
            "or 'max=!')";
    return;
  }

  const Ident &lhs = stmt.getLhs();
  const TensorInfo *existing = def.lookupTensor(lhs.name);
  bool definedBefore = defined.contains(lhs.name);
  if (stmt.getReduction() != ReductionKind::None && !stmt.hasInit() &&
      !definedBefore && !sizeVars.count(lhs.name) &&
      !getBuiltinArity(lhs.name)) {
    std::string op = getReductionSpelling(stmt.getReduction()).str();
    if (!existing)
      error(stmt.getOpLoc()) << "reduction into temporary '" << lhs.name
                             << "' without initialization; use '" << op
                             << "!' instead of '" << op << "'";
    else if (existing->role == TensorInfo::Role::Output)
      diags.emitWarning(stmt.getOpLoc())
          << "reduction without initialization: if '" << lhs.name
          << "' is not pre-initialized before calling the TC function, "
             "consider using the !-suffixed reduction operator '"
          << op << "!' instead of '" << op << "'";
  }
  (void)defineTensor(lhs, stmt.getIndices().size(), stmt.getRhs().getType(),
                     stmt.getRhs().getLoc());
}

LogicalResult DefChecker::checkWhere(WhereClause &where, StmtScope &scope) {
  switch (where.getKind()) {
  case WhereClause::Kind::Range: {
    const Ident &var = where.getVar();
    if (failed(checkNotBuiltin(var)))
      return failure();
    if (!scope.indexLocs.count(var.name)) {
      llvm::StringRef what = scope.lets.count(var.name)   ? "a 'where' binding"
                             : sizeVars.count(var.name)   ? "a size variable"
                             : def.lookupTensor(var.name) ? "a tensor"
                                                          : "";
      if (!what.empty())
        return error(var.loc)
               << "cannot constrain the range of '" << var.name << "': it is "
               << what << ", not an index variable";
      addIndex(scope, var.name, var.loc);
    }
    auto [it, inserted] =
        scope.constrained.try_emplace(var.name, where.getLoc());
    if (!inserted) {
      InFlightDiagnostic diag = error(where.getLoc());
      diag << "the range of '" << var.name << "' is already constrained";
      diag.note(it->second, "previous constraint is here");
      return diag;
    }
    bool ok = succeeded(checkExpr(where.getFirst(), scope, ExprContext::Bound));
    ok &= succeeded(checkExpr(*where.getSecond(), scope, ExprContext::Bound));
    if (!ok)
      return failure();
    for (const Expr *bound : {&where.getLo(), &where.getHi()})
      if (!isIntegral(bound->getType()))
        return error(bound->getLoc())
               << "expected integral type but found "
               << quoted(bound->getType()) << " in the range of '" << var.name
               << "'";
    return success();
  }
  case WhereClause::Kind::Let: {
    bool ok = succeeded(checkNewName(where.getVar(), &scope));
    ok &= succeeded(checkExpr(where.getFirst(), scope, ExprContext::Value));
    // Bound even when rejected, so its uses add no more errors.
    scope.lets.try_emplace(where.getVar().name, &where);
    return success(ok);
  }
  case WhereClause::Kind::Exists:
    return checkExpr(where.getFirst(), scope, ExprContext::Value);
  }
  return failure();
}

void DefChecker::checkCall(CallStmt &call) {
  for (const Ident &result : call.getResults())
    written.insert(result.name);
  const Ident &calleeName = call.getCallee();
  const Def *callee = program.lookup(calleeName.name);
  if (!callee) {
    error(calleeName.loc) << "call to undefined function '" << calleeName.name
                          << "'";
    return;
  }
  if (callee == &def) {
    error(calleeName.loc) << "'" << calleeName.name << "' cannot call itself";
    return;
  }
  auto defs = program.getDefs();
  auto position = [&](const Def *d) {
    return llvm::find_if(defs, [&](const auto &p) { return p.get() == d; }) -
           defs.begin();
  };
  if (position(callee) > position(&def)) {
    InFlightDiagnostic diag = error(calleeName.loc);
    diag << "call to '" << calleeName.name << "', which is defined below '"
         << def.getName().name << "'; a def can only call the defs above it";
    diag.note(callee->getName().loc, "'" + calleeName.name + "' defined here");
    return;
  }
  if (!validDefs.contains(callee)) {
    failedAny = true;
    return; // Its own errors were reported.
  }
  call.setCalleeDef(callee);
  if (call.getArgs().size() != callee->getInputs().size()) {
    InFlightDiagnostic diag = error(call.getLoc());
    diag << "'" << calleeName.name << "' expects "
         << plural(callee->getInputs().size(), "input") << " but found "
         << call.getArgs().size();
    diag.note(callee->getName().loc, "'" + calleeName.name + "' defined here");
    return;
  }
  if (call.getResults().size() != callee->getOutputs().size()) {
    InFlightDiagnostic diag = error(call.getLoc());
    diag << "'" << calleeName.name << "' returns "
         << plural(callee->getOutputs().size(), "output") << " but "
         << call.getResults().size() << " "
         << (call.getResults().size() == 1 ? "result is" : "results are")
         << " named";
    diag.note(callee->getName().loc, "'" + calleeName.name + "' defined here");
    return;
  }

  // Size variables of the callee, bound by the declared dimensions of the
  // arguments: a size variable or constant of the caller.
  struct Binding {
    std::string value;
    Ident arg;
  };
  llvm::StringMap<Binding> bindings;
  bool ok = true;
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee->getInputs())) {
    const TensorInfo *info = lookupReadable(arg);
    if (!info) {
      ok = false;
      continue;
    }
    const TensorType &paramType = *param.type;
    if (info->type != paramType.scalar) {
      InFlightDiagnostic diag = error(arg.loc);
      diag << "argument '" << arg.name << "' has type " << quoted(info->type)
           << " but parameter '" << param.name.name << "' of '"
           << calleeName.name << "' expects " << quoted(paramType.scalar);
      diag.note(param.name.loc, "parameter declared here");
      ok = false;
      continue;
    }
    if (info->rank != paramType.dims.size()) {
      InFlightDiagnostic diag = error(arg.loc);
      diag << "argument '" << arg.name << "' has "
           << plural(info->rank, "dimension") << " but parameter '"
           << param.name.name << "' of '" << calleeName.name << "' has "
           << paramType.dims.size();
      diag.note(param.name.loc, "parameter declared here");
      ok = false;
      continue;
    }
    if (!info->declared || info->role != TensorInfo::Role::Input)
      continue; // Extents known only after range inference.
    for (auto [argDim, paramDim] :
         llvm::zip(info->declared->dims, paramType.dims)) {
      std::string argValue = argDim.sizeVar.empty()
                                 ? std::to_string(argDim.constant)
                                 : argDim.sizeVar.str();
      if (paramDim.sizeVar.empty()) {
        if (argDim.sizeVar.empty() && argDim.constant != paramDim.constant) {
          InFlightDiagnostic diag = error(arg.loc);
          diag << "argument '" << arg.name << "' has extent " << argDim.constant
               << " where parameter '" << param.name.name << "' of '"
               << calleeName.name << "' requires " << paramDim.constant;
          diag.note(paramDim.loc, "extent declared here");
          ok = false;
        }
        continue;
      }
      auto [it, inserted] =
          bindings.try_emplace(paramDim.sizeVar, Binding{argValue, arg});
      if (!inserted && it->second.value != argValue) {
        InFlightDiagnostic diag = error(arg.loc);
        diag << "size variable '" << paramDim.sizeVar << "' of '"
             << calleeName.name << "' is bound to '" << it->second.value
             << "' by argument '" << it->second.arg.name << "' but to '"
             << argValue << "' by argument '" << arg.name << "'";
        diag.note(paramDim.loc, "size variable used here");
        ok = false;
      }
    }
  }
  if (!ok)
    return;
  llvm::StringSet<> seen;
  for (auto [result, output] :
       llvm::zip(call.getResults(), callee->getOutputs())) {
    if (!seen.insert(result.name).second) {
      error(result.loc) << "'" << result.name
                        << "' is named twice in the results of the call";
      continue;
    }
    const TensorInfo *outInfo = callee->lookupTensor(output.name.name);
    if (!outInfo)
      continue;
    (void)defineTensor(result, outInfo->rank, outInfo->type, result.loc);
  }
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

LogicalResult DefChecker::expectBool(const Expr &expr) {
  if (expr.getType() == ScalarType::Bool)
    return success();
  return error(expr.getLoc())
         << "expected boolean but found " << quoted(expr.getType());
}

const TensorInfo *DefChecker::lookupReadable(const Ident &name) {
  const TensorInfo *info = def.lookupTensor(name.name);
  if (!info) {
    error(name.loc) << "undefined tensor '" << name.name << "'";
    return nullptr;
  }
  if (!defined.contains(name.name)) {
    InFlightDiagnostic diag = error(name.loc);
    diag << "'" << name.name << "' is read before it is defined";
    diag.note(info->loc, "'" + name.name + "' declared here");
    return nullptr;
  }
  return info;
}

LogicalResult DefChecker::checkIdent(IdentExpr &ident, StmtScope &scope,
                                     ExprContext context) {
  llvm::StringRef name = ident.getName();
  bool bound = context == ExprContext::Bound;
  if (scope.indexLocs.count(name)) {
    if (bound)
      return error(ident.getLoc())
             << "index variable '" << name
             << "' cannot be used in a range bound; bounds are size "
                "expressions";
    ident.resolve(IdentExpr::Ref::Index);
    ident.setType(ScalarType::Int32);
    return success();
  }
  if (const WhereClause *let = scope.lets.lookup(name)) {
    if (bound)
      return error(ident.getLoc())
             << "'where' binding '" << name
             << "' cannot be used in a range bound; bounds are size "
                "expressions";
    ident.resolve(IdentExpr::Ref::Let, let);
    ident.setType(let->getValue().getType());
    return success();
  }
  if (sizeVars.count(name)) {
    ident.resolve(IdentExpr::Ref::Size);
    ident.setType(ScalarType::Int32);
    return success();
  }
  if (def.lookupTensor(name)) {
    if (bound)
      return error(ident.getLoc())
             << "tensor accesses cannot be used in a range bound";
    const TensorInfo *info = lookupReadable(Ident{name, ident.getLoc()});
    if (!info)
      return failure();
    if (info->rank != 0)
      return error(ident.getLoc())
             << "expected a scalar but found tensor '" << name << "' with "
             << plural(info->rank, "dimension") << "; read it as '" << name
             << "(...)'";
    ident.resolve(IdentExpr::Ref::Tensor);
    ident.setType(info->type);
    return success();
  }
  if (getBuiltinArity(name))
    return error(ident.getLoc())
           << "'" << name << "' is a built-in function; call it as '" << name
           << "(...)'";
  if (bound)
    return error(ident.getLoc())
           << "undefined variable '" << name << "' in a range bound";
  // TC: a name that is in scope nowhere is a new index variable.
  addIndex(scope, name, ident.getLoc());
  ident.resolve(IdentExpr::Ref::Index);
  ident.setType(ScalarType::Int32);
  return success();
}

LogicalResult DefChecker::checkApply(ApplyExpr &apply, StmtScope &scope,
                                     ExprContext context) {
  const Ident &callee = apply.getCallee();
  auto checkArgs = [&](ExprContext argContext) {
    bool ok = true;
    for (const ExprPtr &arg : apply.getArgs())
      ok &= succeeded(checkExpr(*arg, scope, argContext));
    return success(ok);
  };
  if (std::optional<unsigned> arity = getBuiltinArity(callee.name)) {
    if (failed(checkArgs(context)))
      return failure();
    if (apply.getArgs().size() != *arity)
      return error(apply.getLoc())
             << "'" << callee.name << "' expects " << plural(*arity, "argument")
             << " but found " << apply.getArgs().size();
    ScalarType type = ScalarType::Float;
    for (const ExprPtr &arg : apply.getArgs())
      type = promote(type, arg->getType());
    apply.setTarget(ApplyExpr::Target::Builtin);
    apply.setType(type);
    return success();
  }
  llvm::StringRef scalarKind =
      scope.indexLocs.count(callee.name) ? "index variable"
      : scope.lets.count(callee.name)    ? "'where' binding"
      : sizeVars.count(callee.name)      ? "size variable"
                                         : "";
  if (!scalarKind.empty())
    return error(callee.loc) << "expected a tensor but found " << scalarKind
                             << " '" << callee.name << "'";
  if (!def.lookupTensor(callee.name)) {
    if (poisoned.contains(callee.name))
      return failure();
    if (program.lookup(callee.name))
      return error(apply.getLoc())
             << "'" << callee.name
             << "' is a function; call it in a statement of its own, e.g. "
                "'a = "
             << callee.name << "(x)'";
    return error(callee.loc)
           << "undefined tensor or function '" << callee.name << "'";
  }
  if (context == ExprContext::Bound)
    return error(apply.getLoc())
           << "tensor accesses cannot be used in a range bound";
  const TensorInfo *info = lookupReadable(callee);
  if (!info || failed(checkArgs(ExprContext::Value)))
    return failure();
  if (apply.getArgs().size() != info->rank)
    return error(apply.getLoc())
           << "expected " << plural(info->rank, "subscript") << " for '"
           << callee.name << "' but found " << apply.getArgs().size();
  bool ok = true;
  for (const ExprPtr &arg : apply.getArgs())
    if (!isIntegral(arg->getType())) {
      error(arg->getLoc()) << "expected integral type but found "
                           << quoted(arg->getType()) << " in a subscript of '"
                           << callee.name << "'";
      ok = false;
    }
  apply.setTarget(ApplyExpr::Target::Tensor);
  apply.setType(info->type);
  return success(ok);
}

static bool isComparison(BinaryOp op) {
  switch (op) {
  case BinaryOp::Less:
  case BinaryOp::Greater:
  case BinaryOp::LessEqual:
  case BinaryOp::GreaterEqual:
  case BinaryOp::Equal:
  case BinaryOp::NotEqual:
    return true;
  default:
    return false;
  }
}

LogicalResult DefChecker::checkExpr(Expr &expr, StmtScope &scope,
                                    ExprContext context) {
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
    return success();
  case Expr::Kind::Ident:
    return checkIdent(llvm::cast<IdentExpr>(expr), scope, context);
  case Expr::Kind::DimAccess: {
    auto &dim = llvm::cast<DimAccessExpr>(expr);
    const TensorInfo *info = lookupReadable(dim.getTensor());
    if (!info)
      return failure();
    if (dim.getDim() < 0 || dim.getDim() >= static_cast<int64_t>(info->rank))
      return error(expr.getLoc())
             << "dimension " << dim.getDim() << " of '" << dim.getTensor().name
             << "' does not exist: '" << dim.getTensor().name << "' has "
             << plural(info->rank, "dimension");
    expr.setType(ScalarType::Int32);
    return success();
  }
  case Expr::Kind::Unary: {
    auto &unary = llvm::cast<UnaryExpr>(expr);
    if (failed(checkExpr(unary.getOperand(), scope, context)))
      return failure();
    if (unary.getOp() == UnaryOp::Not) {
      expr.setType(ScalarType::Bool);
      return expectBool(unary.getOperand());
    }
    expr.setType(unary.getOperand().getType());
    return success();
  }
  case Expr::Kind::Binary: {
    auto &binary = llvm::cast<BinaryExpr>(expr);
    bool ok = succeeded(checkExpr(binary.getLhs(), scope, context));
    ok &= succeeded(checkExpr(binary.getRhs(), scope, context));
    if (!ok)
      return failure();
    BinaryOp op = binary.getOp();
    if (op == BinaryOp::And || op == BinaryOp::Or) {
      expr.setType(ScalarType::Bool);
      ok = succeeded(expectBool(binary.getLhs()));
      ok &= succeeded(expectBool(binary.getRhs()));
      return success(ok);
    }
    ScalarType type =
        promote(binary.getLhs().getType(), binary.getRhs().getType());
    expr.setType(isComparison(op) ? ScalarType::Bool : type);
    return success();
  }
  case Expr::Kind::Ternary: {
    auto &ternary = llvm::cast<TernaryExpr>(expr);
    bool ok = succeeded(checkExpr(ternary.getCond(), scope, context));
    ok &= succeeded(checkExpr(ternary.getTrueValue(), scope, context));
    ok &= succeeded(checkExpr(ternary.getFalseValue(), scope, context));
    if (!ok || failed(expectBool(ternary.getCond())))
      return failure();
    expr.setType(promote(ternary.getTrueValue().getType(),
                         ternary.getFalseValue().getType()));
    return success();
  }
  case Expr::Kind::Apply:
    return checkApply(llvm::cast<ApplyExpr>(expr), scope, context);
  case Expr::Kind::Cast:
    return checkExpr(llvm::cast<CastExpr>(expr).getOperand(), scope, context);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Defs and programs
//===----------------------------------------------------------------------===//

LogicalResult DefChecker::check() {
  declareParams();
  for (const std::unique_ptr<Stmt> &stmt : def.getBody()) {
    if (auto *comprehension = llvm::dyn_cast<ComprehensionStmt>(stmt.get()))
      checkStmt(*comprehension);
    else
      checkCall(*llvm::cast<CallStmt>(stmt.get()));
  }
  for (const Param &output : def.getOutputs())
    if (const TensorInfo *info = def.lookupTensor(output.name.name);
        info && info->role == TensorInfo::Role::Output &&
        !written.contains(output.name.name))
      error(output.name.loc)
          << "output '" << output.name.name << "' is never defined";
  return success(!failedAny);
}

LogicalResult tc::checkProgram(Program &program, DiagnosticEngine &diags) {
  llvm::DenseSet<const Def *> validDefs;
  llvm::StringMap<Location> names;
  bool ok = true;
  for (const std::unique_ptr<Def> &def : program.getDefs()) {
    const Ident &name = def->getName();
    auto [it, inserted] = names.try_emplace(name.name, name.loc);
    if (!inserted) {
      InFlightDiagnostic diag = diags.emitError(name.loc);
      diag << "redefinition of function '" << name.name << "'";
      diag.note(it->second, "previous definition is here");
      ok = false;
    }
    DefChecker checker(program, *def, diags, validDefs);
    if (succeeded(checker.check()))
      validDefs.insert(def.get());
    else
      ok = false;
  }
  return success(ok);
}
