//===- CoopParts.cpp - Cooperative matrices as per-work-item parts --------===//
//
// Each coopmatrix value maps to its parts (CoopLayout.h): part
// `c + P*j` (P parts per column) holds components starts[c] ..
// starts[c] + width - 1 of column j, as a number (width 1) or a
// `vector<kind x width>`. The instructions below become their part-wise
// form, as the emitter did before:
//
// - constant: one constant per part (a vector constant repeats the value);
// - construct: one `vector_splat` per distinct width;
// - extract / insert: `vector_extract` / `vector_insert` of the part
//   holding the component, or the part itself when it is a number;
// - component-wise arithmetic and casts: the same instruction per part
//   when every operand is packed like the result, else per component
//   (extract, compute, and pack again into a zero vector);
// - for / if / yield: one carried value per part.
//
// A value still needed by a coopmatrix instruction the emitter lowers
// (memory accesses, mul_add, reductions) is put together again with
// `cooperative_matrix_from_parts`; the parts of such an instruction's
// result are taken with `cooperative_matrix_part`. Both emit no code.
//
//===----------------------------------------------------------------------===//
#include "Passes/CoopParts.h"
#include "Passes/PartBuilder.h"

#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::backend;

namespace {

bool hasCoop(llvm::ArrayRef<ir::Value *> values) {
  return llvm::any_of(values, [](ir::Value *v) { return coopOf(v); });
}

class PartSplitter : public PartBuilder {
public:
  PartSplitter(ir::Context &ctx, unsigned subgroupSize, const CoreInfo &core,
               DiagnosticEngine &diags)
      : PartBuilder(ctx, subgroupSize), core(core), diags(diags) {}

  /// Whether every instruction could be split.
  LogicalResult result = success();

  void run(ir::Region &region);
  /// Removes the connecting instructions nothing uses any more; returns
  /// whether it removed any.
  bool removeUnused(ir::Region &region);
  void visit(ir::Instruction &inst);
  LogicalResult check(ir::Instruction &inst);
  /// The parts of the coopmatrix result of \p inst.
  Parts splitInst(ir::Instruction &inst);
  /// Component-wise arithmetic and casts: per part when every operand is
  /// packed like the result, else per component.
  Parts splitElementwise(ir::Instruction &inst, const ir::CoopMatrixType *type,
                         const CoopLayout &layout);
  /// \p inst applied to \p operands, with result type \p type.
  ir::Value *cloneWith(ir::Instruction &inst,
                       llvm::ArrayRef<ir::Value *> operands,
                       const ir::Type *type);
  /// D := A * B + C. Vector form, when A's columns are chunked like C's:
  /// D[:, j] += A[:, p] * B[p, j], one fma per column chunk with B[p, j]
  /// splatted. Else per component: B[p, j] lives in lane p mod S,
  /// component (p div S) + bBlocks * j, and is broadcast from there.
  Parts splitMulAdd(ir::CooperativeMatrixMulAddInst inst);
  /// Row reductions combine a work-item's columns (part-wise when the
  /// result is chunked alike); column reductions combine its components of
  /// a column, padding rows replaced by the identity, then the subgroup's.
  Parts splitReduce(ir::CoopReduceView inst);
  /// \p values with each coopmatrix replaced by its parts.
  llvm::SmallVector<ir::Value *, 8> flatten(llvm::ArrayRef<ir::Value *> values);
  /// Binds \p values (old results or region parameters) to the flattened
  /// \p replacements, a coopmatrix to as many as it has parts.
  void bindFlattened(llvm::ArrayRef<ir::Value *> values,
                     llvm::ArrayRef<ir::Value *> replacements);
  static void moveBody(ir::Region &from, ir::Region &to);
  /// \p loop with one carried value per part.
  ir::ForInst splitFor(ir::ForInst loop);
  /// \p branch with one result per part.
  ir::IfInst splitIf(ir::IfInst branch);

  const CoreInfo &core;
  DiagnosticEngine &diags;
};

} // namespace

void PartSplitter::run(ir::Region &region) {
  llvm::SmallVector<ir::Instruction *, 32> insts;
  for (ir::Instruction &inst : region)
    insts.push_back(&inst);
  // After an error the values it left unsplit have no parts: stop there.
  for (ir::Instruction *inst : insts) {
    if (failed(result))
      return;
    visit(*inst);
  }
}

