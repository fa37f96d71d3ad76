//===- GradNormalisedExp.cpp - The closed form of a normalised exp --------===//
//
// Softmax's ratio
//
//   e(n, d) = exp(a)
//   s(n) +=! e(n, d)
//   Y(n, d) = e(n, d) / s(n)
//
// derived statement by statement gives
//
//   d_e(n, d) = d_Y(n, d) / s(n)
//   d_s(n) +=! -(d_Y(n, d) * Y(n, d) / s(n))
//   d_e(n, d) += d_s(n)
//   d_a = d_e(n, d) * e(n, d)
//
// which recomputes e and s from the forward's input (an exp per element),
// divides per element and keeps d_e, a temporary of e's size. Since
// e / s is Y, which the backward receives, the same adjoint is
//
//   Y_dot(n) +=! d_Y(n, d) * Y(n, d)
//   d_a = Y(n, d) * (d_Y(n, d) - Y_dot(n))
//
// (PyTorch's softmax backward computes this formula): Y and d_Y read once
// each, no exp, no temporary of e's size. On PoCL at 4096 x 2048 the
// backward kernel went from 5.1-6.3 to 1.6-2.4 ms, at 512 x 512 from 0.095
// to 0.040 ms (bench/results/autograd.txt).
//
// The rule holds where e is read only by one sum and by one ratio, the sum
// is read only by that ratio (so that the adjoints of e and s come from it
// alone), the ratio's output is a forward output (saved, and read at e's
// own indices), and neither the sum nor the ratio narrows its ranges with a
// where clause (the dot then sums over what the normaliser sums). The
// shift of a stabilised softmax is dropped before (GradShift.cpp).
//
//===----------------------------------------------------------------------===//
#include "GradBuilder.h"

#include "llvm/ADT/StringExtras.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// The argument of \p stmt's right-hand side when that is `exp(arg)`.
const Expr *expArgument(const ComprehensionStmt &stmt) {
  const auto *exp = llvm::dyn_cast<ApplyExpr>(&stmt.getRhs());
  if (!exp || exp->isTensorRead() || exp->getCallee().name != "exp" ||
      exp->getArgs().size() != 1)
    return nullptr;
  return exp->getArgs()[0].get();
}

std::vector<std::string> lhsNames(const ComprehensionStmt &stmt) {
  std::vector<std::string> names;
  for (const Ident &lhs : stmt.getIndices())
    names.push_back(lhs.name.str());
  return names;
}

std::string subscriptText(llvm::ArrayRef<std::string> names) {
  return names.empty() ? "" : "(" + llvm::join(names, ", ") + ")";
}

} // namespace

/// Whether statement \p index is `e = exp(a)` that the rule above takes;
/// fills \p found.
bool BackwardBuilder::matchNormalisedExp(unsigned index,
                                         NormalisedExp &found) const {
  const ComprehensionStmt *stmt = stmts[index];
  const std::string &eVersion = written[index];
  if (!stmt || !isPlainAssign(*stmt) || !expArgument(*stmt) ||
      params.contains(eVersion) || !active.contains(eVersion))
    return false;
  auto readers = readersOf(index, eVersion);
  if (readers.size() != 2 || readers[0].second != 1 || readers[1].second != 1)
    return false;
  for (unsigned which = 0; which < 2; ++which) {
    unsigned sum = readers[which].first, ratio = readers[1 - which].first;
    llvm::SmallVector<int, 4> keep;
    if (!stmts[sum] || !stmts[sum]->getWheres().empty() ||
        !isNormaliser(sum, eVersion, keep))
      continue;
    auto sumReaders = readersOf(sum, written[sum]);
    const ComprehensionStmt *ratioStmt = stmts[ratio];
    if (sumReaders.size() != 1 || sumReaders.front().first != ratio ||
        !isPlainAssign(*ratioStmt) || !ratioStmt->getWheres().empty() ||
        !params.contains(written[ratio]) ||
        written[ratio] != tensorOf.lookup(written[ratio]))
      return false;
    // The ratio reads e at its own indices: Y's dimension p is e's.
    const auto &quotient = llvm::cast<BinaryExpr>(ratioStmt->getRhs());
    auto eSubscripts = *plainSubscripts(quotient.getLhs());
    std::vector<std::string> names = lhsNames(*ratioStmt);
    if (eSubscripts.size() != names.size() || !llvm::equal(eSubscripts, names))
      return false;
    found = {ratio, sum, std::vector<int>(keep.begin(), keep.end()), ""};
    return true;
  }
  return false;
}

void BackwardBuilder::findNormalisedExps() {
  for (unsigned k = 0; k < stmts.size(); ++k) {
    NormalisedExp found;
    if (!matchNormalisedExp(k, found))
      continue;
    expOfRatio[found.ratio] = k;
    normalisedExps[k] = std::move(found);
  }
}

/// For the ratio of a normalised exp: `Y_dot(..) +=! d_Y(..) * Y(..)` over
/// the sum's indices; the exp's adjoint is then given by its seed
/// (normalisedSeed) instead of statements for the ratio and the sum.
void BackwardBuilder::addNormalisedDot(unsigned expIndex) {
  NormalisedExp &exp = normalisedExps[expIndex];
  const ComprehensionStmt &ratio = *stmts[exp.ratio];
  const std::string &output = written[exp.ratio];
  std::string adjoint = adjointOf(output);
  std::vector<std::string> names = lhsNames(ratio);
  std::vector<std::string> kept;
  for (int position : exp.keep)
    kept.push_back(names[position]);
  exp.dot = fresh(output + "_dot");
  dims[exp.dot] = dims[written[exp.sum]];
  std::string subscripts = subscriptText(names);
  body.push_back("  " + exp.dot + subscriptText(kept) + " +=! " + adjoint +
                 subscripts + " * " + output + subscripts);
  readByBody.insert(adjoint);
  readByBody.insert(output);
  hasAdjoint.insert(written[expIndex]);
}

/// The adjoint of the exp's argument at the indices \p rewriter gives the
/// exp statement's: `Y(..) * (d_Y(..) - Y_dot(..))`.
Term BackwardBuilder::normalisedSeed(unsigned expIndex, Rewriter &rewriter) {
  const NormalisedExp &exp = normalisedExps.find(expIndex)->second;
  const std::string &output = written[exp.ratio];
  std::vector<std::string> texts;
  llvm::SmallVector<Term, 4> indices, kept;
  for (const Ident &lhs : stmts[expIndex]->getIndices()) {
    indices.push_back(rewriter.index(lhs.name));
    texts.push_back(indices.back().text);
  }
  std::vector<std::string> keptTexts;
  for (int position : exp.keep) {
    kept.push_back(indices[position]);
    keptTexts.push_back(texts[position]);
  }
  auto read = [&](const std::string &tensor, llvm::ArrayRef<Term> at,
                  const std::vector<std::string> &atTexts) {
    rewriter.reads.push_back({tensor, atTexts});
    return at.empty() ? lit(tensor) : call(tensor, at);
  };
  Term y = read(output, indices, texts);
  Term dy = read(adjointOf(output), indices, texts);
  return mul(y, sub(dy, read(exp.dot, kept, keptTexts)));
}

const Expr &BackwardBuilder::differentiatedRhs(unsigned index) const {
  if (normalisedExps.count(index))
    return *expArgument(*stmts[index]);
  return stmts[index]->getRhs();
}
