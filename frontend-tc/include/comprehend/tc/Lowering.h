//===- Lowering.h - TC defs to tensor-language functions --------*- C++ -*-===//
//
// Turns one checked TC def with concrete sizes into one tensor-language
// function, built through ir::Builder (never text):
//
//  - every tensor of the def (inputs, outputs, then temporaries) becomes a
//    memref parameter with its modes reversed, because TC is row-major and
//    memrefs are column-major: `float(A, B, C) T` is `memref<f32xCxBxA>` and
//    `T(a, b, c)` reads `T'[c, b, a]`; temporaries are global scratch
//    parameters the caller allocates;
//  - statements that are a (batched) matrix product, matrix-vector product,
//    outer product, row/column sum, elementwise product or scaled copy
//    become gemm / gemv / ger / sum / hadamard / axpby (`!` means beta = 0);
//  - every other statement becomes a `foreach` over its LHS indices with
//    `for` loops over its reduction indices carrying the accumulator;
//  - a def with a single statement is launched over its outer (batch) LHS
//    indices, which map to `group_id`; a def with several statements runs
//    in one work-group, the statements in textual order, separated by
//    `barrier.global` where a statement touches what an earlier one wrote.
//
// docs/lowering.md describes the mapping in detail.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LOWERING_H
#define COMPREHEND_TC_LOWERING_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"
#include "comprehend/tc/AST.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <array>
#include <optional>
#include <string>

namespace comprehend::tc {

/// How one tensor of the def is passed to the lowered function.
struct LoweredTensor {
  std::string name;
  TensorInfo::Role role = TensorInfo::Role::Input;
  ScalarType type = ScalarType::Float;
  /// Extents in TC (row-major) order; the memref has them reversed.
  llvm::SmallVector<int64_t, 4> shape;
  /// The inferred lower bound per TC dimension: element `k` of the memref
  /// mode holds index `lo + k` (non-zero only for outputs and temporaries
  /// whose range does not start at 0).
  llvm::SmallVector<int64_t, 4> lowerBounds;
};

/// The result of lowering one def.
struct LoweredDef {
  /// The function, owned by the ir::Program passed to lowerDef.
  ir::Function *function = nullptr;
  /// One entry per function parameter, in parameter order.
  llvm::SmallVector<LoweredTensor, 4> tensors;
  /// Number of work-groups to launch in x, y and z.
  std::array<int64_t, 3> grid = {1, 1, 1};
};

struct LoweringOptions {
  /// Recognise BLAS-like statements (gemm, gemv, ...); when false every
  /// statement takes the loop path (for testing both against each other).
  bool matchBlas = true;
};

/// Lowers the checked def \p def of \p program into a new function of \p out
/// named after the def. \p sizes must bind every size variable of the def.
/// Unsupported constructs (calls, bool tensors, builtins without an IR
/// counterpart) and missing sizes are reported through \p diags; the result
/// is then empty. The function is not verified here (see ir::verify).
std::optional<LoweredDef> lowerDef(const Program &program, const Def &def,
                                   const llvm::StringMap<int64_t> &sizes,
                                   ir::Program &out, DiagnosticEngine &diags,
                                   const LoweringOptions &options = {});

} // namespace comprehend::tc

#endif // COMPREHEND_TC_LOWERING_H
