//===- Calls.cpp - Sema: calls of other defs ------------------------------===//
#include "Checker.h"
#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::sema;

const Def *DefChecker::resolveCallee(const CallStmt &call) {
  const Ident &calleeName = call.getCallee();
  const Def *callee = program.lookup(calleeName.name);
  if (!callee) {
    error(calleeName.loc) << "call to undefined function '" << calleeName.name
                          << "'";
    return nullptr;
  }
  if (callee == &def) {
    error(calleeName.loc) << "'" << calleeName.name << "' cannot call itself";
    return nullptr;
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
    return nullptr;
  }
  if (!validDefs.contains(callee)) {
    failedAny = true;
    return nullptr; // Its own errors were reported.
  }
  return callee;
}

LogicalResult DefChecker::checkCallArity(const CallStmt &call,
                                         const Def &callee) {
  const Ident &calleeName = call.getCallee();
  if (call.getArgs().size() != callee.getInputs().size()) {
    InFlightDiagnostic diag = error(call.getLoc());
    diag << "'" << calleeName.name << "' expects "
         << plural(callee.getInputs().size(), "input") << " but found "
         << call.getArgs().size();
    diag.note(callee.getName().loc, "'" + calleeName.name + "' defined here");
    return failure();
  }
  if (call.getResults().size() != callee.getOutputs().size()) {
    InFlightDiagnostic diag = error(call.getLoc());
    diag << "'" << calleeName.name << "' returns "
         << plural(callee.getOutputs().size(), "output") << " but "
         << call.getResults().size() << " "
         << (call.getResults().size() == 1 ? "result is" : "results are")
         << " named";
    diag.note(callee.getName().loc, "'" + calleeName.name + "' defined here");
    return failure();
  }
  return success();
}

LogicalResult DefChecker::checkArgType(const Ident &arg, const TensorInfo &info,
                                       const Param &param,
                                       const Ident &calleeName) {
  const TensorType &paramType = *param.type;
  if (info.type != paramType.scalar) {
    InFlightDiagnostic diag = error(arg.loc);
    diag << "argument '" << arg.name << "' has type " << quoted(info.type)
         << " but parameter '" << param.name.name << "' of '" << calleeName.name
         << "' expects " << quoted(paramType.scalar);
    diag.note(param.name.loc, "parameter declared here");
    return failure();
  }
  if (info.rank != paramType.dims.size()) {
    InFlightDiagnostic diag = error(arg.loc);
    diag << "argument '" << arg.name << "' has "
         << plural(info.rank, "dimension") << " but parameter '"
         << param.name.name << "' of '" << calleeName.name << "' has "
         << paramType.dims.size();
    diag.note(param.name.loc, "parameter declared here");
    return failure();
  }
  return success();
}

LogicalResult
DefChecker::bindArgExtents(const Ident &arg, const TensorInfo &info,
                           const Param &param, const Ident &calleeName,
                           llvm::StringMap<SizeBinding> &bindings) {
  bool ok = true;
  for (auto [argDim, paramDim] :
       llvm::zip(info.declared->dims, param.type->dims)) {
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
        bindings.try_emplace(paramDim.sizeVar, SizeBinding{argValue, arg});
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
  return success(ok);
}

LogicalResult DefChecker::checkCallArgs(const CallStmt &call,
                                        const Def &callee) {
  // Size variables of the callee, bound by the declared dimensions of the
  // arguments: a size variable or constant of the caller.
  llvm::StringMap<SizeBinding> bindings;
  bool ok = true;
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee.getInputs())) {
    const TensorInfo *info = lookupReadable(arg);
    if (!info || failed(checkArgType(arg, *info, param, call.getCallee()))) {
      ok = false;
      continue;
    }
    if (!info->declared || info->role != TensorInfo::Role::Input)
      continue; // Extents known only after range inference.
    if (failed(bindArgExtents(arg, *info, param, call.getCallee(), bindings)))
      ok = false;
  }
  return success(ok);
}

void DefChecker::defineCallResults(const CallStmt &call, const Def &callee) {
  llvm::StringSet<> seen;
  for (auto [result, output] :
       llvm::zip(call.getResults(), callee.getOutputs())) {
    if (!seen.insert(result.name).second) {
      error(result.loc) << "'" << result.name
                        << "' is named twice in the results of the call";
      continue;
    }
    const TensorInfo *outInfo = callee.lookupTensor(output.name.name);
    if (!outInfo)
      continue;
    (void)defineTensor(result, outInfo->rank, outInfo->type, result.loc);
  }
}

void DefChecker::checkCall(CallStmt &call) {
  for (const Ident &result : call.getResults())
    written.insert(result.name);
  const Def *callee = resolveCallee(call);
  if (!callee)
    return;
  call.setCalleeDef(callee);
  if (failed(checkCallArity(call, *callee)) ||
      failed(checkCallArgs(call, *callee)))
    return;
  defineCallResults(call, *callee);
}
