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

#include "llvm/ADT/StringSet.h"

using namespace comprehend;

namespace {
/// Calls \p onRead with the name of every tensor that \p expr reads.
template <typename Fn> void forEachTensorRead(const tc::Expr &expr, Fn onRead) {
  using tc::Expr;
  switch (expr.getKind()) {
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::DimAccess: // an extent, not the tensor's values
    return;
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<tc::IdentExpr>(expr);
    if (ident.getRef() == tc::IdentExpr::Ref::Tensor)
      onRead(ident.getName());
    return;
  }
  case Expr::Kind::Unary:
    return forEachTensorRead(llvm::cast<tc::UnaryExpr>(expr).getOperand(),
                             onRead);
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<tc::BinaryExpr>(expr);
    forEachTensorRead(binary.getLhs(), onRead);
    return forEachTensorRead(binary.getRhs(), onRead);
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<tc::TernaryExpr>(expr);
    forEachTensorRead(ternary.getCond(), onRead);
    forEachTensorRead(ternary.getTrueValue(), onRead);
    return forEachTensorRead(ternary.getFalseValue(), onRead);
  }
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<tc::ApplyExpr>(expr);
    if (apply.isTensorRead())
      onRead(apply.getCallee().name);
    for (const tc::ExprPtr &arg : apply.getArgs())
      forEachTensorRead(*arg, onRead);
    return;
  }
  case Expr::Kind::Cast:
    return forEachTensorRead(llvm::cast<tc::CastExpr>(expr).getOperand(),
                             onRead);
  }
}
} // namespace

llvm::SmallVector<std::string, 2> tc::getIncomingOutputs(const tc::Def &def) {
  llvm::StringSet<> outputs, written, readFirst;
  for (const tc::Param &output : def.getOutputs())
    outputs.insert(output.name.name);
  auto onRead = [&](llvm::StringRef name) {
    if (outputs.contains(name) && !written.contains(name))
      readFirst.insert(name);
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
        forEachTensorRead(where.getValue(), onRead);
        continue;
      }
      forEachTensorRead(where.getLo(), onRead);
      forEachTensorRead(where.getHi(), onRead);
    }
    forEachTensorRead(comprehension.getRhs(), onRead);
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
