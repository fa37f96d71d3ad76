//===- LoweringBuilder.h - Small IR-building helpers for lowerings -*- C++ -*-//
//
// An ir::Builder with the shorthands the lowering passes share: index
// constants, mode sizes, casts that disappear when the types already agree,
// and the scalar update `C[idx] := alpha * x + beta * C[idx]` (atomic when
// asked) that every BLAS-like instruction ends with.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PASSES_LOWERINGBUILDER_H
#define COMPREHEND_BACKEND_PASSES_LOWERINGBUILDER_H

#include "comprehend/ir/Builder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace comprehend::backend {

/// The constant a `constant` instruction gives \p value, if any.
std::optional<ir::ConstantValue> getConstantValue(const ir::Value *value);
/// Whether \p value is a constant equal to \p number (any number type).
bool isConstantNumber(const ir::Value *value, double number);
/// The value of integer (index) constant \p value, if it is one.
std::optional<int64_t> getIntegerConstant(const ir::Value *value);

class LoweringBuilder;

/// Replaces each outermost instruction of \p function that \p matches
/// accepts (its nested regions are not searched) by what \p lower builds at
/// its place, with its location; the instruction itself is then erased.
/// The shared skeleton of the passes that lower one kind of instruction.
void replaceMatching(
    ir::Function &function,
    llvm::function_ref<bool(const ir::Instruction &)> matches,
    llvm::function_ref<void(ir::Instruction &, LoweringBuilder &)> lower);

class LoweringBuilder : public ir::Builder {
public:
  LoweringBuilder(ir::Context &ctx, Location loc)
      : ir::Builder(ctx), loc(loc) {}

  Location getLoc() const { return loc; }

  ir::Value *index(int64_t value) { return createIndexConstant(loc, value); }
  /// `constant 0` of \p type (scalar or coopmatrix).
  ir::Value *zero(const ir::Type *type);
  /// Mode \p mode of \p memref: a constant when static, else `size`.
  ir::Value *size(ir::Value *memref, unsigned mode);
  /// \p value converted to \p kind (no instruction if it already is).
  ir::Value *castTo(ir::Value *value, ir::ScalarKind kind);
  ir::Value *add(ir::Value *a, ir::Value *b) {
    return create<ir::AddInst>(loc, a, b).getResult();
  }
  ir::Value *mul(ir::Value *a, ir::Value *b) {
    return create<ir::MulInst>(loc, a, b).getResult();
  }
  ir::Value *load(ir::Value *memref, llvm::ArrayRef<ir::Value *> indices) {
    return create<ir::LoadInst>(loc, memref, indices).getResult();
  }

  /// `scaled + beta * old`, where \p loadOld reads `old` only where beta may
  /// be non-zero: BLAS's rule that beta = 0 never reads the output, so a
  /// poisoned or uninitialised output stays out of the result. A beta that
  /// is not a constant is tested at run time. \p scaleOld multiplies `old`
  /// by beta (scalars and cooperative matrices scale differently).
  ir::Value *addScaledOld(
      ir::Value *scaled, ir::Value *beta,
      llvm::function_ref<ir::Value *(LoweringBuilder &)> loadOld,
      llvm::function_ref<ir::Value *(LoweringBuilder &, ir::Value *)> scaleOld);

  /// `memref[indices] := alpha * x + beta * memref[indices]`, with x, alpha
  /// and beta already of the memref's element kind. Atomic updates need beta
  /// constant 0 (atomic store) or 1 (atomic add); beta = 0 never reads the
  /// old value (see addScaledOld); alpha constant 1 is not multiplied.
  void update(ir::Value *x, ir::Value *memref,
              llvm::ArrayRef<ir::Value *> indices, ir::Value *alpha,
              ir::Value *beta, bool atomic);

private:
  Location loc;
};

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PASSES_LOWERINGBUILDER_H
