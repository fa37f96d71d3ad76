//===- IndexExpr.h - Integer expressions handed to the polyhedral layer -*- C++
//-*-===//
//
// The TC frontend describes subscripts, where-bounds and tensor extents as
// IndexExpr trees over size parameters and index variables; the polyhedral
// layer turns the affine ones into isl objects. Anything that is not affine
// (a tensor read inside a subscript, `%` or `/` by a variable, a product of
// two variables, ...) is an Opaque node that lists the variables it uses.
// The polyhedral layer hands inferred bounds back in the same form; a bound
// that isl gives piecewise (neither affine nor a min/max of affine pieces)
// is a Select over comparisons of the size parameters.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_POLYHEDRAL_INDEXEXPR_H
#define COMPREHEND_POLYHEDRAL_INDEXEXPR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace comprehend::poly {

class IndexExpr {
public:
  enum class Kind {
    Constant, ///< value
    Param,    ///< a size variable, by name
    Var,      ///< an index variable, by name
    Add,
    Sub,
    Mul,
    FloorDiv, ///< rounds towards negative infinity
    Mod,      ///< result has the sign of the divisor (floor semantics)
    Min,
    Max,
    Neg,
    Opaque, ///< not analysable; `names` lists the index variables it uses
    // Conditions (1 when true, 0 otherwise), only inside a Select.
    Eq,
    Le,
    Ge,
    And,
    Or,
    Select ///< operands: condition, value if true, value if false
  };

  static IndexExpr constant(int64_t value);
  static IndexExpr param(llvm::StringRef name);
  static IndexExpr var(llvm::StringRef name);
  static IndexExpr binary(Kind kind, IndexExpr lhs, IndexExpr rhs);
  static IndexExpr neg(IndexExpr operand);
  /// `condition ? ifTrue : ifFalse`.
  static IndexExpr select(IndexExpr condition, IndexExpr ifTrue,
                          IndexExpr ifFalse);
  static IndexExpr opaque(llvm::ArrayRef<std::string> variables);

  Kind getKind() const { return kind; }
  int64_t getValue() const { return value; }
  llvm::StringRef getName() const { return name; }
  llvm::ArrayRef<IndexExpr> getOperands() const { return operands; }
  /// For Opaque: the index variables it depends on.
  llvm::ArrayRef<std::string> getOpaqueVariables() const { return opaqueVars; }

  /// The index variables this expression uses, each once, in first-use order.
  llvm::SmallVector<std::string, 4> getVariables() const;

  /// Whether a Select occurs anywhere in this expression: the bound is then
  /// no loop bound (not affine, nor a min/max of affine functions).
  bool hasSelect() const;

  /// Prints in isl's C-like style: `N - K + 1`, `floord(H - KH, 2) + 1`,
  /// `min(N, M)`, `N <= 4 ? 2 : N - 2`.
  void print(llvm::raw_ostream &os) const;
  std::string str() const;

private:
  Kind kind = Kind::Constant;
  int64_t value = 0;
  std::string name;
  std::vector<IndexExpr> operands;
  std::vector<std::string> opaqueVars;
};

} // namespace comprehend::poly

#endif // COMPREHEND_POLYHEDRAL_INDEXEXPR_H
