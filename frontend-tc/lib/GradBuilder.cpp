//===- GradBuilder.cpp - Building the backward def of one TC def ----------===//
#include "GradBuilder.h"
#include "GradRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

std::string dimText(const TensorType::Dim &dim) {
  return dim.sizeVar.empty() ? std::to_string(dim.constant) : dim.sizeVar.str();
}

} // namespace

std::string BackwardBuilder::fresh(llvm::StringRef base) {
  std::string name = base.str();
  while (used.contains(name))
    name += "_";
  used.insert(name);
  return name;
}

std::string BackwardBuilder::indexName(unsigned dim) const {
  // Index variables are local to a statement: only tensors, size variables
  // and the forward's names must be avoided.
  std::string name = "i" + std::to_string(dim);
  while (used.contains(name))
    name += "_";
  return name;
}

LogicalResult BackwardBuilder::checkSupported() {
  llvm::StringSet<> writtenSoFar;
  for (const std::unique_ptr<Stmt> &stmt : def.getBody()) {
    const auto *comp = llvm::dyn_cast<ComprehensionStmt>(stmt.get());
    stmts.push_back(comp);
    calls.push_back(llvm::dyn_cast<CallStmt>(stmt.get()));
    if (!comp) {
      for (const Ident &result : calls.back()->getResults())
        writtenSoFar.insert(result.name);
      continue;
    }
    ReductionKind op = comp->getReduction();
    bool reduces = !comp->getReductionVars().empty();
    if (op == ReductionKind::Mul && (reduces || !comp->hasInit()))
      return diags.emitError(comp->getOpLoc())
             << "product reductions have no derived gradient: write the "
                "product as exp of a sum of logs";
    // `O +=` into the caller's value of O: that value is no input of the
    // backward, so O can only be the final version.
    bool lastWrite = llvm::none_of(
        def.getBody().drop_front(stmts.size()), [&](const auto &later) {
          const auto *next = llvm::dyn_cast<ComprehensionStmt>(later.get());
          return next && next->getLhs().name == comp->getLhs().name;
        });
    if (op == ReductionKind::Add && !comp->hasInit() &&
        !writtenSoFar.contains(comp->getLhs().name) && !lastWrite)
      return diags.emitError(comp->getOpLoc())
             << "'" << comp->getLhs().name
             << "' accumulates into the value the caller passes and is "
                "written again: its intermediate value is not differentiated";
    if ((op == ReductionKind::Min || op == ReductionKind::Max) &&
        !comp->hasInit())
      return diags.emitError(comp->getOpLoc())
             << "'" << getAssignSpelling(op, false)
             << "' without '!' is not differentiated: use '"
             << getAssignSpelling(op, true) << "'";
    writtenSoFar.insert(comp->getLhs().name);
  }
  return success();
}

void BackwardBuilder::collectNames() {
  used.insert(def.getName().name);
  for (const std::string &size : def.getSizeVars())
    used.insert(size);
  for (const auto &entry : def.getTensors())
    used.insert(entry.first);
  for (const ComprehensionStmt *stmt : stmts) {
    if (!stmt)
      continue;
    for (const std::string &var : stmt->getIndexVars())
      used.insert(var);
    for (const WhereClause &where : stmt->getWheres())
      if (where.getKind() == WhereClause::Kind::Let)
        used.insert(where.getVar().name);
  }
}

DimRange BackwardBuilder::varRange(unsigned index, llvm::StringRef var) const {
  const poly::VarRange *range = ranges.statements[index].ranges.lookup(var);
  if (!range)
    return {"0", "0"};
  return {boundText(printIndexExpr(range->loExpr, sizeVarOf)),
          boundText(printIndexExpr(range->hiExpr, sizeVarOf))};
}

