//===- GradCentredSum.cpp - The mean's adjoint from a centred square ------===//
//
// A variance around a mean the def computes,
//
//   mean(n) +=! X(n, d) / D
//   var(n) +=! (X(n, d) - mean(n)) * (X(n, d) - mean(n)) / D
//
// derived statement by statement adds to the mean's adjoint
//
//   d_mean(n) += -(2 * (d_var(n) / D * (X(n, d) - mean(n))))
//
// a sum over d of d_var(n) / D * 2 times the centred values. The centred
// values of X around their own mean sum to zero, so the statement adds
// nothing but rounding, and costs a pass over X per row: layer norm's and
// batch norm's backward both carry one. It is left out where the mean is
// exactly that mean:
//  - the variance statement sums, with no where clause, a product whose
//    factors are the same centred read twice, `X(..) - mean(..)` with the
//    mean read at indices the statement does not reduce, and factors that
//    neither read the mean nor use a reduced index (`/ D`, a weight of n);
//  - the mean statement is `mean(..) +=! X(..) / C`, no where clause, over
//    the same version of X, its reduced indices those of the centred read
//    (the same positions of X, the same ranges), C the product of their
//    extents (printed alike; a range that is not [0, extent) keeps the
//    statement).
// Only a square: for any other function of the centred value the sum of its
// derivative is not zero.
//
//===----------------------------------------------------------------------===//
#include "GradBuilder.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// The factors of the product \p expr: `a * b` and the dividend of `a / b`
/// split further; the divisors go to \p divisors.
void collectFactors(const Expr &expr,
                    llvm::SmallVectorImpl<const Expr *> &factors,
                    llvm::SmallVectorImpl<const Expr *> &divisors) {
  const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (binary && binary->getOp() == BinaryOp::Mul) {
    collectFactors(binary->getLhs(), factors, divisors);
    collectFactors(binary->getRhs(), factors, divisors);
    return;
  }
  if (binary && binary->getOp() == BinaryOp::Div) {
    collectFactors(binary->getLhs(), factors, divisors);
    divisors.push_back(&binary->getRhs());
    return;
  }
  factors.push_back(&expr);
}

/// Whether \p expr reads tensor \p tensor as a value.
bool readsTensor(const Expr &expr, llvm::StringRef tensor) {
  llvm::SmallVector<const Expr *, 4> reads;
  collectValueReads(expr, reads);
  return llvm::any_of(
      reads, [&](const Expr *read) { return readTensor(*read) == tensor; });
}

/// The printed factors of a product of extents, sorted.
std::vector<std::string> printedFactors(const Expr &expr) {
  llvm::SmallVector<const Expr *, 4> factors, divisors;
  collectFactors(expr, factors, divisors);
  std::vector<std::string> texts;
  if (!divisors.empty())
    return texts;
  Rewriter printer;
  for (const Expr *factor : factors)
    texts.push_back(printer.print(*factor).text);
  llvm::sort(texts);
  return texts;
}

} // namespace

/// The centred read `X(..) - M(..)` of \p factor, whose M read is one of
/// \p targets, as X's read; null where \p factor is none.
static const ApplyExpr *centredRead(const Expr &factor,
                                    llvm::ArrayRef<const Expr *> targets) {
  const auto *difference = llvm::dyn_cast<BinaryExpr>(&factor);
  if (!difference || difference->getOp() != BinaryOp::Sub ||
      !llvm::is_contained(targets, &difference->getRhs()))
    return nullptr;
  const auto *read = llvm::dyn_cast<ApplyExpr>(&difference->getLhs());
  if (!read || !read->isTensorRead() || !plainSubscripts(*read))
    return nullptr;
  return read;
}

bool BackwardBuilder::isCentredSquare(
    unsigned index, llvm::ArrayRef<const Expr *> targets) const {
  const ComprehensionStmt *stmt = stmts[index];
  if (!stmt || stmt->getReduction() != ReductionKind::Add ||
      stmt->getReductionVars().empty() || !stmt->getWheres().empty() ||
      targets.size() != 2)
    return false;
  llvm::ArrayRef<std::string> reduced = stmt->getReductionVars();
  auto isReduced = [&](llvm::StringRef var) {
    return llvm::is_contained(reduced, var);
  };
  auto meanSubscripts = plainSubscripts(*targets.front());
  if (!meanSubscripts || llvm::any_of(*meanSubscripts, isReduced))
    return false;
  llvm::StringRef mean = readTensor(*targets.front());
  llvm::SmallVector<const Expr *, 4> factors, divisors;
  collectFactors(stmt->getRhs(), factors, divisors);
  llvm::SmallVector<const ApplyExpr *, 2> centred;
  auto isConstantFactor = [&](const Expr *factor) {
    return !readsTensor(*factor, mean) && !mentionsIndexVar(*factor, isReduced);
  };
  for (const Expr *factor : factors) {
    if (const ApplyExpr *read = centredRead(*factor, targets))
      centred.push_back(read);
    else if (!isConstantFactor(factor))
      return false;
  }
  if (centred.size() != 2 || !llvm::all_of(divisors, isConstantFactor))
    return false;
  Rewriter printer;
  if (printer.print(*centred[0]).text != printer.print(*centred[1]).text)
    return false;
  return isMeanOf(index, *targets.front(), *centred[0]);
}

