//===- DefLowering.h - State shared by the lowering of one def --*- C++ -*-===//
//
// Private to frontend-tc/lib/Lowering. LowerDef.cpp drives the lowering of a
// def; BlasPatterns.cpp recognises statements that map to one collective
// BLAS instruction; LowerLoops.cpp lowers every other statement to loops.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H
#define COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H

#include "comprehend/ir/Builder.h"
#include "comprehend/tc/Lowering.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace comprehend::tc::lowering {

/// A TC tensor and the memref parameter that holds it.
struct TensorBinding {
  ir::Value *memref = nullptr;
  ScalarType type = ScalarType::Float;
  ir::ScalarKind kind = ir::ScalarKind::F32;
  /// Extents and lower bounds in TC order.
  llvm::SmallVector<int64_t, 4> shape, lowerBounds;
};

/// The concrete half-open range of one index variable of a statement.
struct IndexRange {
  std::string var;
  int64_t lo = 0, hi = 0;
};

/// What the statement lowerings need to know about the def being lowered.
struct DefContext {
  ir::Builder &builder;
  DiagnosticEngine &diags;
  const llvm::StringMap<int64_t> &sizes;
  llvm::MapVector<llvm::StringRef, TensorBinding> tensors;
  /// Whether this statement may map its batch indices to `group_id` (the
  /// def has a single statement and so one launch grid of its own).
  bool mayUseGroups = false;
  /// The launch grid chosen by the statement that used the groups.
  std::array<int64_t, 3> grid = {1, 1, 1};

  const TensorBinding *lookup(llvm::StringRef tensor) const {
    auto it = tensors.find(tensor);
    return it == tensors.end() ? nullptr : &it->second;
  }
};

/// One comprehension with its concrete ranges (LHS indices first, then the
/// reduction indices, as in ComprehensionStmt::getIndexVars).
struct StmtContext {
  const ComprehensionStmt &stmt;
  llvm::SmallVector<IndexRange, 4> ranges;

  const IndexRange *lookup(llvm::StringRef var) const {
    for (const IndexRange &range : ranges)
      if (range.var == var)
        return &range;
    return nullptr;
  }
};

/// Tries to lower \p stmt to one collective BLAS instruction (with subviews
/// and `group_id` for batch indices). Returns false, emitting nothing, when
/// the statement does not have such a form.
bool lowerAsBlas(DefContext &def, const StmtContext &stmt);

/// Lowers \p stmt to a `foreach` over its LHS indices with `for` loops over
/// its reduction indices. Reports unsupported expressions and fails.
LogicalResult lowerAsLoops(DefContext &def, const StmtContext &stmt);

/// The IR type of a TC scalar type (bool is the IR's bool type).
const ir::Type *getIrType(ir::Context &ctx, ScalarType type);

/// The memref type of a tensor with TC-order \p shape (modes reversed).
const ir::MemRefType *getMemRefType(ir::Context &ctx, ir::ScalarKind kind,
                                    llvm::ArrayRef<int64_t> shape);

} // namespace comprehend::tc::lowering

#endif // COMPREHEND_TC_LIB_LOWERING_DEFLOWERING_H
