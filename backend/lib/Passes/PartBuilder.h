//===- PartBuilder.h - Building the parts of cooperative matrices -*- C++
//-*-===//
//
// What splitting cooperative matrices into per-work-item parts needs at
// every step (CoopParts.cpp, CoopPartsMemory.cpp): the layout (CoopLayout.h)
// and type of parts, the parts of a coopmatrix value, its components, and
// packing components into parts. A part is a number (width 1) or a
// `vector<kind x width>`; part `c + P*j` (P parts per column) holds the
// components starts[c] .. starts[c] + width - 1 of column j.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PASSES_PARTBUILDER_H
#define COMPREHEND_BACKEND_PASSES_PARTBUILDER_H

#include "CoopLayout.h"

#include "comprehend/backend/CoreInfo.h"

#include "comprehend/ir/Builder.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <array>

namespace comprehend::backend {

using Parts = llvm::SmallVector<ir::Value *, 16>;

inline const ir::CoopMatrixType *coopOf(const ir::Value *value) {
  return llvm::dyn_cast<ir::CoopMatrixType>(value->getType());
}

class PartBuilder {
public:
  PartBuilder(ir::Context &ctx, unsigned subgroupSize)
      : ctx(ctx), b(ctx), subgroupSize(subgroupSize) {}

  /// Where the parts' instructions go.
  ir::Builder &getBuilder() { return b; }
  unsigned getSubgroupSize() const { return subgroupSize; }

  CoopLayout layoutOf(const ir::CoopMatrixType *type) const;
  /// Keeps the greedy layout (no overlapping or padded tail, CoopLayout.h) for
  /// the coopmatrix types of \p region whose parts are exposed or whose single
  /// components are set; call before splitting.
  void fixLayouts(ir::Region &region);
  /// A number of \p kind for width 1, else a vector of \p width.
  const ir::Type *partType(ir::ScalarKind kind, unsigned width) const;
  /// The parts of coopmatrix \p value (split before its users).
  Parts getParts(ir::Value *value);
  /// Makes \p parts the value of \p value: until its users are split too,
  /// they take a `cooperative_matrix_from_parts` of the parts at the
  /// builder's insertion point.
  void replaceByParts(ir::Value *value, Parts valueParts);
  /// Component \p k of coopmatrix \p value as a number.
  ir::Value *getComponent(ir::Value *value, unsigned k, Location loc);
  /// All components of coopmatrix \p value as numbers.
  Parts getComponents(ir::Value *value, Location loc);
  /// The parts packing scalar \p components of a value of \p type (unused
  /// lanes zero).
  Parts pack(const ir::CoopMatrixType *type,
             llvm::ArrayRef<ir::Value *> components, Location loc);
  /// \p value in every element of a vector of \p width (itself for width
  /// 1); made once per width in \p byWidth.
  ir::Value *splat(ir::Value *value, ir::ScalarKind kind, unsigned width,
                   std::array<ir::Value *, 17> &byWidth, Location loc);
  /// \p value converted to \p kind (itself when it has that kind).
  ir::Value *castTo(ir::Value *value, ir::ScalarKind kind, Location loc);
  ir::Value *i32(int64_t value, Location loc);
  ir::Value *index(int64_t value, Location loc) {
    return b.createIndexConstant(loc, value);
  }
  /// a + c, folded when c is 0.
  ir::Value *addIndex(ir::Value *a, int64_t c, Location loc);
  /// \p x + \p y on index values, folded where one is a constant.
  ir::Value *add(ir::Value *x, ir::Value *y, Location loc);
  /// The binary instruction \p kind (add, max, min) on two parts.
  ir::Value *binary(ir::InstKind kind, ir::Value *x, ir::Value *y,
                    Location loc);
  /// subgroup_reduce_add/max/min of \p value.
  ir::Value *groupReduce(ir::InstKind combine, ir::Value *value, Location loc);
  /// The identity of \p combine (add, max, min) on \p scalar.
  ir::Value *reductionIdentity(ir::InstKind combine, ir::ScalarKind scalar,
                               Location loc);
  /// The row (index) of the components of block \p block: block * S +
  /// subgroup_local_id.
  ir::Value *rowOf(unsigned block, Location loc);
  /// `constant 0` of the part type \p type.
  ir::Value *zero(const ir::Type *type, Location loc);

protected:
  ir::Context &ctx;
  ir::Builder b;
  unsigned subgroupSize;
  /// The types that keep the greedy layout (fixLayouts).
  llvm::DenseSet<const ir::CoopMatrixType *> greedyLayout;
  /// The parts of each coopmatrix value split so far.
  llvm::DenseMap<ir::Value *, Parts> parts;
  /// subgroup_local_id as an index, by the parallel region it is made at
  /// the start of.
  llvm::DenseMap<ir::Region *, ir::Value *> laneIndex;
};

/// Splits the coopmatrix load, store or atomic \p inst into accesses of
/// parts before it (CoopPartsMemory.cpp); returns the parts of its result
/// (loaded values, old values of an atomic update), if any.
Parts splitCoopAccess(PartBuilder &pb, ir::Instruction &inst);

/// Why \p core cannot do the coopmatrix atomic \p inst, if it cannot.
std::optional<std::string> checkCoopAtomic(const ir::Instruction &inst,
                                           const CoreInfo &core);

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PASSES_PARTBUILDER_H