/// Whether the version of \p meanRead that statement \p index reads is
/// `M(..) +=! X(..) / C`, the mean of \p xRead over the indices statement
/// \p index reduces (see the file comment).
bool BackwardBuilder::isMeanOf(unsigned index, const Expr &meanRead,
                               const ApplyExpr &xRead) const {
  llvm::StringRef meanTensor = readTensor(meanRead);
  llvm::StringRef xTensor = xRead.getCallee().name;
  // The version a statement reads: an input is read as itself.
  auto versionRead = [&](unsigned stmt, llvm::StringRef tensor) {
    auto it = readVersions[stmt].find(tensor);
    return it == readVersions[stmt].end() ? tensor.str() : it->second;
  };
  auto writer = llvm::find(written, versionRead(index, meanTensor));
  if (writer == written.end())
    return false;
  unsigned meanIndex = writer - written.begin();
  const ComprehensionStmt *meanStmt = stmts[meanIndex];
  if (!meanStmt || meanIndex >= index ||
      meanStmt->getReduction() != ReductionKind::Add || !meanStmt->hasInit() ||
      !meanStmt->getWheres().empty())
    return false;
  const auto *ratio = llvm::dyn_cast<BinaryExpr>(&meanStmt->getRhs());
  if (!ratio || ratio->getOp() != BinaryOp::Div ||
      !plainSubscripts(ratio->getLhs()) ||
      readTensor(ratio->getLhs()) != xTensor ||
      versionRead(meanIndex, xTensor) != versionRead(index, xTensor) ||
      usesIndexVars(ratio->getRhs()) || readsTensor(ratio->getRhs(), xTensor))
    return false;
  std::vector<std::string> extents;
  if (!matchReducedPositions(meanIndex, ratio->getLhs(), index, xRead, meanRead,
                             extents))
    return false;
  llvm::sort(extents);
  return extents.size() == meanStmt->getReductionVars().size() &&
         extents == printedFactors(ratio->getRhs());
}

/// Position by position, the subscripts of X in the mean statement
/// \p meanIndex (\p meanX) and in the variance statement \p index
/// (\p varianceX): the mean's kept indices are where the variance reads
/// the mean (\p meanRead), its reduced ones the variance's reduced ones, one
/// for one, over the same ranges from 0; \p extents gets those ranges' ends.
bool BackwardBuilder::matchReducedPositions(
    unsigned meanIndex, const Expr &meanX, unsigned index,
    const Expr &varianceX, const Expr &meanRead,
    std::vector<std::string> &extents) const {
  auto meanSubscripts = *plainSubscripts(meanX);
  auto varianceSubscripts = *plainSubscripts(varianceX);
  auto meanAt = *plainSubscripts(meanRead);
  llvm::ArrayRef<Ident> kept = stmts[meanIndex]->getIndices();
  llvm::ArrayRef<std::string> reduced = stmts[index]->getReductionVars();
  if (meanSubscripts.size() != varianceSubscripts.size() ||
      kept.size() != meanAt.size() ||
      stmts[meanIndex]->getReductionVars().size() != reduced.size())
    return false;
  llvm::StringSet<> varianceReduced;
  for (unsigned position = 0; position < meanSubscripts.size(); ++position) {
    llvm::StringRef inMean = meanSubscripts[position];
    llvm::StringRef inVariance = varianceSubscripts[position];
    auto keptAt = llvm::find_if(
        kept, [&](const Ident &lhs) { return lhs.name == inMean; });
    if (keptAt != kept.end()) {
      if (inVariance != meanAt[keptAt - kept.begin()])
        return false;
      continue;
    }
    if (!llvm::is_contained(reduced, inVariance) ||
        !varianceReduced.insert(inVariance).second)
      return false;
    DimRange range = varRange(meanIndex, inMean);
    if (range.first != "0" || range != varRange(index, inVariance))
      return false;
    extents.push_back(range.second);
  }
  return true;
}
