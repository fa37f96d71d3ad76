//===- ConvAsGemm.h - Matching convolution-like statements ------*- C++ -*-===//
//
// Private to frontend-tc/lib/Lowering: the reads of a contraction of two
// tensors with sum subscripts, shared by ConvAsGemm.cpp (gemms over views
// of the operands) and ConvPanelGemm.cpp (gemms over a copied panel).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_LOWERING_CONVASGEMM_H
#define COMPREHEND_TC_LIB_LOWERING_CONVASGEMM_H

#include "DefLowering.h"

#include "llvm/ADT/STLExtras.h"

namespace comprehend::tc::lowering::conv {

/// One subscript: the sum of one or two index variables, each times a
/// constant coefficient (1 unless written, as in `t + 2 * k`).
struct Subscript {
  llvm::SmallVector<llvm::StringRef, 2> vars;
  llvm::SmallVector<int64_t, 2> scales;

  bool contains(llvm::StringRef var) const {
    return llvm::is_contained(vars, var);
  }
  int64_t scaleOf(llvm::StringRef var) const {
    return scales[llvm::find(vars, var) - vars.begin()];
  }
  /// Whether this is \p var alone, with coefficient 1.
  bool isPlain(llvm::StringRef var) const {
    return vars.size() == 1 && vars[0] == var && scales[0] == 1;
  }
};

struct ConvRead {
  llvm::StringRef tensor;
  const TensorBinding *binding = nullptr;
  llvm::SmallVector<Subscript, 4> subscripts;

  bool uses(llvm::StringRef var) const {
    return llvm::any_of(subscripts, [&](const Subscript &subscript) {
      return subscript.contains(var);
    });
  }
  /// Whether \p var is a whole subscript of its own.
  bool usesPlain(llvm::StringRef var) const {
    return llvm::any_of(subscripts, [&](const Subscript &subscript) {
      return subscript.isPlain(var);
    });
  }
  /// Whether some subscript sums two indices (a shifted read).
  bool isShifted() const {
    return llvm::any_of(subscripts, [](const Subscript &subscript) {
      return subscript.vars.size() == 2;
    });
  }
};

/// The statement's reads and LHS indices, where it can be a gemm at all.
struct ConvOperands {
  double alpha = 1;
  llvm::SmallVector<ConvRead, 2> reads;
  llvm::SmallVector<llvm::StringRef, 4> lhsVars;
};

/// A `+=` contraction of two floating-point reads with sum subscripts whose
/// LHS covers its tensor; std::nullopt otherwise.
std::optional<ConvOperands> matchOperands(const DefContext &def,
                                          const StmtContext &stmt);

/// Emits \p body(point, beta) for the points [0, \p points) of an
/// accumulation into one output block: where \p overwrite (`op=!`) the
/// first point with beta 0, then a `for` over the others with beta 1.
void emitAccumulation(ir::Builder &b, Location loc, int64_t points,
                      bool overwrite,
                      llvm::function_ref<void(ir::Value *, double)> body);

/// Lowers a weight-gradient-like \p stmt to gemms over a panel of its
/// shifted read copied into local memory (ConvPanelGemm.cpp); false,
/// emitting nothing, when it has no such form. With \p dryRun only
/// answers. Only on cores whose work-items run on vector lanes
/// (DefContext::contiguousPartials: CPUs).
bool lowerAsPanelGemm(DefContext &def, const StmtContext &stmt,
                      const ConvOperands &operands, bool dryRun);

/// What lowerAsPanelGemm reads of a weight-gradient-like statement: the
/// plain read P (an index into ConvOperands::reads, d_O) and the LHS index
/// `i` that it holds and the shifted read does not (m).
struct PanelRoles {
  unsigned p = 0;
  llvm::StringRef i;
};

/// The roles of \p stmt where lowerAsPanelGemm takes it, else std::nullopt.
std::optional<PanelRoles> matchPanelRoles(const DefContext &def,
                                          const StmtContext &stmt,
                                          const ConvOperands &operands);

} // namespace comprehend::tc::lowering::conv

#endif // COMPREHEND_TC_LIB_LOWERING_CONVASGEMM_H
