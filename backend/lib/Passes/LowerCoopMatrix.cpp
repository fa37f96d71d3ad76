//===- LowerCoopMatrix.cpp - Cooperative matrices in fewer instructions ---===//
//
// Rewrites the cooperative-matrix instructions that other ones express on
// the core at hand, so that the emitter only maps the rest:
//
// - `cooperative_matrix_prefetch` is a hint and is dropped: OpenCL's
//   prefetch works on whole vectors of global memory and buys nothing for
//   the per-work-item layout;
// - `cooperative_matrix_scale %a, %B` becomes `mul` by
//   `cooperative_matrix_construct %a` (the emitter splats %a once per part
//   width either way);
// - `cooperative_matrix_apply` is unrolled over the work-item's components:
//   component k = b + B*j (B = ceil(rows / subgroup size)) has row
//   b*S + subgroup_local_id and column j; the region is inlined once per
//   component between a `cooperative_matrix_extract` and a
//   `cooperative_matrix_insert`.
//
// Then the coopmatrix values are split into the work-item's parts
// (CoopParts.cpp, layout in CoopLayout.h): constants, construct, extract,
// insert, component-wise arithmetic and casts become instructions on
// numbers and `vector<...>` parts, and for/if/yield carry one value per
// part. Memory accesses, mul_add and reductions still take whole
// coopmatrices (the emitter lowers them), joined to the parts by
// `cooperative_matrix_from_parts` and `cooperative_matrix_part`.
//
//===----------------------------------------------------------------------===//
#include "KernelShape.h"
#include "Passes/CoopParts.h"
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"

#include "llvm/ADT/DenseMap.h"

using namespace comprehend;
using namespace comprehend::backend;

namespace {

bool isRewritten(const ir::Instruction &inst) {
  return llvm::isa<ir::CooperativeMatrixPrefetchInst,
                   ir::CooperativeMatrixScaleInst,
                   ir::CooperativeMatrixApplyInst>(&inst);
}

/// Copies instructions into the builder's insertion point, renaming the
/// values they use through `mapping` (values defined outside stay).
class Cloner {
public:
  explicit Cloner(ir::Builder &b) : b(b) {}

  void map(ir::Value *from, ir::Value *to) { mapping[from] = to; }
  ir::Value *lookup(ir::Value *value) const {
    auto it = mapping.find(value);
    return it == mapping.end() ? value : it->second;
  }

  /// Clones the instructions of \p region before the builder's insertion
  /// point, except a trailing `yield`, whose operands it returns renamed.
  llvm::SmallVector<ir::Value *, 1> inlineRegion(ir::Region &region) {
    llvm::SmallVector<ir::Value *, 1> yielded;
    for (ir::Instruction &inst : region) {
      if (&inst == &region.back() && inst.getKind() == ir::InstKind::Yield) {
        for (ir::Value *operand : inst.getOperands())
          yielded.push_back(lookup(operand));
        break;
      }
      b.insert(clone(inst));
    }
    return yielded;
  }

private:
  std::unique_ptr<ir::Instruction> clone(const ir::Instruction &inst) {
    auto copy = ir::Instruction::create(inst.getKind(), inst.getLoc());
    llvm::SmallVector<ir::Value *, 4> operands;
    for (ir::Value *operand : inst.getOperands())
      operands.push_back(lookup(operand));
    copy->setOperands(operands, inst.getOperandSegmentSizes());
    for (unsigned i = 0, e = inst.getNumProperties(); i < e; ++i)
      copy->setProperty(i, inst.getProperty(i));
    for (ir::Value *result : inst.getResults())
      map(result, copy->addResult(result->getType(), result->getLoc(),
                                  result->getName()));
    for (unsigned i = 0, e = inst.getNumRegions(); i < e; ++i) {
      ir::Region &from = inst.getRegion(i);
      ir::Region &to = copy->getRegion(i);
      for (ir::Value *parameter : from.getParameters())
        map(parameter,
            to.addParameter(parameter->getType(), parameter->getLoc(),
                            parameter->getName()));
      for (const ir::Instruction &nested : from)
        to.push_back(clone(nested));
    }
    return copy;
  }

  ir::Builder &b;
  llvm::DenseMap<ir::Value *, ir::Value *> mapping;
};

class LowerCoopMatrixPass : public KernelShapePass {
public:
  LogicalResult runOnShape(ir::Function &function, PassContext &context,
                           KernelShape &kernelShape) override {
    subgroupSize = kernelShape.subgroupSize;
    // An inlined apply region may hold coopmatrix instructions itself.
    for (bool changed = true; changed;) {
      changed = false;
      replaceMatching(function, isRewritten,
                      [&](ir::Instruction &inst, LoweringBuilder &b) {
                        lower(inst, b);
                        changed = true;
                      });
    }
    return splitCoopMatricesIntoParts(function, subgroupSize, context.core,
                                      context.diags);
  }

private:
  void lower(ir::Instruction &inst, LoweringBuilder &b) {
    if (auto scale = llvm::dyn_cast<ir::CooperativeMatrixScaleInst>(&inst)) {
      ir::Value *factor =
          b.create<ir::CooperativeMatrixConstructInst>(
               b.getLoc(), scale.getB()->getType(), scale.getA())
              .getResult();
      scale.getResult()->replaceAllUsesWith(b.mul(factor, scale.getB()));
    } else if (auto apply =
                   llvm::dyn_cast<ir::CooperativeMatrixApplyInst>(&inst)) {
      lowerApply(apply, b);
    }
  }

  void lowerApply(ir::CooperativeMatrixApplyInst apply, LoweringBuilder &b) {
    Location loc = b.getLoc();
    auto *type = llvm::cast<ir::CoopMatrixType>(apply.getA()->getType());
    int64_t blocks = (type->getRows() + subgroupSize - 1) / subgroupSize;
    int64_t components = blocks * type->getCols();
    const ir::Type *i32 = b.getScalarType(ir::ScalarKind::I32);
    // Row of component b + B*j: b*S + lane (the lane is 0 on one lane).
    ir::Value *lane = subgroupSize == 1
                          ? nullptr
                          : b.create<ir::SubgroupLocalIdInst>(loc).getResult();
    ir::Region &body = apply.getBody();
    ir::Value *matrix = apply.getA();
    for (int64_t k = 0; k < components; ++k) {
      int64_t firstRow = (k % blocks) * subgroupSize;
      ir::Value *row =
          lane && firstRow == 0
              ? lane
              : b.createConstant(loc, ir::ConstantValue(firstRow), i32);
      if (lane && firstRow != 0)
        row = b.add(row, lane);
      ir::Value *col =
          b.createConstant(loc, ir::ConstantValue(int64_t(k / blocks)), i32);
      ir::Value *value =
          b.create<ir::CooperativeMatrixExtractInst>(loc, apply.getA(), k)
              .getResult();
      Cloner cloner(b);
      cloner.map(body.getParameter(0), row);
      cloner.map(body.getParameter(1), col);
      cloner.map(body.getParameter(2), value);
      llvm::SmallVector<ir::Value *, 1> yielded = cloner.inlineRegion(body);
      if (yielded.empty() || yielded.front() == value)
        continue;
      matrix = b.create<ir::CooperativeMatrixInsertInst>(loc, yielded.front(),
                                                         matrix, k)
                   .getResult();
    }
    apply.getResult()->replaceAllUsesWith(matrix);
  }

  int64_t subgroupSize = 1;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createLowerCoopMatrixPass() {
  return std::make_unique<LowerCoopMatrixPass>();
}
