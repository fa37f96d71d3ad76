//===- GradCalls.cpp - Statements of the body, calls included -------------===//
//
// What each statement reads and writes, the recomputation of the versions
// the adjoints read, and calls.
//
// A call `a, b = f(x, y)` is differentiated by calling f's own backward def,
// derived once per callee and printed above the caller's backward:
// `g_x, g_y = f_grad(x, y, a, b, d_a, d_b)`, whose results are then added
// into the adjoints of the arguments.
//
//===----------------------------------------------------------------------===//
#include "GradBuilder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

llvm::SmallVector<llvm::StringRef, 4>
BackwardBuilder::writesOf(unsigned index) const {
  llvm::SmallVector<llvm::StringRef, 4> tensors;
  if (stmts[index])
    tensors.push_back(stmts[index]->getLhs().name);
  else
    for (const Ident &result : calls[index]->getResults())
      tensors.push_back(result.name);
  return tensors;
}

llvm::SmallVector<llvm::StringRef, 4>
BackwardBuilder::readsOf(unsigned index) const {
  llvm::SmallVector<llvm::StringRef, 4> tensors;
  if (calls[index]) {
    for (const Ident &arg : calls[index]->getArgs())
      tensors.push_back(arg.name);
    return tensors;
  }
  llvm::SmallVector<const Expr *, 8> reads;
  collectValueReads(stmts[index]->getRhs(), reads);
  for (const Expr *read : reads)
    tensors.push_back(readTensor(*read));
  // `O += e` (no `!`) on an earlier O reads it too.
  const ComprehensionStmt &stmt = *stmts[index];
  if (!stmt.hasInit() && stmt.getReduction() == ReductionKind::Add &&
      readVersions.size() > index &&
      readVersions[index].count(stmt.getLhs().name))
    tensors.push_back(stmt.getLhs().name);
  return tensors;
}

std::vector<DimRange> BackwardBuilder::versionDims(unsigned index,
                                                   llvm::StringRef tensor) {
  std::vector<DimRange> result;
  if (stmts[index]) {
    for (const Ident &lhs : stmts[index]->getIndices())
      result.push_back(varRange(index, lhs.name));
    return result;
  }
  // A call's results have the callee's output shapes, starting at 0.
  const poly::TensorShape &shape = ranges.shapes.find(tensor)->second;
  for (const poly::IndexExpr &extent : shape.extentExprs)
    result.push_back({"0", boundText(printIndexExpr(extent, sizeVarOf))});
  return result;
}

std::string BackwardBuilder::printCall(unsigned index,
                                       Rewriter &rewriter) const {
  const CallStmt &call = *calls[index];
  std::vector<std::string> args;
  for (const Ident &arg : call.getArgs()) {
    args.push_back(rewriter.tensorName(arg.name));
    rewriter.reads.push_back({args.back(), {}});
  }
  return "  " + llvm::join(results[index], ", ") + " = " +
         call.getCallee().name.str() + "(" + llvm::join(args, ", ") + ")";
}

void BackwardBuilder::addForwardDef(const Def &callee) {
  if (!callees->forwardDefs.insert(callee.getName().name).second)
    return;
  for (const std::unique_ptr<Stmt> &stmt : callee.getBody())
    if (const auto *call = llvm::dyn_cast<CallStmt>(stmt.get()))
      addForwardDef(*call->getCalleeDef());
  Location loc = callee.getLoc();
  callees->defs.push_back(
      llvm::StringRef(loc.Start.getPointer(),
                      loc.End.getPointer() - loc.Start.getPointer())
          .str() +
      "\n");
}

LogicalResult BackwardBuilder::deriveCallee(const Def &callee,
                                            BackwardDef &backward) {
  if (auto it = callees->byCallee.find(callee.getName().name);
      it != callees->byCallee.end()) {
    backward = it->second;
    return success();
  }
  addForwardDef(callee);
  llvm::StringMap<int64_t> noSizes;
  std::optional<DefRanges> calleeRanges =
      inferRanges(program, callee, noSizes, diags);
  if (!calleeRanges)
    return failure();
  std::vector<std::string> wrt;
  for (const Param &input : callee.getInputs())
    if (isFloatingPoint(input.type->scalar))
      wrt.push_back(input.name.name.str());
  BackwardBuilder nested(program, callee, *calleeRanges, diags);
  nested.callees = callees;
  nested.isNested = true;
  if (!wrt.empty() && failed(nested.build(wrt, backward)))
    return failure();
  if (!wrt.empty())
    callees->defs.push_back(backward.source);
  callees->byCallee[callee.getName().name] = backward;
  return success();
}

std::string BackwardBuilder::zeroAdjoint(const std::string &version) {
  std::string name = adjointOf(version);
  hasAdjoint.insert(version);
  auto tensor = tensorOf.find(version);
  ScalarType type =
      def.lookupTensor(tensor == tensorOf.end() ? version : tensor->second)
          ->type;
  std::vector<std::string> wheres;
  std::string text = "  " + name + wholeSubscripts(version, &wheres) + " = " +
                     getSpelling(type).str() + "(0)";
  if (!wheres.empty())
    text += " where " + llvm::join(wheres, ", ");
  body.push_back(text);
  return name;
}

