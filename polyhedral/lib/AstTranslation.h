//===- AstTranslation.h - isl's AST to the mapper's AST ---------*- C++ -*-===//
//
// Private to polyhedral/lib. Stage 4 of the mapper (Schedule.h): isl's AST
// generator turns the mapped schedule tree (Mapping.h) into code, which comes
// back as AstNodes (Schedule.h): loops with IndexExpr bounds, guards, and
// statement instances named after the def's statements. The marks of the
// tree (LoopMark, Mapping.h) tag the chain of loops right below them.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H
#define COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H

#include "Scop.h"

#include "comprehend/polyhedral/Schedule.h"

namespace comprehend::poly {

/// The code of the mapped \p schedule for parameters in \p context: one
/// kernel per top-level node of isl's AST, and the texts of the tree and the
/// AST. Fails on expressions that have no IndexExpr form (isl's `select`,
/// say). The `used*` flags are left for the caller.
llvm::Expected<MappedSchedule>
buildAst(const isl::schedule &schedule, const isl::set &context,
         llvm::ArrayRef<std::string> params,
         llvm::ArrayRef<ScopStatement> statements);

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_LIB_ASTTRANSLATION_H