/// A loop bound that contains \p bound: a Select (a bound that differs
/// between ranges of the sizes, which no where clause takes) widens to the
/// loosest of its values.
static poly::IndexExpr widenSelect(const poly::IndexExpr &bound, bool upper) {
  using Kind = poly::IndexExpr::Kind;
  if (bound.getKind() != Kind::Select)
    return bound;
  poly::IndexExpr a = widenSelect(bound.getOperands()[1], upper);
  poly::IndexExpr b = widenSelect(bound.getOperands()[2], upper);
  if (a.getKind() == Kind::Constant && b.getKind() == Kind::Constant)
    return poly::IndexExpr::constant(
        upper ? std::max(a.getValue(), b.getValue())
              : std::min(a.getValue(), b.getValue()));
  return poly::IndexExpr::binary(upper ? Kind::Max : Kind::Min, a, b);
}

DimRange BackwardBuilder::loopRange(unsigned index, llvm::StringRef var) const {
  const poly::VarRange *range = ranges.statements[index].ranges.lookup(var);
  if (!range)
    return {"0", "0"};
  return {
      boundText(printIndexExpr(widenSelect(range->loExpr, false), sizeVarOf)),
      boundText(printIndexExpr(widenSelect(range->hiExpr, true), sizeVarOf))};
}

void BackwardBuilder::nameOutputSizes() {
  for (const Param &input : def.getInputs()) {
    std::vector<DimRange> inputDims;
    for (const TensorType::Dim &dim : input.type->dims)
      inputDims.push_back({"0", dimText(dim)});
    dims[input.name.name] = inputDims;
    params.insert(input.name.name);
  }
  for (const Param &output : def.getOutputs()) {
    const poly::TensorShape &shape =
        ranges.shapes.find(output.name.name)->second;
    auto first = llvm::find_if(stmts, [&](const ComprehensionStmt *stmt) {
      return stmt && stmt->getLhs().name == output.name.name;
    });
    std::vector<DimRange> outputDims;
    for (unsigned d = 0; d < shape.extentExprs.size(); ++d) {
      const poly::IndexExpr &extent = shape.extentExprs[d];
      std::string name;
      if (extent.getKind() == poly::IndexExpr::Kind::Param)
        name = extent.getName().str();
      else if (extent.getKind() == poly::IndexExpr::Kind::Constant)
        name = std::to_string(extent.getValue());
      else if (auto it = sizeVarOf.find(extent.str()); it != sizeVarOf.end())
        name = it->second;
      else
        name = sizeVarOf[extent.str()] =
            fresh(output.name.name.str() + "_" +
                  (first != stmts.end() ? (*first)->getIndices()[d].name.str()
                                        : std::to_string(d)));
      outputDims.push_back({"0", name});
    }
    dims[output.name.name] = outputDims;
    dims["d_" + output.name.name.str()] = outputDims;
    params.insert(output.name.name);
    params.insert("d_" + output.name.name.str());
  }
}

void BackwardBuilder::assignVersions() {
  llvm::StringMap<unsigned> lastWrite, writes;
  for (unsigned k = 0; k < stmts.size(); ++k)
    for (llvm::StringRef tensor : writesOf(k))
      lastWrite[tensor] = k;
  llvm::StringMap<std::string> current;
  for (unsigned k = 0; k < stmts.size(); ++k) {
    readVersions.push_back(current);
    std::vector<std::string> versions;
    for (llvm::StringRef tensor : writesOf(k)) {
      unsigned count = ++writes[tensor];
      std::string name =
          lastWrite[tensor] == k
              ? tensor.str()
              : fresh(tensor.str() + "_" + std::to_string(count));
      versions.push_back(name);
      current[tensor] = name;
      tensorOf[name] = tensor.str();
      if (!params.contains(name))
        dims[name] = versionDims(k, tensor);
    }
    written.push_back(versions.front());
    results.push_back(versions);
  }
}

void BackwardBuilder::markActive(llvm::ArrayRef<std::string> wrt) {
  for (const std::string &input : wrt)
    active.insert(input);
  for (unsigned k = 0; k < stmts.size(); ++k) {
    Rewriter rewriter;
    rewriter.tensorNames = readVersions[k];
    for (llvm::StringRef tensor : readsOf(k))
      if (active.contains(rewriter.tensorName(tensor)))
        for (const std::string &version : results[k])
          active.insert(version);
    countReaders(k);
  }
}

