//===- CoopLayout.cpp - A coopmatrix as per-work-item values --------------===//
#include "CoopLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::ScalarKind;

/// The widest vector a part of \p kind may be on subgroup size 1: OpenCL
/// vectors of real and integer types of 32 or 64 bits. f16/bf16 are
/// converted on every access and complex numbers are vectors already.
static unsigned getMaxPartWidth(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F32:
  case ScalarKind::I32:
    return 16;
  case ScalarKind::F64:
  case ScalarKind::I64:
    return 8;
  default:
    return 1;
  }
}

CoopLayout CoopLayout::get(int64_t rows, int64_t cols, ScalarKind kind,
                           unsigned subgroupSize, bool compactTail) {
  CoopLayout layout;
  layout.blocks =
      static_cast<unsigned>((rows + subgroupSize - 1) / subgroupSize);
  layout.cols = static_cast<unsigned>(cols);
  // Only a work-item that owns whole columns holds them as vectors; with
  // more lanes a work-item's components of a column are S rows apart.
  unsigned maxWidth = subgroupSize == 1 ? getMaxPartWidth(kind) : 1;
  // Greedy split into power-of-two widths (3-vectors are padded to 4 in
  // memory, so they are left out).
  for (unsigned start = 0; start < layout.blocks;) {
    unsigned width = maxWidth;
    while (width > layout.blocks - start)
      width /= 2;
    layout.widths.push_back(width);
    layout.starts.push_back(start);
    start += width;
  }
  // Whole vectors of the widest width that fits, the last one moved back
  // to end at the last row, when that takes fewer parts.
  unsigned widest = layout.widths.front();
  unsigned vectors = (layout.blocks + widest - 1) / widest;
  if (compactTail && widest > 1 && vectors < layout.widths.size()) {
    layout.widths.assign(vectors, widest);
    layout.starts.clear();
    for (unsigned part = 0; part + 1 < vectors; ++part)
      layout.starts.push_back(part * widest);
    layout.starts.push_back(layout.blocks - widest);
  }
  // A column shorter than the widest vector in one padded vector. Reals
  // only: an integer division would trap on the zero lanes.
  if (compactTail && layout.widths.size() > 1 && layout.blocks < maxWidth &&
      ir::isFloating(kind)) {
    layout.widths.assign(1, llvm::PowerOf2Ceil(layout.blocks));
    layout.starts.assign(1, 0);
  }
  return layout;
}

std::pair<unsigned, unsigned> CoopLayout::locate(unsigned k) const {
  unsigned block = k % blocks, col = k / blocks;
  unsigned part = static_cast<unsigned>(llvm::upper_bound(starts, block) -
                                        starts.begin() - 1);
  return {part + getPartsPerColumn() * col, block - starts[part]};
}

void CoopLayout::print(llvm::raw_ostream &os) const {
  os << cols << " x [";
  unsigned end = 0;
  for (unsigned part = 0; part < widths.size(); ++part) {
    os << (part ? ", " : "") << widths[part];
    // An overlapping part says where it starts.
    if (starts[part] != end)
      os << "@" << starts[part];
    if (getUsedLanes(part) != widths[part])
      os << "(" << getUsedLanes(part) << ")";
    end = starts[part] + widths[part];
  }
  os << "]";
}
