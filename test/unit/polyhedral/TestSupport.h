//===- TestSupport.h - Building TC statements for polyhedral tests -*- C++
//-*-===//
//
// A tiny DSL to write subscripts as C++ expressions (`V("i") + V("k")`,
// `2 * V("h")`) and to run range inference over a whole def with the
// diagnostics collected instead of printed.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TEST_UNIT_POLYHEDRAL_TESTSUPPORT_H
#define COMPREHEND_TEST_UNIT_POLYHEDRAL_TESTSUPPORT_H

#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/polyhedral/RangeInference.h"

#include "llvm/ADT/STLExtras.h"

#include <string>
#include <vector>

namespace comprehend::poly::test {

inline IndexExpr V(llvm::StringRef name) { return IndexExpr::var(name); }
inline IndexExpr P(llvm::StringRef name) { return IndexExpr::param(name); }
inline IndexExpr C(int64_t value) { return IndexExpr::constant(value); }

inline IndexExpr operator+(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr::binary(IndexExpr::Kind::Add, std::move(lhs),
                           std::move(rhs));
}
inline IndexExpr operator-(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr::binary(IndexExpr::Kind::Sub, std::move(lhs),
                           std::move(rhs));
}
inline IndexExpr operator*(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr::binary(IndexExpr::Kind::Mul, std::move(lhs),
                           std::move(rhs));
}
inline IndexExpr operator+(IndexExpr lhs, int64_t rhs) {
  return std::move(lhs) + C(rhs);
}
inline IndexExpr operator-(IndexExpr lhs, int64_t rhs) {
  return std::move(lhs) - C(rhs);
}
inline IndexExpr operator*(int64_t lhs, IndexExpr rhs) {
  return C(lhs) * std::move(rhs);
}
inline IndexExpr operator+(int64_t lhs, IndexExpr rhs) {
  return C(lhs) + std::move(rhs);
}
inline IndexExpr floorDiv(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr::binary(IndexExpr::Kind::FloorDiv, std::move(lhs),
                           std::move(rhs));
}
inline IndexExpr mod(IndexExpr lhs, IndexExpr rhs) {
  return IndexExpr::binary(IndexExpr::Kind::Mod, std::move(lhs),
                           std::move(rhs));
}

inline TensorAccess read(llvm::StringRef tensor,
                         std::vector<IndexExpr> subscripts) {
  TensorAccess access;
  access.tensor = tensor.str();
  access.subscripts.assign(subscripts.begin(), subscripts.end());
  return access;
}

inline WhereRange where(llvm::StringRef var, IndexExpr lo, IndexExpr hi) {
  return WhereRange{var.str(), std::move(lo), std::move(hi), Location()};
}

/// `lhs(lhsIndices) op= <reads> where <wheres>`; the index variables are
/// the LHS indices followed by the other variables in order of first use.
inline StatementInfo statement(llvm::StringRef lhs,
                               std::vector<std::string> lhsIndices,
                               std::vector<TensorAccess> reads,
                               std::vector<WhereRange> wheres = {}) {
  StatementInfo stmt;
  stmt.lhsTensor = lhs.str();
  stmt.lhsIndices.assign(lhsIndices.begin(), lhsIndices.end());
  stmt.indexVars.assign(lhsIndices.begin(), lhsIndices.end());
  for (const TensorAccess &access : reads)
    for (const IndexExpr &subscript : access.subscripts)
      for (const std::string &var : subscript.getVariables())
        if (!llvm::is_contained(stmt.indexVars, var))
          stmt.indexVars.push_back(var);
  for (const WhereRange &range : wheres)
    if (!llvm::is_contained(stmt.indexVars, range.var))
      stmt.indexVars.push_back(range.var);
  stmt.accesses.assign(reads.begin(), reads.end());
  stmt.wheres.assign(wheres.begin(), wheres.end());
  return stmt;
}

/// One def: its size variables, inputs and statements.
struct Def {
  std::vector<std::string> params;
  std::vector<std::pair<std::string, std::vector<IndexExpr>>> inputs;
  std::vector<StatementInfo> statements;
};

/// The outcome of range inference over a def.
struct Outcome {
  /// One entry per statement until the first failure.
  std::vector<StatementRanges> statements;
  bool ok = true;
  std::vector<Diagnostic> diagnostics;
  llvm::StringMap<TensorShape> shapes;

  unsigned count(Severity severity) const {
    return llvm::count_if(diagnostics, [&](const Diagnostic &diag) {
      return diag.severity == severity;
    });
  }
  std::string firstMessage(Severity severity) const {
    for (const Diagnostic &diag : diagnostics)
      if (diag.severity == severity)
        return diag.message;
    return "";
  }
  const VarRange &range(unsigned stmt, llvm::StringRef var) const {
    const VarRange *range = statements.at(stmt).lookup(var);
    if (!range)
      throw std::out_of_range("no range for " + var.str());
    return *range;
  }
};

/// Runs range inference over \p def with \p sizes.
inline Outcome infer(const Def &def, const llvm::StringMap<int64_t> &sizes = {},
                     llvm::SourceMgr *sourceMgr = nullptr) {
  llvm::SourceMgr ownSourceMgr;
  Outcome outcome;
  DiagnosticEngine diags(sourceMgr ? *sourceMgr : ownSourceMgr);
  diags.setHandler(
      [&](const Diagnostic &diag) { outcome.diagnostics.push_back(diag); });
  RangeInference inference(def.params, diags, sizes);
  for (const auto &[name, extents] : def.inputs)
    inference.declareInput(name, extents);
  for (const StatementInfo &stmt : def.statements) {
    std::optional<StatementRanges> ranges = inference.inferStatement(stmt);
    if (!ranges) {
      outcome.ok = false;
      break;
    }
    outcome.statements.push_back(std::move(*ranges));
    if (std::optional<TensorShape> shape = inference.getShape(stmt.lhsTensor))
      outcome.shapes[stmt.lhsTensor] = *shape;
  }
  return outcome;
}

} // namespace comprehend::poly::test

#endif // COMPREHEND_TEST_UNIT_POLYHEDRAL_TESTSUPPORT_H
