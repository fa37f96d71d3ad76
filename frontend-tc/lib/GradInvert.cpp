//===- GradInvert.cpp - Writing a read's adjoint over the read tensor -----===//
//
// The adjoint of a read X(s_1, ..., s_k) is a comprehension over X's
// indices x_1..x_k. Each subscript is inverted in turn:
//  - a plain index `i` names x_d itself (a transpose or a broadcast);
//  - an affine subscript `c * v + rest` eliminates one variable v (the
//    forward's LHS indices first, then the smallest |c|): v becomes
//    (x_d - rest) / c, with `(x_d - rest) % c == 0` when |c| > 1, and x_d
//    keeps v's name (`I(n, c, h + kh, w + kw)` gives `d_I(n, c, h, w)` with
//    `h - kh` read from the output);
//  - anything else (a gather, `i % 3`, a variable already eliminated) gets a
//    fresh index and an equality mask `s_d == x_d`: a deterministic
//    scatter-add that sums over the whole iteration space.
// Each eliminated variable must stay in its forward range: a mask
// `lo <= v' && v' < hi` unless the range is the dimension's own.
//
//===----------------------------------------------------------------------===//
#include "GradBuilder.h"
#include "GradRules.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// An affine subscript: integer coefficients of index variables plus a
/// rest without index variables.
struct Linear {
  llvm::SmallVector<std::pair<std::string, int64_t>, 4> coefficients;
  Term rest = zero();

  void addVar(llvm::StringRef var, int64_t coefficient) {
    for (auto &[name, c] : coefficients)
      if (name == var) {
        c += coefficient;
        return;
      }
    coefficients.push_back({var.str(), coefficient});
  }
  void scale(int64_t factor, const Term &factorText) {
    for (auto &entry : coefficients)
      entry.second *= factor;
    rest = mul(rest, factorText);
  }
};

std::optional<Linear> linearize(const Expr &expr, Rewriter &rewriter) {
  Linear result;
  if (!usesIndexVars(expr)) {
    result.rest = rewriter.print(expr);
    return result;
  }
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() == IdentExpr::Ref::Let)
      return linearize(ident->getLet()->getValue(), rewriter);
    result.addVar(ident->getName(), 1);
    return result;
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr)) {
    if (unary->getOp() != UnaryOp::Neg)
      return std::nullopt;
    std::optional<Linear> operand = linearize(unary->getOperand(), rewriter);
    if (operand)
      operand->scale(-1, lit("-1"));
    return operand;
  }
  const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return std::nullopt;
  if (binary->getOp() == BinaryOp::Mul) {
    const Expr *factor = &binary->getLhs(), *other = &binary->getRhs();
    if (!llvm::isa<IntLitExpr>(factor))
      std::swap(factor, other);
    const auto *constant = llvm::dyn_cast<IntLitExpr>(factor);
    if (!constant)
      return std::nullopt;
    std::optional<Linear> scaled = linearize(*other, rewriter);
    if (scaled)
      scaled->scale(constant->getValue(), rewriter.print(*constant));
    return scaled;
  }
  if (binary->getOp() != BinaryOp::Add && binary->getOp() != BinaryOp::Sub)
    return std::nullopt;
  std::optional<Linear> lhs = linearize(binary->getLhs(), rewriter);
  std::optional<Linear> rhs = linearize(binary->getRhs(), rewriter);
  if (!lhs || !rhs)
    return std::nullopt;
  bool subtract = binary->getOp() == BinaryOp::Sub;
  for (const auto &[var, c] : rhs->coefficients)
    lhs->addVar(var, subtract ? -c : c);
  lhs->rest = subtract ? sub(lhs->rest, rhs->rest) : add(lhs->rest, rhs->rest);
  return lhs;
}

using Coefficient = std::pair<std::string, int64_t>;

