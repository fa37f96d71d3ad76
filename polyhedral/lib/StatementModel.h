//===- StatementModel.h - isl domains and accesses of a def ----*- C++ -*-===//
//
// Private to polyhedral/lib. Statement k of a def is the isl tuple `S<k>`
// with one set dimension per iterator; tensors are tuples named after the
// tensor:
//   domain    { S0[i, k] : 0 <= i < N - K + 1 and 0 <= k < K }
//   writes    { S0[i, k] -> O[i] }                     (must)
//   reads     { S0[i, k] -> I[i + k]; S0[i, k] -> W[k] } (may: a non-affine
//                                         subscript reads the whole dimension)
//   schedule  { S0[i, k] -> [0, i, k] }     (textual order, lexicographic)
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_STATEMENTMODEL_H
#define COMPREHEND_POLYHEDRAL_LIB_STATEMENTMODEL_H

#include "IslSupport.h"

#include "comprehend/polyhedral/ScheduledStatement.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace comprehend::poly {

/// Accesses of one tensor by all statements.
struct TensorAccesses {
  isl::union_map reads, writes;
};

struct StatementModel {
  /// Per statement: its domain `{ S<k>[iterators] : bounds }`.
  llvm::SmallVector<isl::set, 8> domains;
  /// Per tensor, in order of first access.
  std::vector<std::pair<std::string, TensorAccesses>> accesses;
  /// `{ S<k>[x] -> [k, x, 0...] }`: sequential execution order.
  isl::union_map schedule;
};

/// The isl tuple name of statement \p index.
std::string statementTupleName(unsigned index);

/// What the id of statement k's tuple carries as user data, so that isl's
/// AST names the statement of an instance without its name being parsed.
struct StatementTag {
  unsigned index = 0;
};
/// The statement index that \p id carries, if it is a statement's tuple id.
std::optional<unsigned> readStatementTag(const isl::id &id);

/// Builds the model of \p stmts; fails when a bound or a write subscript is
/// not quasi-affine.
llvm::Expected<StatementModel>
buildStatementModel(const IslContext &ctx, llvm::ArrayRef<std::string> params,
                    llvm::ArrayRef<ScheduledStatement> stmts);

/// `{ S<k>[x] -> [x_p(0), ..., x_p(n-1)] }` for the positions p(l) of the
/// first \p numDims LHS indices of \p stmt among its iterators.
isl::map lhsProjection(const isl::set &domain, const ScheduledStatement &stmt,
                       unsigned numDims);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_STATEMENTMODEL_H
