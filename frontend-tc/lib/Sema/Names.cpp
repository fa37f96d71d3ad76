//===- Names.cpp - Sema: declarations and name lookup ---------------------===//
#include "Checker.h"
#include "comprehend/tc/Builtins.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::sema;

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
// Name lookup
//===----------------------------------------------------------------------===//

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
