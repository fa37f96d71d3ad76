//===- AstTranslation.h - isl's AST to the mapper's AST ---------*- C++ -*-===//
//
// Private to polyhedral/lib. Turns the AST that isl generated from a mapped
// schedule tree into AstNodes (Schedule.h): loops with IndexExpr bounds,
// guards, and statement instances named after the def's statements. The
// marks "group" and "work_items" of the tree tag the chain of loops right
// below them.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H
#define COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H

#include "IslSupport.h"

#include "comprehend/polyhedral/Schedule.h"

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

/// One kernel per top-level node of \p ast. Fails on expressions that have
/// no IndexExpr form (isl's `select`, say).
llvm::Expected<llvm::SmallVector<MappedKernel, 2>>
translateAst(const isl::ast_node &ast, llvm::ArrayRef<std::string> params,
             llvm::ArrayRef<ScopStatement> statements);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H
