//===- GradConv.h - A convolution's input read, differentiated -*- C++ -*-===//
//
// Shared by GradConv.cpp (the data gradient of a convolution) and
// GradConvPhases.cpp (its split by phases where the windows are strided).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_GRADCONV_H
#define COMPREHEND_TC_GRADCONV_H

#include "GradBuilder.h"

namespace comprehend::tc::grad {

/// A read `X(..., a + b, ...)` times `Y(...)`: each shift pairs an index of
/// the statement's LHS (a) with a reduction index (b) that Y reads as a
/// whole subscript.
struct BackwardBuilder::ShiftedRead {
  struct Shift {
    std::string lhsVar, reductionVar;
    unsigned targetDim, operandDim;
    /// The coefficients in the target's subscript: the LHS index's (the
    /// stride) and the reduction index's (the dilation).
    int64_t stride = 1, dilation = 1;
  };
  const ApplyExpr *target = nullptr, *operand = nullptr;
  std::string targetVersion, operandVersion;
  /// X's indices in the adjoint: `a` in place of `a + b`.
  std::vector<std::string> targetIndices;
  std::vector<std::string> operandIndices;
  std::vector<Shift> shifts;

  const Shift *shiftOf(llvm::StringRef lhsVar) const {
    for (const Shift &shift : shifts)
      if (shift.lhsVar == lhsVar)
        return &shift;
    return nullptr;
  }
};

/// `K - 1` as text, folded for a constant K.
std::string minusOne(const std::string &extent);
/// `factor * term` as text: `term` for 1, folded for a constant term.
std::string scaled(int64_t factor, const std::string &term);
/// `ceil(extent / stride)` as text, folded for a constant extent.
std::string ceilDiv(const std::string &extent, int64_t stride);
/// Whether the data gradient of \p shifted splits by phases: some window
/// is strided, and no strided window is dilated.
bool splitsPhases(const BackwardBuilder::ShiftedRead &shifted);

} // namespace comprehend::tc::grad

#endif // COMPREHEND_TC_GRADCONV_H
