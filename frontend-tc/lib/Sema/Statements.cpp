//===- Statements.cpp - Sema: statements, defs and programs ---------------===//
#include "Checker.h"
#include "comprehend/tc/Builtins.h"
#include "comprehend/tc/Sema.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::sema;

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
