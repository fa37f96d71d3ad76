//===- GradTerms.h - TC text building for the derived backward --*- C++ -*-===//
//
// The backward def is built as TC text. A Term is an expression's text and
// the precedence of its outermost operator, so that operators add only the
// parentheses C precedence needs. The builders drop additions of 0 and
// multiplications by 1 (the derivative rules produce many). A Rewriter
// prints an expression of the forward def with index variables replaced
// (inverting a read) and tensors renamed (to the version a statement reads).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_GRADTERMS_H
#define COMPREHEND_TC_GRADTERMS_H

#include "comprehend/polyhedral/IndexExpr.h"
#include "comprehend/tc/AST.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace comprehend::tc::grad {

/// C precedence levels, lowest first.
enum Prec : int {
  PrecTernary,
  PrecOr,
  PrecAnd,
  PrecEquality,
  PrecRelational,
  PrecAdditive,
  PrecMultiplicative,
  PrecUnary,
  PrecPrimary
};

struct Term {
  std::string text;
  int prec = PrecPrimary;
};

/// \p t's text, in parentheses when its operator binds looser than \p prec.
std::string wrap(const Term &t, int prec);
/// \p t's text for a range bound or an extent (`i in 0:B`, `float(B)`),
/// which the builders splice between `+`, `-` and comparisons: in
/// parentheses unless it binds at least as tight as `+`.
std::string boundText(const Term &t);
Term lit(llvm::StringRef text);
Term zero();
bool isZero(const Term &t);
bool isOne(const Term &t);
Term add(const Term &a, const Term &b);
Term sub(const Term &a, const Term &b);
Term mul(const Term &a, const Term &b);
Term div(const Term &a, const Term &b);
Term neg(const Term &a);
/// `a op b` for a comparison, `%`, `&&` or `||` spelled \p op.
Term binary(llvm::StringRef op, const Term &a, const Term &b);
/// `c ? a : b` (0 when both are 0).
Term select(const Term &c, const Term &a, const Term &b);
Term call(llvm::StringRef name, llvm::ArrayRef<Term> args);
/// The conjunction of \p conditions (empty: "").
Term conjunction(llvm::ArrayRef<Term> conditions);

/// A tensor read the Rewriter printed: the backward name and its subscripts.
struct PrintedRead {
  std::string tensor;
  std::vector<std::string> subscripts;
};

/// Prints forward expressions in the backward def.
class Rewriter {
public:
  /// Index variable -> its replacement (absent: printed as is).
  llvm::StringMap<Term> indexSubst;
  /// Forward tensor -> the backward name of the version read.
  llvm::StringMap<std::string> tensorNames;
  /// Reads printed as `tensor(targetIndices)`: the read being inverted.
  std::vector<const Expr *> targets;
  std::vector<std::string> targetIndices;
  /// Every read printed so far.
  std::vector<PrintedRead> reads;

  Term print(const Expr &expr);
  Term printRead(llvm::StringRef tensor, llvm::ArrayRef<ExprPtr> args);
  std::string tensorName(llvm::StringRef tensor) const;
  /// Index variable \p name after substitution.
  Term index(llvm::StringRef name) const;

private:
  Term printBinary(const BinaryExpr &binary);
  Term printApply(const ApplyExpr &apply);
};

/// \p expr (a bound from range inference) as TC text; \p sizeVarOf maps an
/// extent's printed form to the backward size variable that holds it.
Term printIndexExpr(const poly::IndexExpr &expr,
                    const llvm::StringMap<std::string> &sizeVarOf);

/// The value reads of \p expr: tensor reads outside subscripts and outside
/// conversions to integers (those carry no gradient).
void collectValueReads(const Expr &expr,
                       llvm::SmallVectorImpl<const Expr *> &reads);
/// The tensor a read (ApplyExpr or 0-d IdentExpr) reads.
llvm::StringRef readTensor(const Expr &read);

/// Whether \p expr uses an index variable that \p which holds for (also
/// through a let).
bool mentionsIndexVar(const Expr &expr,
                      llvm::function_ref<bool(llvm::StringRef)> which);
/// Whether \p expr uses an index variable (also through a let).
bool usesIndexVars(const Expr &expr);

} // namespace comprehend::tc::grad

#endif // COMPREHEND_TC_GRADTERMS_H