bool PartSplitter::removeUnused(ir::Region &region) {
  bool removed = false;
  llvm::SmallVector<ir::Instruction *, 8> dead;
  for (ir::Instruction &inst : region) {
    for (ir::Region *nested : inst.getRegions())
      removed |= removeUnused(*nested);
    if (llvm::isa<ir::CooperativeMatrixPartInst,
                  ir::CooperativeMatrixFromPartsInst>(&inst) &&
        !inst.getResult(0)->hasUses())
      dead.push_back(&inst);
  }
  for (ir::Instruction *inst : dead)
    region.erase(inst);
  return removed || !dead.empty();
}

void PartSplitter::visit(ir::Instruction &inst) {
  if (auto loop = llvm::dyn_cast<ir::ForInst>(&inst)) {
    run(splitFor(loop).getBody());
    return;
  }
  if (auto branch = llvm::dyn_cast<ir::IfInst>(&inst)) {
    ir::IfInst split = splitIf(branch);
    run(split.getThen());
    run(split.getElse());
    return;
  }
  for (ir::Region *nested : inst.getRegions())
    run(*nested);
  if (llvm::isa<ir::YieldInst>(&inst)) {
    if (hasCoop(inst.getOperands())) {
      llvm::SmallVector<ir::Value *, 8> values = flatten(inst.getOperands());
      inst.setOperands(values, {unsigned(values.size())});
    }
    return;
  }
  auto extract = llvm::dyn_cast<ir::CooperativeMatrixExtractInst>(&inst);
  auto part = llvm::dyn_cast<ir::CooperativeMatrixPartInst>(&inst);
  bool isAccess = inst.hasTrait(ir::InstTrait::CoopMatrix) &&
                  inst.getDescriptor().hasMemoryEffects();
  if (!extract && !part && !isAccess && !hasCoop(inst.getResults()))
    return;
  if (failed(check(inst))) {
    result = failure();
    return;
  }
  b.setInsertionPoint(&inst);
  ir::Value *value = inst.getNumResults() ? inst.getResult(0) : nullptr;
  if (extract) {
    value->replaceAllUsesWith(
        getComponent(extract.getMat(), extract.getIndex(), extract.getLoc()));
  } else if (part) {
    value->replaceAllUsesWith(getParts(part.getMat())[part.getIndex()]);
  } else if (auto whole =
                 llvm::dyn_cast<ir::CooperativeMatrixFromPartsInst>(&inst)) {
    llvm::ArrayRef<ir::Value *> operands = whole.getParts();
    replaceByParts(value, Parts(operands.begin(), operands.end()));
    // Its own from_parts replaces it.
  } else if (isAccess) {
    Parts results = splitCoopAccess(*this, inst);
    if (value)
      replaceByParts(value, std::move(results));
  } else {
    replaceByParts(value, splitInst(inst));
  }
  inst.getParentRegion()->erase(&inst);
}

/// Reports what the parts cannot express: written parts that do not fit
/// the layout, and atomics on elements the target cannot update.
LogicalResult PartSplitter::check(ir::Instruction &inst) {
  auto error = [&]() -> InFlightDiagnostic {
    return diags.emitError(inst.getLoc());
  };
  if (auto part = llvm::dyn_cast<ir::CooperativeMatrixPartInst>(&inst)) {
    const ir::CoopMatrixType *type = coopOf(part.getMat());
    CoopLayout layout = layoutOf(type);
    auto index = static_cast<unsigned>(part.getIndex());
    if (index >= layout.getNumParts())
      return error() << "index " << index << " of '" << inst.getName()
                     << "' must be smaller than the number of parts "
                     << layout.getNumParts() << " of " << type
                     << " on subgroup size " << subgroupSize;
    const ir::Type *expected =
        partType(type->getComponentKind(), layout.getWidth(index));
    if (part.getResult()->getType() != expected)
      return error() << "part " << index << " of " << type
                     << " on subgroup size " << subgroupSize << " has type "
                     << expected << ", not " << part.getResult()->getType();
    return success();
  }
  if (auto whole = llvm::dyn_cast<ir::CooperativeMatrixFromPartsInst>(&inst)) {
    const ir::CoopMatrixType *type = coopOf(whole.getResult());
    CoopLayout layout = layoutOf(type);
    llvm::SmallVector<const ir::Type *, 16> expected;
    for (unsigned i = 0, e = layout.getNumParts(); i < e; ++i)
      expected.push_back(
          partType(type->getComponentKind(), layout.getWidth(i)));
    llvm::SmallVector<const ir::Type *, 16> found;
    for (ir::Value *operand : whole.getParts())
      found.push_back(operand->getType());
    if (found != expected) {
      InFlightDiagnostic diag = error();
      diag << "the parts of " << type << " on subgroup size " << subgroupSize
           << " have types (";
      llvm::interleaveComma(expected, diag,
                            [&](const ir::Type *t) { diag << t; });
      diag << ")";
      return diag;
    }
    return success();
  }
  if (std::optional<std::string> problem = checkCoopAtomic(inst, core))
    return error() << "cannot emit '" << inst.getName()
                   << "' as SPIR-V for target '" << core.name
                   << "': " << *problem;
  return success();
}

