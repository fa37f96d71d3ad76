//===- CoopLayout.h - A coopmatrix as per-work-item values ------*- C++ -*-===//
//
// The per-work-item form of cooperative matrices that lower-coopmatrix
// rewrites them into (and the emitter's remaining coopmatrix code reads),
// decided in one place so that it can be tested on its own. For subgroup size S
// a coopmatrix with M rows and N columns has B = ceil(M/S) components per
// column on each work-item: component k = b + B*j holds row b*S + lane and
// column j; rows >= M are padding.
//
// The components are packed into values, "parts". With S = 1 a
// work-item owns whole columns, which are contiguous in memory (mode 0 has
// stride 1), so each column is split, largest first, into OpenCL vectors of
// 16, 8, 4, 2 elements and a scalar for the rest (8 at most for 64-bit
// kinds; f16/bf16, complex and small integers stay scalar). With S > 1 the
// components of a column are S rows apart and every part is a scalar.
//
// Where the greedy split would need more parts than whole vectors do, the
// layout may instead end a column with a vector that overlaps the one
// before it (30 rows: 16 at row 0 and 16 at row 14, not 16 + 8 + 4 + 2):
// half the instructions for a gemm tile of 30 rows. The components in both
// parts hold the same value, so loads, stores (written twice, alike) and
// component-wise arithmetic need no change; an instruction that sets one
// component, or one that exposes the parts themselves
// (`cooperative_matrix_part`/`from_parts`), needs the greedy layout.
//
// Where a column is shorter than the widest vector and the greedy split
// needs more than one part, a real kind may instead hold the column in one
// vector of the next power of two with unused lanes at its end (9 rows: a
// vector of 16 with 9 used, not 8 + 1), again half the instructions of a
// gemm tile. The unused lanes hold zero after a load or a pack and whatever
// component-wise arithmetic makes of them after that (no trap on reals);
// loads and stores move only the used lanes, as the greedy parts would.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_COOPLAYOUT_H
#define COMPREHEND_BACKEND_COOPLAYOUT_H

#include "comprehend/ir/Types.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <utility>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace comprehend::backend {

/// How the components of a coopmatrix are packed into parts on one
/// work-item. Part `c + getPartsPerColumn() * j` is part c of column j. The
/// layout depends only on the coopmatrix type and the subgroup size, so
/// every value of a type (loop-carried or yielded ones too) has the same
/// parts.
struct CoopLayout {
  /// Components per column: ceil(rows / subgroup size).
  unsigned blocks = 0;
  unsigned cols = 0;
  /// Widths of the parts of one column; they sum to `blocks`.
  llvm::SmallVector<unsigned, 4> widths;
  /// Per part of a column, its first component.
  llvm::SmallVector<unsigned, 4> starts;

  /// The layout of a \p rows x \p cols coopmatrix of \p kind on subgroup
  /// size \p subgroupSize (see the file comment).
  /// \p compactTail allows the overlapping last part and the padded
  /// column (see above).
  static CoopLayout get(int64_t rows, int64_t cols, ir::ScalarKind kind,
                        unsigned subgroupSize, bool compactTail = false);

  unsigned getPartsPerColumn() const { return widths.size(); }
  unsigned getNumParts() const { return widths.size() * cols; }
  unsigned getNumComponents() const { return blocks * cols; }
  bool isScalar() const { return widths.size() == blocks; }
  unsigned getWidth(unsigned part) const {
    return widths[part % widths.size()];
  }
  /// The lanes of \p part that hold components: its width, but for a
  /// padded column.
  unsigned getUsedLanes(unsigned part) const {
    unsigned chunk = part % widths.size();
    return std::min(widths[chunk], blocks - starts[chunk]);
  }
  /// The part holding component \p k and the lane within that part (the
  /// last such part where parts overlap).
  std::pair<unsigned, unsigned> locate(unsigned k) const;
  bool operator==(const CoopLayout &other) const {
    return blocks == other.blocks && cols == other.cols &&
           widths == other.widths && starts == other.starts;
  }
  /// `<cols> x [w0, w1, ...]`, e.g. `8 x [16]` for a 16x8 f32 matrix on one
  /// lane: one part list per column; an overlapping part shows its start
  /// (`8 x [16, 16@14]` for 30 rows), a padded one its used lanes (`8 x
  /// [16(9)]` for 9 rows).
  void print(llvm::raw_ostream &os) const;
};

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_COOPLAYOUT_H