/// The variable of \p linear to eliminate: not eliminated yet, not used by
/// an earlier elimination, the statement's LHS indices first, then the
/// smallest |coefficient|. Null if none.
const Coefficient *chooseVariable(const Linear &linear,
                                  const ComprehensionStmt &stmt,
                                  const llvm::StringSet<> &eliminated,
                                  const llvm::StringSet<> &referenced) {
  auto rank = [&](const Coefficient &entry) {
    bool isLhs = llvm::any_of(stmt.getIndices(), [&](const Ident &id) {
      return id.name == entry.first;
    });
    return std::make_pair(isLhs ? 0 : 1, std::abs(entry.second));
  };
  const Coefficient *chosen = nullptr;
  for (const Coefficient &entry : linear.coefficients)
    if (entry.second != 0 && !eliminated.contains(entry.first) &&
        !referenced.contains(entry.first) &&
        (!chosen || rank(entry) < rank(*chosen)))
      chosen = &entry;
  return chosen;
}

/// Solves `linear == x` for \p chosen, where x takes the chosen variable's
/// name: (x - others) / c, with a divisibility mask when |c| > 1. The other
/// variables it uses are added to \p referenced.
Term solveFor(const Linear &linear, const Coefficient &chosen,
              const Rewriter &rewriter, const llvm::StringSet<> &eliminated,
              llvm::StringSet<> &referenced, std::vector<Term> &masks) {
  Term others = linear.rest;
  for (const auto &[var, c] : linear.coefficients) {
    if (&var == &chosen.first || c == 0)
      continue;
    others = add(others, mul(lit(std::to_string(c)), rewriter.index(var)));
    if (!eliminated.contains(var))
      referenced.insert(var);
  }
  const std::string &var = chosen.first;
  int64_t c = chosen.second;
  Term numerator = c < 0 ? sub(others, lit(var)) : sub(lit(var), others);
  if (std::abs(c) == 1)
    return numerator;
  Term divisor = lit(std::to_string(std::abs(c)));
  masks.push_back(binary("==", binary("%", numerator, divisor), zero()));
  return div(numerator, divisor);
}

/// In `c * v + r` with r ranging over exactly 0:c (a window as wide as its
/// stride: 2x2 pooling with stride 2), x = c * v + r splits uniquely into
/// v = x / c and r = x % c: r needs neither a reduction nor a mask. The
/// window variable r (free: no LHS index, not used by an earlier
/// inversion), or null.
const Coefficient *
findWindow(const Linear &linear, const Coefficient &chosen,
           const ComprehensionStmt &stmt, const llvm::StringSet<> &eliminated,
           const llvm::StringSet<> &referenced,
           llvm::function_ref<DimRange(llvm::StringRef)> rangeOf) {
  if (!isZero(linear.rest) || chosen.second < 2 ||
      linear.coefficients.size() != 2)
    return nullptr;
  const Coefficient *window = &linear.coefficients.front() == &chosen
                                  ? &linear.coefficients.back()
                                  : &linear.coefficients.front();
  const std::string &var = window->first;
  bool isLhs = llvm::any_of(stmt.getIndices(),
                            [&](const Ident &id) { return id.name == var; });
  if (window->second != 1 || isLhs || eliminated.contains(var) ||
      referenced.contains(var) ||
      rangeOf(var) != DimRange{"0", std::to_string(chosen.second)})
    return nullptr;
  return window;
}

} // namespace

struct BackwardBuilder::Inversion {
  std::vector<std::string> indices;
  std::vector<Term> masks;
  llvm::StringSet<> eliminated;
};