Parts PartSplitter::splitInst(ir::Instruction &inst) {
  Location loc = inst.getLoc();
  const ir::CoopMatrixType *type = coopOf(inst.getResult(0));
  CoopLayout layout = layoutOf(type);
  ir::ScalarKind kind = type->getComponentKind();
  Parts parts;
  if (auto constant = llvm::dyn_cast<ir::ConstantInst>(&inst)) {
    std::array<ir::Value *, 17> byWidth = {};
    for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
      unsigned width = layout.getWidth(part);
      if (!byWidth[width])
        byWidth[width] =
            b.createConstant(loc, constant.getValue(), partType(kind, width));
      parts.push_back(byWidth[width]);
    }
    return parts;
  }
  if (auto construct =
          llvm::dyn_cast<ir::CooperativeMatrixConstructInst>(&inst)) {
    std::array<ir::Value *, 17> byWidth = {};
    for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part)
      parts.push_back(
          splat(construct.getVal(), kind, layout.getWidth(part), byWidth, loc));
    return parts;
  }
  if (auto insert = llvm::dyn_cast<ir::CooperativeMatrixInsertInst>(&inst)) {
    parts = getParts(insert.getMat());
    auto [part, lane] = layout.locate(insert.getIndex());
    parts[part] = layout.getWidth(part) == 1
                      ? insert.getVal()
                      : b.create<ir::VectorInsertInst>(loc, insert.getVal(),
                                                       parts[part], lane)
                            .getResult();
    return parts;
  }
  if (auto mulAdd = llvm::dyn_cast<ir::CooperativeMatrixMulAddInst>(&inst))
    return splitMulAdd(mulAdd);
  if (auto reduce = llvm::dyn_cast<ir::CoopReduceView>(&inst))
    return splitReduce(reduce);
  return splitElementwise(inst, type, layout);
}

Parts PartSplitter::splitElementwise(ir::Instruction &inst,
                                     const ir::CoopMatrixType *type,
                                     const CoopLayout &layout) {
  ir::ScalarKind kind = type->getComponentKind();
  bool samePacking = llvm::all_of(inst.getOperands(), [&](ir::Value *op) {
    return layoutOf(coopOf(op)) == layout;
  });
  Parts out;
  if (samePacking) {
    llvm::SmallVector<Parts, 2> operands;
    for (ir::Value *operand : inst.getOperands())
      operands.push_back(getParts(operand));
    for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
      llvm::SmallVector<ir::Value *, 2> ids;
      for (const Parts &operand : operands)
        ids.push_back(operand[part]);
      out.push_back(
          cloneWith(inst, ids, partType(kind, layout.getWidth(part))));
    }
    return out;
  }
  Parts components;
  for (unsigned k = 0, e = layout.getNumComponents(); k < e; ++k) {
    llvm::SmallVector<ir::Value *, 2> ids;
    for (ir::Value *operand : inst.getOperands())
      ids.push_back(getComponent(operand, k, inst.getLoc()));
    components.push_back(cloneWith(inst, ids, partType(kind, 1)));
  }
  return pack(type, components, inst.getLoc());
}

ir::Value *PartSplitter::cloneWith(ir::Instruction &inst,
                                   llvm::ArrayRef<ir::Value *> operands,
                                   const ir::Type *type) {
  return b.cloneWithOperands(inst, operands, type);
}

