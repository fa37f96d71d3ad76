//===- Scop.h - The scop of a def and its dependences -----------*- C++ -*-===//
//
// Private to polyhedral/lib. Stage 1 of the mapper (Schedule.h): the
// statements of a def become a scop, reductions split into an init and an
// update statement (scop statement k is `S<k>`; `origin` maps it back), with
// its domains and accesses (StatementModel.h) and the dependences of the
// sequential schedule. The later stages (Fusion.h, Mapping.h) read the scop
// and ask it whether a schedule they build keeps those dependences.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_SCOP_H
#define COMPREHEND_POLYHEDRAL_LIB_SCOP_H

#include "StatementModel.h"

#include "comprehend/polyhedral/ScheduledStatement.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

namespace comprehend::poly {

/// Where scop statement `S<k>` comes from.
struct ScopStatement {
  /// The def's statement.
  unsigned defStatement = 0;
  /// The init (`!`) of a reduction rather than its update.
  bool init = false;
  /// The update of a statement with a reduction operator.
  bool reduction = false;
  /// The positions of the LHS indices among the statement's iterators.
  llvm::SmallVector<unsigned, 4> lhsPositions;
};

struct Scop {
  /// Per scop statement: the statement (an init iterates over the LHS
  /// indices) and where it comes from.
  llvm::SmallVector<ScheduledStatement, 8> stmts;
  llvm::SmallVector<ScopStatement, 8> origin;
  StatementModel model;
  /// The union of the statements' domains.
  isl::union_set domain;
  /// Every dependence of the sequential schedule (value-based
  /// read-after-write, write-after-read and write-after-write),
  /// self-dependences included: they are what makes a reduction loop
  /// sequential. `flow` holds the read-after-write ones.
  isl::union_map dependences, flow;

  /// The statements with instances at \p node, in textual order.
  llvm::SmallVector<unsigned, 8>
  statementsAt(const isl::schedule_node &node) const;
  /// Whether every dependence between instances that the schedule \p node
  /// is of covers goes forward in it.
  bool respectsDependences(const isl::schedule_node &node) const;
  /// Whether the self-dependences of \p stmt between instances that \p outer
  /// maps to one point keep its iterator \p dim.
  bool isCoincident(unsigned stmt, const isl::map &outer, unsigned dim) const;
};

/// The scop of \p stmts; fails when a bound or a write subscript is not
/// quasi-affine.
llvm::Expected<Scop> buildScop(const IslContext &ctx,
                               llvm::ArrayRef<std::string> params,
                               llvm::ArrayRef<ScheduledStatement> stmts);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_SCOP_H