LogicalResult BackwardBuilder::differentiateCall(unsigned index) {
  const CallStmt &call = *calls[index];
  if (llvm::none_of(results[index], [&](const std::string &version) {
        return active.contains(version) && hasAdjoint.contains(version);
      }))
    return success();
  BackwardDef calleeGrad;
  if (failed(deriveCallee(*call.getCalleeDef(), calleeGrad)))
    return failure();
  if (calleeGrad.outputs.empty())
    return success();
  Rewriter rewriter;
  rewriter.tensorNames = readVersions[index];
  std::vector<std::string> args, argVersions;
  for (const Ident &arg : call.getArgs())
    argVersions.push_back(rewriter.tensorName(arg.name));
  args = argVersions;
  for (const std::string &version : results[index])
    args.push_back(version);
  for (const std::string &version : results[index])
    args.push_back(hasAdjoint.contains(version) ? adjointOf(version)
                                                : zeroAdjoint(version));
  for (const std::string &arg : args)
    readByBody.insert(arg);
  // One result per differentiated parameter of the callee (d_<param>).
  std::vector<std::string> grads;
  llvm::SmallVector<std::string, 4> targets;
  llvm::SmallVector<bool, 4> direct;
  for (const std::string &output : calleeGrad.outputs) {
    llvm::StringRef param = llvm::StringRef(output).drop_front(2);
    auto position =
        llvm::find_if(call.getCalleeDef()->getInputs(),
                      [&](const Param &p) { return p.name.name == param; }) -
        call.getCalleeDef()->getInputs().begin();
    const std::string &target = argVersions[position];
    targets.push_back(target);
    // The first contribution to an adjoint can be the call's result itself.
    bool isDirect = active.contains(target) && !hasAdjoint.contains(target) &&
                    llvm::count(targets, target) == 1;
    direct.push_back(isDirect);
    grads.push_back(isDirect ? adjointOf(target) : fresh("g_" + target));
    dims[grads.back()] = dims[target];
  }
  body.push_back("  " + llvm::join(grads, ", ") + " = " + calleeGrad.name +
                 "(" + llvm::join(args, ", ") + ")");
  for (unsigned i = 0; i < grads.size(); ++i) {
    if (direct[i])
      hasAdjoint.insert(targets[i]);
    else if (active.contains(targets[i]))
      addWhole(targets[i], grads[i]);
  }
  return success();
}

std::optional<std::string>
BackwardBuilder::updatedVersion(unsigned index) const {
  const ComprehensionStmt *stmt = stmts[index];
  if (!stmt || stmt->hasInit() || stmt->getReduction() != ReductionKind::Add)
    return std::nullopt;
  auto it = readVersions[index].find(stmt->getLhs().name);
  if (it == readVersions[index].end())
    return std::nullopt;
  return it->second;
}

std::vector<std::string> BackwardBuilder::recompute() {
  // Walk backwards: a recomputed statement needs the versions it reads.
  std::vector<bool> needed(stmts.size(), false);
  llvm::StringSet<> wanted;
  for (const auto &entry : readByBody)
    wanted.insert(entry.first());
  std::vector<std::string> texts(stmts.size());
  for (unsigned k = stmts.size(); k-- > 0;) {
    if (llvm::none_of(results[k], [&](const std::string &version) {
          return !params.contains(version) && wanted.contains(version);
        }))
      continue;
    needed[k] = true;
    Rewriter rewriter;
    rewriter.tensorNames = readVersions[k];
    if (calls[k]) {
      texts[k] = printCall(k, rewriter);
      for (const PrintedRead &read : rewriter.reads)
        wanted.insert(read.tensor);
      continue;
    }
    const ComprehensionStmt &stmt = *stmts[k];
    std::vector<std::string> names;
    for (const Ident &lhs : stmt.getIndices())
      names.push_back(lhs.name.str());
    std::string lhs = written[k];
    if (!names.empty())
      lhs += "(" + llvm::join(names, ", ") + ")";
    std::string text;
    if (std::optional<std::string> previous = updatedVersion(k)) {
      // `O += e` on a version: start from a copy of the previous one.
      std::string subscripts = wholeSubscripts(*previous);
      text = "  " + written[k] + subscripts + " = " + *previous + subscripts +
             "\n";
      wanted.insert(*previous);
    }
    text += "  " + lhs;
    text += " " + getAssignSpelling(stmt.getReduction(), stmt.hasInit()) + " " +
            rewriter.print(stmt.getRhs()).text;
    text += printWheres(stmt, rewriter);
    texts[k] = text;
    for (const PrintedRead &read : rewriter.reads)
      wanted.insert(read.tensor);
  }
  std::vector<std::string> result;
  for (unsigned k = 0; k < stmts.size(); ++k)
    if (needed[k])
      result.push_back(texts[k]);
  return result;
}