void BackwardBuilder::countReaders(unsigned index) {
  Rewriter printer;
  printer.tensorNames = readVersions[index];
  if (calls[index]) {
    for (const Ident &arg : calls[index]->getArgs())
      ++readerCount[printer.tensorName(arg.name)];
    return;
  }
  // Reads that print alike form one contribution (differentiate).
  if (std::optional<std::string> previous = updatedVersion(index))
    ++readerCount[*previous];
  llvm::SmallVector<const Expr *, 8> reads;
  collectValueReads(stmts[index]->getRhs(), reads);
  llvm::StringSet<> distinct;
  for (const Expr *read : reads)
    if (distinct.insert(printer.print(*read).text).second)
      ++readerCount[printer.tensorName(readTensor(*read))];
}

std::string BackwardBuilder::adjointOf(const std::string &version) {
  auto it = adjoints.find(version);
  if (it != adjoints.end())
    return it->second;
  std::string name =
      params.contains(version) ? "d_" + version : fresh("d_" + version);
  dims[name] = dims[version];
  adjoints[version] = name;
  return name;
}

std::string BackwardBuilder::printWheres(const ComprehensionStmt &stmt,
                                         Rewriter &rewriter) {
  std::vector<std::string> clauses;
  for (const WhereClause &where : stmt.getWheres()) {
    if (where.getKind() == WhereClause::Kind::Range)
      clauses.push_back(where.getVar().name.str() + " in " +
                        boundText(rewriter.print(where.getLo())) + ":" +
                        boundText(rewriter.print(where.getHi())));
    else if (where.getKind() == WhereClause::Kind::Exists)
      clauses.push_back("exists " + rewriter.print(where.getValue()).text);
  }
  return clauses.empty() ? "" : " where " + llvm::join(clauses, ", ");
}

/// Counts the elements that attain the extremum of a min=!/max=! statement:
/// the adjoint is split evenly among ties (torch.amax's rule). The count is
/// an integer (`1 : 0`): an int32 sum of a select vectorises where the float
/// one did not (softmax's backward at 512x512: 0.27 -> 0.11 ms on PoCL).
std::string BackwardBuilder::makeTies(unsigned index) {
  const ComprehensionStmt &stmt = *stmts[index];
  Rewriter rewriter;
  rewriter.tensorNames = readVersions[index];
  std::string name = fresh(written[index] + "_ties");
  dims[name] = dims[written[index]];
  llvm::SmallVector<Term, 4> indices;
  std::vector<std::string> names;
  for (const Ident &lhs : stmt.getIndices()) {
    indices.push_back(lit(lhs.name));
    names.push_back(lhs.name.str());
  }
  Term value =
      indices.empty() ? lit(written[index]) : call(written[index], indices);
  rewriter.reads.push_back({written[index], names});
  Term equal = binary("==", rewriter.print(stmt.getRhs()), value);
  std::string text = "  " + name;
  if (!names.empty())
    text += "(" + llvm::join(names, ", ") + ")";
  text += " +=! " + select(equal, lit("1"), lit("0")).text;
  text += printWheres(stmt, rewriter);
  body.push_back(text);
  for (const PrintedRead &read : rewriter.reads)
    readByBody.insert(read.tensor);
  return name;
}

