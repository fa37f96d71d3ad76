//===- IncomingOutputs.cpp - Outputs a TC def reads before writing --------===//
//
// TC semantics: `C(i,j) += A(i,k) * B(k,j)` without `!` adds to C's
// incoming values, which the caller provides. The statements are walked in
// order; an output that a statement reads (as the target of a reduction
// without `!` or on a right-hand side) before any earlier statement wrote
// it takes an incoming value.
//
//===----------------------------------------------------------------------===//
#include "comprehend/tc/IncomingOutputs.h"
#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;

llvm::SmallVector<std::string, 2> tc::getIncomingOutputs(const tc::Def &def) {
  llvm::StringSet<> outputs, written, readFirst;
  for (const tc::Param &output : def.getOutputs())
    outputs.insert(output.name.name);
  auto onRead = [&](llvm::StringRef name) {
    if (outputs.contains(name) && !written.contains(name))
      readFirst.insert(name);
  };
  auto onTensorRead = [&](const tc::Expr &, llvm::StringRef name) {
    onRead(name);
  };
  for (const std::unique_ptr<tc::Stmt> &stmt : def.getBody()) {
    if (const auto *call = llvm::dyn_cast<tc::CallStmt>(stmt.get())) {
      for (const tc::Ident &arg : call->getArgs())
        onRead(arg.name);
      for (const tc::Ident &result : call->getResults())
        written.insert(result.name);
      continue;
    }
    const auto &comprehension = llvm::cast<tc::ComprehensionStmt>(*stmt);
    for (const tc::WhereClause &where : comprehension.getWheres()) {
      if (where.getKind() != tc::WhereClause::Kind::Range) {
        tc::forEachTensorRead(where.getValue(), onTensorRead);
        continue;
      }
      tc::forEachTensorRead(where.getLo(), onTensorRead);
      tc::forEachTensorRead(where.getHi(), onTensorRead);
    }
    tc::forEachTensorRead(comprehension.getRhs(), onTensorRead);
    if (comprehension.getReduction() != tc::ReductionKind::None &&
        !comprehension.hasInit())
      onRead(comprehension.getLhs().name);
    written.insert(comprehension.getLhs().name);
  }
  llvm::SmallVector<std::string, 2> result;
  for (const tc::Param &output : def.getOutputs())
    if (readFirst.contains(output.name.name))
      result.push_back(output.name.name.str());
  return result;
}
