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
  std::string tensor = rewriter.tensorName(
      llvm::isa<ApplyExpr>(read) ? llvm::cast<ApplyExpr>(read).getCallee().name
                                 : llvm::cast<IdentExpr>(read).getName());
  const std::vector<DimRange> &tensorDims = dims[tensor];
  Inversion inv;
  inv.indices.resize(subscripts.size());
  auto rangeMask = [&](llvm::StringRef var, const Term &value) {
    DimRange range = varRange(index, var);
    inv.masks.push_back(binary("<=", lit(range.first), value));
    inv.masks.push_back(binary("<", value, lit(range.second)));
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
    const std::pair<std::string, int64_t> *chosen = nullptr;
    auto rank = [&](const std::pair<std::string, int64_t> &entry) {
      bool isLhs = llvm::any_of(stmt.getIndices(), [&](const Ident &id) {
        return id.name == entry.first;
      });
      return std::make_pair(isLhs ? 0 : 1, std::abs(entry.second));
    };
    if (linear)
      for (const auto &entry : linear->coefficients)
        if (entry.second != 0 && !inv.eliminated.contains(entry.first) &&
            !referenced.contains(entry.first) &&
            (!chosen || rank(entry) < rank(*chosen)))
          chosen = &entry;
    if (!chosen) {
      gathered.push_back(d);
      continue;
    }
    // v = (x - others) / c, where x takes v's name.
    Term others = linear->rest;
    for (const auto &[var, c] : linear->coefficients) {
      if (&var == &chosen->first || c == 0)
        continue;
      auto it = rewriter.indexSubst.find(var);
      Term value = it != rewriter.indexSubst.end() ? it->second : lit(var);
      others = add(others, mul(lit(std::to_string(c)), value));
      if (!inv.eliminated.contains(var))
        referenced.insert(var);
    }
    const std::string &var = chosen->first;
    int64_t c = chosen->second;
    Term numerator = c < 0 ? sub(others, lit(var)) : sub(lit(var), others);
    Term value = numerator;
    if (std::abs(c) != 1) {
      Term divisor = lit(std::to_string(std::abs(c)));
      inv.masks.push_back(
          binary("==", binary("%", numerator, divisor), zero()));
      value = div(numerator, divisor);
    }
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
  rewriter.targetIndices = inv.indices;
  return inv;
}

LogicalResult
BackwardBuilder::addContribution(unsigned index,
                                 llvm::ArrayRef<const Expr *> targets) {
  const ComprehensionStmt &stmt = *stmts[index];
  Rewriter rewriter;
  rewriter.tensorNames = readVersions[index];
  rewriter.targets.assign(targets.begin(), targets.end());
  Inversion inv = invert(index, *targets.front(), rewriter);
  Term seed = makeSeed(index, rewriter);
  Term rootValue;
  PrintedRead rootRead{written[index], {}};
  if (stmt.getReductionVars().empty()) {
    llvm::SmallVector<Term, 4> indices;
    for (const Ident &lhs : stmt.getIndices()) {
      indices.push_back(rewriter.index(lhs.name));
      rootRead.subscripts.push_back(indices.back().text);
    }
    rootValue =
        indices.empty() ? lit(written[index]) : call(written[index], indices);
  }
  Differentiator differentiator(rewriter, diags, &stmt.getRhs(), rootValue);
  Term adjoint = differentiator.propagate(stmt.getRhs(), seed);
  if (differentiator.hasFailed())
    return failure();
  if (differentiator.usedRootValue())
    rewriter.reads.push_back(rootRead);
  if (isZero(adjoint))
    return success();
  Term value = inv.masks.empty()
                   ? adjoint
                   : select(conjunction(inv.masks), adjoint, zero());

  std::string version = rewriter.tensorName(
      llvm::isa<ApplyExpr>(targets.front())
          ? llvm::cast<ApplyExpr>(targets.front())->getCallee().name
          : llvm::cast<IdentExpr>(targets.front())->getName());
  std::vector<std::string> wheres;
  // Masked reads must not bound a variable (range inference would keep
  // only the points where every read is in bounds): every variable gets
  // its range from a where clause then.
  bool bindAll = !inv.masks.empty();
  const std::vector<DimRange> &versionDims = dims[version];
  for (auto [name, range] : llvm::zip(inv.indices, versionDims))
    if (bindAll || !boundedByRead(rewriter, name, range))
      wheres.push_back(name + " in " + range.first + ":" + range.second);
  bool reduces = false;
  for (const std::string &var : stmt.getIndexVars()) {
    if (inv.eliminated.contains(var))
      continue;
    reduces = true;
    DimRange range = varRange(index, var);
    if (bindAll || !boundedByRead(rewriter, var, range))
      wheres.push_back(var + " in " + range.first + ":" + range.second);
  }
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