Term BackwardBuilder::makeSeed(unsigned index, Rewriter &rewriter) {
  if (normalisedExps.count(index))
    return normalisedSeed(index, rewriter);
  const ComprehensionStmt &stmt = *stmts[index];
  const std::string &version = written[index];
  llvm::SmallVector<Term, 4> indices;
  std::vector<std::string> texts;
  for (const Ident &lhs : stmt.getIndices()) {
    indices.push_back(rewriter.index(lhs.name));
    texts.push_back(indices.back().text);
  }
  auto read = [&](const std::string &tensor) {
    rewriter.reads.push_back({tensor, texts});
    return indices.empty() ? lit(tensor) : call(tensor, indices);
  };
  Term seed = read(adjointOf(version));
  ReductionKind op = stmt.getReduction();
  if ((op != ReductionKind::Min && op != ReductionKind::Max) ||
      stmt.getReductionVars().empty())
    return seed;
  auto ties = tiesOf.find(index);
  Term equal = binary("==", rewriter.print(stmt.getRhs()), read(version));
  return select(equal, div(seed, read(ties->second)), zero());
}

LogicalResult BackwardBuilder::differentiate(unsigned index) {
  const ComprehensionStmt &stmt = *stmts[index];
  const std::string &version = written[index];
  if (!active.contains(version) || !hasAdjoint.contains(version))
    return success();
  if (auto ratio = expOfRatio.find(index); ratio != expOfRatio.end()) {
    addNormalisedDot(ratio->second);
    return success();
  }
  ReductionKind op = stmt.getReduction();
  if ((op == ReductionKind::Min || op == ReductionKind::Max) &&
      !stmt.getReductionVars().empty())
    tiesOf[index] = makeTies(index);
  llvm::SmallVector<const Expr *, 8> reads;
  collectValueReads(differentiatedRhs(index), reads);
  // Reads that print alike are one target: their adjoints add up.
  Rewriter printer;
  printer.tensorNames = readVersions[index];
  std::vector<std::pair<std::string, std::vector<const Expr *>>> groups;
  for (const Expr *read : reads) {
    llvm::StringRef tensor = readTensor(*read);
    const TensorInfo *info = def.lookupTensor(tensor);
    if (!info || !isFloatingPoint(info->type) ||
        !active.contains(printer.tensorName(tensor)))
      continue;
    std::string text = printer.print(*read).text;
    auto it =
        llvm::find_if(groups, [&](const auto &g) { return g.first == text; });
    if (it == groups.end())
      groups.push_back({text, {read}});
    else
      it->second.push_back(read);
  }
  for (auto &group : groups) {
    if (isCentredSquare(index, group.second))
      continue;
    if (failed(addContribution(index, group.second)))
      return failure();
  }
  // `O += e` passes its whole adjoint on to the version it adds to.
  if (std::optional<std::string> previous = updatedVersion(index);
      previous && active.contains(*previous))
    addWhole(*previous, adjointOf(version));
  return success();
}

void BackwardBuilder::addWhole(const std::string &version,
                               const std::string &adjoint) {
  // The only contribution, of the same shape: the adjoint is that tensor.
  if (!params.contains(version) && !hasAdjoint.contains(version) &&
      !adjoints.count(version) && readerCount.lookup(version) == 1 &&
      dims[adjoint] == dims[version]) {
    adjoints[version] = adjoint;
    hasAdjoint.insert(version);
    return;
  }
  std::string target = adjointOf(version);
  bool first = hasAdjoint.insert(version).second;
  std::string subscripts = wholeSubscripts(version);
  body.push_back("  " + target + subscripts + (first ? " = " : " += ") +
                 adjoint + subscripts);
}

std::string BackwardBuilder::wholeSubscripts(const std::string &tensor,
                                             std::vector<std::string> *wheres) {
  std::vector<std::string> indices;
  for (const DimRange &dim : dims[tensor]) {
    indices.push_back(indexName(indices.size()));
    if (wheres)
      wheres->push_back(indices.back() + " in " + dim.first + ":" + dim.second);
  }
  return indices.empty() ? "" : "(" + llvm::join(indices, ", ") + ")";
}

