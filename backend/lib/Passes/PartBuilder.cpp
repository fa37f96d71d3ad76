//===- PartBuilder.cpp - Building the parts of cooperative matrices -------===//
#include "Passes/PartBuilder.h"
#include "Passes/LoweringBuilder.h"

#include <complex>
#include <limits>

using namespace comprehend;
using namespace comprehend::backend;

CoopLayout PartBuilder::layoutOf(const ir::CoopMatrixType *type) const {
  return CoopLayout::get(type->getRows(), type->getCols(),
                         type->getComponentKind(), subgroupSize,
                         /*compactTail=*/!greedyLayout.contains(type));
}

void PartBuilder::fixLayouts(ir::Region &region) {
  for (ir::Instruction &inst : region) {
    if (auto part = llvm::dyn_cast<ir::CooperativeMatrixPartInst>(&inst))
      greedyLayout.insert(coopOf(part.getMat()));
    else if (auto whole =
                 llvm::dyn_cast<ir::CooperativeMatrixFromPartsInst>(&inst))
      greedyLayout.insert(coopOf(whole.getResult()));
    else if (auto insert =
                 llvm::dyn_cast<ir::CooperativeMatrixInsertInst>(&inst))
      greedyLayout.insert(coopOf(insert.getResult()));
    for (ir::Region *nested : inst.getRegions())
      fixLayouts(*nested);
  }
}

const ir::Type *PartBuilder::partType(ir::ScalarKind kind,
                                      unsigned width) const {
  if (width == 1)
    return ir::ScalarType::get(ctx, kind);
  return ir::VectorType::get(ctx, kind, width);
}

Parts PartBuilder::getParts(ir::Value *value) {
  auto it = parts.find(value);
  assert(it != parts.end() && "coopmatrix used before it was split");
  return it->second;
}

void PartBuilder::replaceByParts(ir::Value *value, Parts valueParts) {
  if (!value->hasUses())
    return;
  ir::Value *whole = b.create<ir::CooperativeMatrixFromPartsInst>(
                          value->getLoc(), value->getType(), valueParts)
                         .getResult();
  value->replaceAllUsesWith(whole);
  parts[whole] = std::move(valueParts);
}

ir::Value *PartBuilder::getComponent(ir::Value *value, unsigned k,
                                     Location loc) {
  CoopLayout layout = layoutOf(coopOf(value));
  auto [part, lane] = layout.locate(k);
  ir::Value *id = getParts(value)[part];
  if (layout.getWidth(part) == 1)
    return id;
  return b.create<ir::VectorExtractInst>(loc, id, lane).getResult();
}

Parts PartBuilder::getComponents(ir::Value *value, Location loc) {
  Parts result;
  for (unsigned k = 0, e = layoutOf(coopOf(value)).getNumComponents(); k < e;
       ++k)
    result.push_back(getComponent(value, k, loc));
  return result;
}

Parts PartBuilder::pack(const ir::CoopMatrixType *type,
                        llvm::ArrayRef<ir::Value *> components, Location loc) {
  CoopLayout layout = layoutOf(type);
  ir::ScalarKind kind = type->getComponentKind();
  unsigned chunks = layout.getPartsPerColumn();
  Parts parts;
  for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
    unsigned width = layout.getWidth(part);
    unsigned first =
        layout.starts[part % chunks] + layout.blocks * (part / chunks);
    if (width == 1) {
      parts.push_back(components[first]);
      continue;
    }
    const ir::Type *vectorType = partType(kind, width);
    ir::Value *vector = zero(vectorType, loc);
    for (unsigned lane = 0, used = layout.getUsedLanes(part); lane < used;
         ++lane)
      vector = b.create<ir::VectorInsertInst>(loc, components[first + lane],
                                              vector, lane)
                   .getResult();
    parts.push_back(vector);
  }
  return parts;
}

ir::Value *PartBuilder::splat(ir::Value *value, ir::ScalarKind kind,
                              unsigned width,
                              std::array<ir::Value *, 17> &byWidth,
                              Location loc) {
  if (width == 1)
    return value;
  if (!byWidth[width])
    byWidth[width] =
        b.create<ir::VectorSplatInst>(loc, partType(kind, width), value)
            .getResult();
  return byWidth[width];
}

