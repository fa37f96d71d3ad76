//===- InstSemantics.h - Scalar semantics from the table --------*- C++ -*-===//
//
// What arithmetic, comparison and bitwise instructions compute on constant
// scalars, generated from the `intFold`, `realFold`, `boolFold` and
// `compare` fields of Instructions.td (InstFolds.h.inc). Each function
// returns nothing for kinds the table does not fold, and the integer folds
// also for operands where the result is undefined (division by zero, shifts
// by the width or more).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_INSTSEMANTICS_H
#define COMPREHEND_IR_INSTSEMANTICS_H

#include "comprehend/ir/InstDescriptor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace comprehend::ir {

/// \p value truncated to \p bits and sign-extended (integers wrap).
inline int64_t wrapToWidth(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  uint64_t truncated = static_cast<uint64_t>(value) & mask;
  uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((truncated ^ sign) - sign);
}

#include "comprehend/ir/InstFolds.h.inc"

} // namespace comprehend::ir

#endif // COMPREHEND_IR_INSTSEMANTICS_H
