//===- GradShift.cpp - Shifts that a normalisation cancels ----------------===//
//
// The stabilised softmax
//
//   mx(n) max=! X(n, d)
//   e(n, d) = exp(X(n, d) - mx(n))
//   s(n) +=! e(n, d)
//   Y(n, d) = e(n, d) / s(n)
//
// subtracts mx only to keep exp in range: e(n, d) and s(n) both scale by
// exp(-mx(n)), so Y does not depend on mx and mx's adjoint is zero.
// Derived statement by statement it is a sum of terms that cancel
// (`d_mx(n) +=! -(d_e(n, d) * e(n, d))`), then a tie count and a masked
// update of d_X: three passes over the rows that add only rounding errors
// (0.03-0.05 ms of the 0.11 ms backward at 512x512 on PoCL). A temporary
// that the def reads only as such a shift is therefore not active: it
// gets no adjoint (PyTorch's softmax backward does not differentiate its
// maximum either).
//
// The shift must be constant along the normalised indices: the shift
// statement reads it at indices of e that the sum keeps, and every ratio
// divides e by the sum over e's own group.
//
//===----------------------------------------------------------------------===//
#include "GradBuilder.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// Position of \p name in \p names, or -1.
int positionOf(llvm::ArrayRef<llvm::StringRef> names, llvm::StringRef name) {
  const auto *it = llvm::find(names, name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

} // namespace

std::optional<llvm::SmallVector<llvm::StringRef, 4>>
grad::plainSubscripts(const Expr &expr) {
  llvm::SmallVector<llvm::StringRef, 4> names;
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() != IdentExpr::Ref::Tensor)
      return std::nullopt;
    return names;
  }
  const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr);
  if (!apply || !apply->isTensorRead())
    return std::nullopt;
  for (const ExprPtr &arg : apply->getArgs()) {
    const auto *index = llvm::dyn_cast<IdentExpr>(arg.get());
    if (!index || index->getRef() != IdentExpr::Ref::Index)
      return std::nullopt;
    names.push_back(index->getName());
  }
  return names;
}

bool grad::isPlainAssign(const ComprehensionStmt &stmt) {
  return stmt.getReduction() == ReductionKind::None &&
         stmt.getReductionVars().empty();
}

/// The reads of \p version in the statements after \p index: (statement,
/// number of reads there).
llvm::SmallVector<std::pair<unsigned, unsigned>, 4>
BackwardBuilder::readersOf(unsigned index, const std::string &version) const {
  llvm::SmallVector<std::pair<unsigned, unsigned>, 4> readers;
  for (unsigned k = index + 1; k < stmts.size(); ++k) {
    unsigned count = 0;
    for (llvm::StringRef tensor : readsOf(k)) {
      auto it = readVersions[k].find(tensor);
      count += it != readVersions[k].end() && it->second == version;
    }
    if (count)
      readers.push_back({k, count});
  }
  return readers;
}

/// Whether statement \p index reads \p version exactly as \p expr does.
bool BackwardBuilder::readsVersion(unsigned index, const Expr &expr,
                                   const std::string &version) const {
  if (!plainSubscripts(expr))
    return false;
  auto it = readVersions[index].find(readTensor(expr));
  return it != readVersions[index].end() && it->second == version;
}

/// Whether the version written by statement \p sum, `s(a..) +=! e(..)`
/// with plain subscripts, is read only as the denominator of `e / s` over
/// e's own group; \p keep gets, per dimension of s, e's dimension it is.
bool BackwardBuilder::isNormaliser(unsigned sum, const std::string &eVersion,
                                   llvm::SmallVectorImpl<int> &keep) const {
  const ComprehensionStmt *stmt = stmts[sum];
  if (!stmt || stmt->getReduction() != ReductionKind::Add || !stmt->hasInit() ||
      params.contains(written[sum]) ||
      !readsVersion(sum, stmt->getRhs(), eVersion))
    return false;
  auto eIndices = *plainSubscripts(stmt->getRhs());
  for (const Ident &index : stmt->getIndices())
    keep.push_back(positionOf(eIndices, index.name));
  if (llvm::is_contained(keep, -1))
    return false;
  for (auto [reader, count] : readersOf(sum, written[sum])) {
    if (!stmts[reader])
      return false;
    const auto *ratio = llvm::dyn_cast<BinaryExpr>(&stmts[reader]->getRhs());
    if (count != 1 || !ratio || ratio->getOp() != BinaryOp::Div ||
        !readsVersion(reader, ratio->getLhs(), eVersion) ||
        !readsVersion(reader, ratio->getRhs(), written[sum]))
      return false;
    auto eSubscripts = *plainSubscripts(ratio->getLhs());
    auto sSubscripts = *plainSubscripts(ratio->getRhs());
    for (unsigned q = 0; q < keep.size(); ++q)
      if (sSubscripts[q] != eSubscripts[keep[q]])
        return false;
  }
  return true;
}

/// Whether statement \p index is `e(..) = exp(a - v(..))` whose e the def
/// reads only through normalised ratios, with v read at indices that every
/// normalisation keeps.
bool BackwardBuilder::isCancelledShift(unsigned index,
                                       const std::string &shift) const {
  const ComprehensionStmt *stmt = stmts[index];
  if (!stmt || !isPlainAssign(*stmt) || params.contains(written[index]))
    return false;
  const auto *exp = llvm::dyn_cast<ApplyExpr>(&stmt->getRhs());
  if (!exp || exp->isTensorRead() || exp->getCallee().name != "exp" ||
      exp->getArgs().size() != 1)
    return false;
  const auto *sub = llvm::dyn_cast<BinaryExpr>(exp->getArgs()[0].get());
  if (!sub || sub->getOp() != BinaryOp::Sub ||
      !readsVersion(index, sub->getRhs(), shift))
    return false;
  llvm::SmallVector<llvm::StringRef, 4> eIndices;
  for (const Ident &lhs : stmt->getIndices())
    eIndices.push_back(lhs.name);
  llvm::SmallVector<int, 4> shiftAt;
  auto shiftIndices = *plainSubscripts(sub->getRhs());
  for (llvm::StringRef name : shiftIndices)
    shiftAt.push_back(positionOf(eIndices, name));
  std::string eVersion = written[index];
  llvm::SmallVector<std::pair<unsigned, unsigned>, 4> sums;
  for (auto [reader, count] : readersOf(index, eVersion))
    if (stmts[reader] && stmts[reader]->getReduction() == ReductionKind::Add)
      sums.push_back({reader, count});
  if (sums.size() != 1 || sums.front().second != 1)
    return false;
  llvm::SmallVector<int, 4> keep;
  if (!isNormaliser(sums.front().first, eVersion, keep) ||
      llvm::any_of(shiftAt, [&](int at) {
        return at < 0 || !llvm::is_contained(keep, at);
      }))
    return false;
  // Every read of e is the sum's or a ratio's (one each).
  unsigned sumReaders =
      readersOf(sums.front().first, written[sums.front().first]).size();
  unsigned eReads = 0;
  for (auto [reader, count] : readersOf(index, eVersion))
    eReads += count;
  return eReads == 1 + sumReaders;
}

void BackwardBuilder::dropCancelledShifts() {
  for (unsigned k = 0; k < stmts.size(); ++k) {
    const std::string &version = written[k];
    if (!stmts[k] || params.contains(version) || !active.contains(version))
      continue;
    auto readers = readersOf(k, version);
    if (!readers.empty() && llvm::all_of(readers, [&](const auto &reader) {
          return reader.second == 1 && isCancelledShift(reader.first, version);
        }))
      active.erase(version);
  }
}