BackwardBuilder::Inversion
BackwardBuilder::invert(unsigned index, const Expr &read, Rewriter &rewriter) {
  const ComprehensionStmt &stmt = *stmts[index];
  llvm::ArrayRef<ExprPtr> subscripts;
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&read))
    subscripts = apply->getArgs();
  std::string tensor = rewriter.tensorName(readTensor(read));
  const std::vector<DimRange> &tensorDims = dims[tensor];
  Inversion inv;
  inv.indices.resize(subscripts.size());
  auto rangeMask = [&](llvm::StringRef var, const Term &value) {
    DimRange range = varRange(index, var);
    inv.masks.push_back(binary("<=", {range.first, PrecAdditive}, value));
    inv.masks.push_back(binary("<", value, {range.second, PrecAdditive}));
  };
  // Plain indices first, so affine subscripts eliminate the others.
  for (unsigned d = 0; d < subscripts.size(); ++d) {
    const auto *ident = llvm::dyn_cast<IdentExpr>(subscripts[d].get());
    if (!ident || ident->getRef() != IdentExpr::Ref::Index ||
        inv.eliminated.contains(ident->getName()))
      continue;
    inv.indices[d] = ident->getName().str();
    inv.eliminated.insert(ident->getName());
    if (varRange(index, ident->getName()) != tensorDims[d])
      rangeMask(ident->getName(), lit(ident->getName()));
  }
  llvm::StringSet<> referenced;
  llvm::SmallVector<unsigned, 2> gathered;
  for (unsigned d = 0; d < subscripts.size(); ++d) {
    if (!inv.indices[d].empty())
      continue;
    std::optional<Linear> linear = linearize(*subscripts[d], rewriter);
    const Coefficient *chosen =
        linear ? chooseVariable(*linear, stmt, inv.eliminated, referenced)
               : nullptr;
    if (!chosen) {
      gathered.push_back(d);
      continue;
    }
    const std::string &var = chosen->first;
    const Coefficient *window = findWindow(
        *linear, *chosen, stmt, inv.eliminated, referenced,
        [&](llvm::StringRef other) { return varRange(index, other); });
    Term stride = lit(std::to_string(chosen->second));
    Term value = window ? div(lit(var), stride)
                        : solveFor(*linear, *chosen, rewriter, inv.eliminated,
                                   referenced, inv.masks);
    if (window && inv.eliminated.insert(window->first).second)
      rewriter.indexSubst[window->first] = binary("%", lit(var), stride);
    inv.indices[d] = var;
    rewriter.indexSubst[var] = value;
    inv.eliminated.insert(var);
    rangeMask(var, value);
  }
  for (unsigned d : gathered) {
    std::string fresh = indexName(d);
    inv.masks.push_back(
        binary("==", rewriter.print(*subscripts[d]), lit(fresh)));
    inv.indices[d] = fresh;
  }
  // A reduction variable whose where clause gets a widened range keeps its
  // exact range as a mask.
  for (const std::string &var : stmt.getReductionVars())
    if (!inv.eliminated.contains(var) &&
        loopRange(index, var) != varRange(index, var))
      rangeMask(var, lit(var));
  rewriter.targetIndices = inv.indices;
  return inv;
}