ir::Value *PartBuilder::castTo(ir::Value *value, ir::ScalarKind kind,
                               Location loc) {
  if (ir::getScalarOrComponentKind(value->getType()) == kind)
    return value;
  return b.create<ir::CastInst>(loc, ir::ScalarType::get(ctx, kind), value)
      .getResult();
}

ir::Value *PartBuilder::i32(int64_t value, Location loc) {
  return b.createConstant(loc, ir::ConstantValue(value),
                          ir::ScalarType::get(ctx, ir::ScalarKind::I32));
}

ir::Value *PartBuilder::binary(ir::InstKind kind, ir::Value *x, ir::Value *y,
                               Location loc) {
  return b.createBinary(loc, kind, x, y);
}

ir::Value *PartBuilder::groupReduce(ir::InstKind combine, ir::Value *value,
                                    Location loc) {
  std::optional<ir::InstKind> kind =
      ir::lookupMnemonic(("subgroup_reduce_" + ir::getMnemonic(combine)).str());
  assert(kind && "every combine has a subgroup reduction");
  auto inst = ir::Instruction::create(*kind, loc);
  inst->setOperands({value}, {1});
  ir::Value *result = inst->addResult(value->getType());
  b.insert(std::move(inst));
  return result;
}

ir::Value *PartBuilder::reductionIdentity(ir::InstKind combine,
                                          ir::ScalarKind scalar, Location loc) {
  const ir::Type *type = ir::ScalarType::get(ctx, scalar);
  bool isMax = combine == ir::InstKind::Max;
  if (combine == ir::InstKind::Add)
    return zero(type, loc);
  if (ir::isInteger(scalar)) {
    unsigned bits = 8 * ir::getSizeInBytes(scalar);
    int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max()
                             : (int64_t(1) << (bits - 1)) - 1;
    return b.createConstant(loc, ir::ConstantValue(isMax ? -max - 1 : max),
                            type);
  }
  double inf = std::numeric_limits<double>::infinity();
  return b.createConstant(loc, ir::ConstantValue(isMax ? -inf : inf), type);
}

ir::Value *PartBuilder::rowOf(unsigned block, Location loc) {
  if (subgroupSize == 1)
    return b.createIndexConstant(loc, block);
  // The lane, made once at the start of the enclosing parallel region.
  ir::Region *region = b.getInsertionRegion();
  while (region->getParentInstruction() &&
         !llvm::isa<ir::ParallelInst>(region->getParentInstruction()))
    region = region->getParentInstruction()->getParentRegion();
  ir::Value *&lane = laneIndex[region];
  if (!lane) {
    ir::Builder atStart(ctx);
    atStart.setInsertionPointToStart(*region);
    ir::Value *id = atStart.create<ir::SubgroupLocalIdInst>(loc).getResult();
    lane = atStart.create<ir::CastInst>(loc, b.getIndexType(), id).getResult();
  }
  if (block == 0)
    return lane;
  return b
      .create<ir::AddInst>(
          loc, b.createIndexConstant(loc, int64_t(block) * subgroupSize), lane)
      .getResult();
}

ir::Value *PartBuilder::addIndex(ir::Value *a, int64_t c, Location loc) {
  if (c == 0)
    return a;
  if (std::optional<int64_t> constant = getIntegerConstant(a))
    return index(*constant + c, loc);
  return b.create<ir::AddInst>(loc, a, index(c, loc)).getResult();
}

ir::Value *PartBuilder::add(ir::Value *x, ir::Value *y, Location loc) {
  if (std::optional<int64_t> constant = getIntegerConstant(y))
    return addIndex(x, *constant, loc);
  if (std::optional<int64_t> constant = getIntegerConstant(x))
    return addIndex(y, *constant, loc);
  return b.create<ir::AddInst>(loc, x, y).getResult();
}

ir::Value *PartBuilder::zero(const ir::Type *type, Location loc) {
  ir::ScalarKind kind = *ir::getScalarOrComponentKind(type);
  ir::ConstantValue value = ir::isInteger(kind) ? ir::ConstantValue(int64_t(0))
                            : ir::isComplex(kind)
                                ? ir::ConstantValue(std::complex<double>())
                                : ir::ConstantValue(0.0);
  return b.createConstant(loc, value, type);
}