Parts PartSplitter::splitMulAdd(ir::CooperativeMatrixMulAddInst inst) {
  Location loc = inst.getLoc();
  const ir::CoopMatrixType *aType = coopOf(inst.getA()),
                           *bType = coopOf(inst.getB()),
                           *cType = coopOf(inst.getC()),
                           *dType = coopOf(inst.getResult());
  ir::ScalarKind ka = aType->getComponentKind(), kc = cType->getComponentKind(),
                 kd = dType->getComponentKind();
  unsigned depth = static_cast<unsigned>(aType->getCols());
  unsigned cols = static_cast<unsigned>(cType->getCols());
  unsigned bBlocks = layoutOf(bType).blocks;
  CoopLayout aLayout = layoutOf(aType), cLayout = layoutOf(cType);

  if (!cLayout.isScalar() && ka == kc && kc == kd &&
      aLayout.widths == cLayout.widths) {
    Parts a = getParts(inst.getA());
    Parts accumulators = getParts(inst.getC());
    unsigned chunks = cLayout.getPartsPerColumn();
    for (unsigned j = 0; j < cols; ++j) {
      for (unsigned p = 0; p < depth; ++p) {
        ir::Value *bValue =
            castTo(getComponent(inst.getB(), p + bBlocks * j, loc), kc, loc);
        std::array<ir::Value *, 17> byWidth = {};
        for (unsigned chunk = 0; chunk < chunks; ++chunk) {
          ir::Value *bSplat =
              splat(bValue, kc, cLayout.widths[chunk], byWidth, loc);
          ir::Value *&acc = accumulators[chunk + chunks * j];
          acc = b.create<ir::FmaInst>(loc, a[chunk + chunks * p], bSplat, acc)
                    .getResult();
        }
      }
    }
    return accumulators;
  }

  Parts a = getComponents(inst.getA(), loc);
  Parts bs = getComponents(inst.getB(), loc);
  Parts accumulators = getComponents(inst.getC(), loc);
  unsigned blocks = cLayout.blocks;
  for (unsigned j = 0; j < cols; ++j) {
    for (unsigned p = 0; p < depth; ++p) {
      ir::Value *bValue = bs[p / subgroupSize + bBlocks * j];
      if (subgroupSize > 1)
        bValue = b.create<ir::SubgroupBroadcastInst>(loc, bValue,
                                                     i32(p % subgroupSize, loc))
                     .getResult();
      bValue = castTo(bValue, kc, loc);
      for (unsigned block = 0; block < blocks; ++block) {
        ir::Value *aValue = castTo(a[block + blocks * p], kc, loc);
        ir::Value *&acc = accumulators[block + blocks * j];
        acc = b.create<ir::FmaInst>(loc, aValue, bValue, acc).getResult();
      }
    }
  }
  for (ir::Value *&acc : accumulators)
    acc = castTo(acc, kd, loc);
  return pack(dType, accumulators, loc);
}

Parts PartSplitter::splitReduce(ir::CoopReduceView inst) {
  Location loc = inst.getLoc();
  const ir::CoopMatrixType *type = coopOf(inst.getA());
  const ir::CoopMatrixType *resultType = coopOf(inst.getResult());
  ir::ReduceMode mode = inst.getMode();
  ir::ScalarKind scalar = type->getComponentKind();
  ir::InstKind combine = *inst->getDescriptor().combine;
  CoopLayout layout = layoutOf(type);
  unsigned blocks = layout.blocks, cols = layout.cols;
  Parts results;
  if (mode == ir::ReduceMode::Row &&
      layoutOf(resultType).widths == layout.widths) {
    Parts parts = getParts(inst.getA());
    unsigned chunks = layout.getPartsPerColumn();
    for (unsigned chunk = 0; chunk < chunks; ++chunk) {
      ir::Value *acc = parts[chunk];
      for (unsigned j = 1; j < cols; ++j)
        acc = binary(combine, acc, parts[chunk + chunks * j], loc);
      results.push_back(acc);
    }
    return results;
  }
  Parts values = getComponents(inst.getA(), loc);
  if (mode == ir::ReduceMode::Row) {
    for (unsigned block = 0; block < blocks; ++block) {
      ir::Value *acc = values[block];
      for (unsigned j = 1; j < cols; ++j)
        acc = binary(combine, acc, values[block + blocks * j], loc);
      results.push_back(acc);
    }
    return pack(resultType, results, loc);
  }
  bool hasPadding = type->getRows() % subgroupSize != 0;
  ir::Value *identity =
      hasPadding ? reductionIdentity(combine, scalar, loc) : nullptr;
  for (unsigned j = 0; j < cols; ++j) {
    ir::Value *acc = nullptr;
    for (unsigned block = 0; block < blocks; ++block) {
      ir::Value *value = values[block + blocks * j];
      if (hasPadding && block + 1 == blocks) {
        ir::Value *valid = b.create<ir::LessThanInst>(
                                loc, rowOf(block, loc),
                                b.createIndexConstant(loc, type->getRows()))
                               .getResult();
        value =
            b.create<ir::SelectInst>(loc, valid, value, identity).getResult();
      }
      acc = acc ? binary(combine, acc, value, loc) : value;
    }
    if (subgroupSize > 1)
      acc = groupReduce(combine, acc, loc);
    results.push_back(acc);
  }
  return pack(resultType, results, loc);
}