/// The adjoint of a final output is d_<O>; an output that later statements
/// read gets more contributions, so it accumulates into a copy of d_<O>.
void BackwardBuilder::seedOutputAdjoints() {
  for (const Param &output : def.getOutputs()) {
    llvm::StringRef name = output.name.name;
    std::string given = "d_" + name.str();
    adjoints[name] = given;
    hasAdjoint.insert(name);
    bool readLater = false;
    for (unsigned k = 0; k < stmts.size(); ++k) {
      auto version = readVersions[k].find(name);
      readLater |= version != readVersions[k].end() &&
                   version->second == name &&
                   llvm::is_contained(readsOf(k), name);
    }
    if (!readLater || !active.contains(name))
      continue;
    std::string total = fresh(given + "_total");
    dims[total] = dims[name];
    adjoints[name] = total;
    std::string subscripts = wholeSubscripts(name.str());
    body.push_back("  " + total + subscripts + " = " + given + subscripts);
  }
}

std::string
BackwardBuilder::printHeader(llvm::ArrayRef<std::string> outputs) const {
  std::vector<std::string> parameters;
  auto typed = [&](llvm::StringRef tensor, llvm::StringRef name) {
    std::string text = getSpelling(def.lookupTensor(tensor)->type).str();
    const std::vector<DimRange> &tensorDims = dims.find(tensor)->second;
    if (!tensorDims.empty()) {
      std::vector<std::string> extents;
      for (const DimRange &dim : tensorDims)
        extents.push_back(dim.second);
      text += "(" + llvm::join(extents, ", ") + ")";
    }
    parameters.push_back(text + " " + name.str());
  };
  for (const Param &input : def.getInputs())
    typed(input.name.name, input.name.name);
  for (const Param &output : def.getOutputs())
    typed(output.name.name, output.name.name);
  for (const Param &output : def.getOutputs())
    typed(output.name.name, "d_" + output.name.name.str());
  return "def " + def.getName().name.str() + "_grad(" +
         llvm::join(parameters, ", ") + ") -> (" + llvm::join(outputs, ", ") +
         ") {\n";
}

LogicalResult BackwardBuilder::build(llvm::ArrayRef<std::string> wrt,
                                     BackwardDef &result) {
  if (failed(checkSupported()))
    return failure();
  collectNames();
  for (const Param &param :
       llvm::concat<const Param>(def.getInputs(), def.getOutputs()))
    if (used.contains("d_" + param.name.name.str()))
      return diags.emitError(param.name.loc)
             << "the adjoint of '" << param.name.name << "' would be named 'd_"
             << param.name.name << "', which the def already uses";
  for (const Param &output : def.getOutputs()) {
    auto shape = ranges.shapes.find(output.name.name);
    if (shape != ranges.shapes.end() &&
        llvm::any_of(shape->second.loExprs, [](const poly::IndexExpr &lo) {
          return lo.getKind() != poly::IndexExpr::Kind::Constant ||
                 lo.getValue() != 0;
        }))
      return diags.emitError(output.name.loc)
             << "output '" << output.name.name
             << "' does not start at index 0; its gradient is not derived";
  }
  nameOutputSizes();
  assignVersions();
  markActive(wrt);
  dropCancelledShifts();
  findNormalisedExps();
  seedOutputAdjoints();
  for (unsigned k = stmts.size(); k-- > 0;)
    if (failed(calls[k] ? differentiateCall(k) : differentiate(k)))
      return failure();
  for (const Param &input : def.getInputs()) {
    if (!llvm::is_contained(wrt, input.name.name))
      continue;
    result.outputs.push_back("d_" + input.name.name.str());
    if (!hasAdjoint.contains(input.name.name))
      zeroAdjoint(input.name.name.str());
  }
  for (const Param &param :
       llvm::concat<const Param>(def.getInputs(), def.getOutputs()))
    result.inputs.push_back(param.name.name.str());
  for (const Param &output : def.getOutputs())
    result.inputs.push_back("d_" + output.name.name.str());
  result.name = def.getName().name.str() + "_grad";
  std::string source = (isNested ? "" : llvm::join(callees->defs, "")) +
                       printHeader(result.outputs);
  for (const std::string &line : recompute())
    source += line + "\n";
  for (const std::string &line : body)
    source += line + "\n";
  result.source = source + "}\n";
  return success();
}