LogicalResult
BackwardBuilder::addContribution(unsigned index,
                                 llvm::ArrayRef<const Expr *> targets) {
  if (targets.size() == 1 && addTransposedConv(index, *targets.front()))
    return success();
  const ComprehensionStmt &stmt = *stmts[index];
  Rewriter rewriter;
  rewriter.tensorNames = readVersions[index];
  rewriter.targets.assign(targets.begin(), targets.end());
  Inversion inv = invert(index, *targets.front(), rewriter);
  Term seed = makeSeed(index, rewriter);
  Term rootValue;
  PrintedRead rootRead{written[index], {}};
  const Expr &rhs = differentiatedRhs(index);
  if (stmt.getReductionVars().empty() && &rhs == &stmt.getRhs()) {
    llvm::SmallVector<Term, 4> indices;
    for (const Ident &lhs : stmt.getIndices()) {
      indices.push_back(rewriter.index(lhs.name));
      rootRead.subscripts.push_back(indices.back().text);
    }
    rootValue =
        indices.empty() ? lit(written[index]) : call(written[index], indices);
  }
  Differentiator differentiator(rewriter, diags, &rhs, rootValue);
  Term adjoint = differentiator.propagate(rhs, seed);
  if (differentiator.hasFailed())
    return failure();
  if (differentiator.usedRootValue())
    rewriter.reads.push_back(rootRead);
  if (isZero(adjoint))
    return success();
  Term value = inv.masks.empty()
                   ? adjoint
                   : select(conjunction(inv.masks), adjoint, zero());

  std::string version = rewriter.tensorName(readTensor(*targets.front()));
  bool reduces = false;
  std::vector<std::string> wheres =
      rangeClauses(index, inv, rewriter, version, reduces);
  // A normalised exp's seed is no adjoint of a tensor: never aliased.
  if (!reduces && inv.masks.empty() && value.text == seed.text &&
      !normalisedExps.count(index) && aliasAdjoint(index, inv.indices, version))
    return success();
  std::string adjointName = adjointOf(version);
  bool first = hasAdjoint.insert(version).second;
  std::string text = "  " + adjointName;
  if (!inv.indices.empty())
    text += "(" + llvm::join(inv.indices, ", ") + ")";
  text += first ? (reduces ? " +=! " : " = ") : " += ";
  text += value.text;
  if (!wheres.empty())
    text += " where " + llvm::join(wheres, ", ");
  body.push_back(text);
  for (const PrintedRead &read : rewriter.reads)
    readByBody.insert(read.tensor);
  return success();
}

/// An adjoint that is the statement's output adjoint, element for element
/// (`O = O_1 + B(m)` gives d_O_1 = d_O), and gets nothing else, is that
/// tensor: no copy.
bool BackwardBuilder::aliasAdjoint(unsigned index,
                                   llvm::ArrayRef<std::string> indices,
                                   const std::string &version) {
  const ComprehensionStmt &stmt = *stmts[index];
  // The adjoints of the inputs are the backward's outputs, by name.
  if (params.contains(version) || hasAdjoint.contains(version) ||
      adjoints.count(version) || readerCount.lookup(version) != 1 ||
      indices.size() != stmt.getIndices().size())
    return false;
  for (auto [name, lhs] : llvm::zip(indices, stmt.getIndices()))
    if (name != lhs.name)
      return false;
  std::string outputAdjoint = adjointOf(written[index]);
  if (dims[outputAdjoint] != dims[version])
    return false;
  adjoints[version] = outputAdjoint;
  hasAdjoint.insert(version);
  return true;
}

std::vector<std::string>
BackwardBuilder::rangeClauses(unsigned index, const Inversion &inv,
                              const Rewriter &rewriter,
                              const std::string &version, bool &reduces) {
  std::vector<std::string> wheres;
  // Masked reads must not bound a variable (range inference would keep
  // only the points where every read is in bounds): every variable gets
  // its range from a where clause then.
  bool bindAll = !inv.masks.empty();
  const std::vector<DimRange> &versionDims = dims[version];
  for (auto [name, range] : llvm::zip(inv.indices, versionDims))
    if (bindAll || !boundedByRead(rewriter, name, range))
      wheres.push_back(name + " in " + range.first + ":" + range.second);
  reduces = false;
  for (const std::string &var : stmts[index]->getIndexVars()) {
    if (inv.eliminated.contains(var))
      continue;
    reduces = true;
    DimRange range = loopRange(index, var);
    if (bindAll || !boundedByRead(rewriter, var, range))
      wheres.push_back(var + " in " + range.first + ":" + range.second);
  }
  return wheres;
}

bool BackwardBuilder::boundedByRead(const Rewriter &rewriter,
                                    llvm::StringRef var,
                                    const DimRange &range) const {
  for (const PrintedRead &read : rewriter.reads) {
    auto it = dims.find(read.tensor);
    if (it == dims.end())
      continue;
    for (auto [subscript, dim] : llvm::zip(read.subscripts, it->second))
      if (subscript == var && dim == range)
        return true;
  }
  return false;
}