llvm::SmallVector<ir::Value *, 8>
PartSplitter::flatten(llvm::ArrayRef<ir::Value *> values) {
  llvm::SmallVector<ir::Value *, 8> result;
  for (ir::Value *value : values) {
    if (coopOf(value))
      llvm::append_range(result, getParts(value));
    else
      result.push_back(value);
  }
  return result;
}

void PartSplitter::bindFlattened(llvm::ArrayRef<ir::Value *> values,
                                 llvm::ArrayRef<ir::Value *> replacements) {
  for (ir::Value *value : values) {
    if (!coopOf(value)) {
      value->replaceAllUsesWith(replacements.front());
      replacements = replacements.drop_front();
      continue;
    }
    unsigned n = layoutOf(coopOf(value)).getNumParts();
    llvm::ArrayRef<ir::Value *> valueParts = replacements.take_front(n);
    replaceByParts(value, Parts(valueParts.begin(), valueParts.end()));
    replacements = replacements.drop_front(n);
  }
}

void PartSplitter::moveBody(ir::Region &from, ir::Region &to) {
  while (!from.empty())
    to.push_back(from.remove(&from.front()));
}

ir::ForInst PartSplitter::splitFor(ir::ForInst loop) {
  if (!hasCoop(loop.getInit()))
    return loop;
  b.setInsertionPoint(loop);
  llvm::SmallVector<ir::Value *, 8> init = flatten(loop.getInit());
  auto split =
      b.create<ir::ForInst>(loop.getLoc(), loop.getFrom(), loop.getTo(),
                            loop.getStep(), init, loop.getAttributes());
  ir::Region &body = split.getBody();
  moveBody(loop.getBody(), body);
  b.setInsertionPointToStart(body);
  loop.getBody().getParameter(0)->replaceAllUsesWith(body.getParameter(0));
  bindFlattened(loop.getBody().getParameters().drop_front(),
                body.getParameters().drop_front());
  b.setInsertionPointAfter(split);
  bindFlattened(loop->getResults(), split->getResults());
  loop->getParentRegion()->erase(loop);
  return split;
}

ir::IfInst PartSplitter::splitIf(ir::IfInst branch) {
  if (!hasCoop(branch->getResults()))
    return branch;
  llvm::SmallVector<const ir::Type *, 8> types;
  for (ir::Value *result : branch->getResults()) {
    const ir::CoopMatrixType *type = coopOf(result);
    if (!type) {
      types.push_back(result->getType());
      continue;
    }
    CoopLayout layout = layoutOf(type);
    for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part)
      types.push_back(
          partType(type->getComponentKind(), layout.getWidth(part)));
  }
  b.setInsertionPoint(branch);
  auto split =
      b.create<ir::IfInst>(branch.getLoc(), types, branch.getCondition());
  moveBody(branch.getThen(), split.getThen());
  moveBody(branch.getElse(), split.getElse());
  b.setInsertionPointAfter(split);
  bindFlattened(branch->getResults(), split->getResults());
  branch->getParentRegion()->erase(branch);
  return split;
}

LogicalResult comprehend::backend::splitCoopMatricesIntoParts(
    ir::Function &function, unsigned subgroupSize, const CoreInfo &core,
    DiagnosticEngine &diags) {
  PartSplitter splitter(function.getContext(), subgroupSize, core, diags);
  splitter.fixLayouts(function.getBody());
  splitter.run(function.getBody());
  while (splitter.removeUnused(function.getBody()))
    ;
  return splitter.result;
}
