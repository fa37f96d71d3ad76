//===- LowerForeach.cpp - foreach and foreach_tile onto the work-group ----===//
//
// `foreach` becomes `parallel` with loops that stride over the work-items:
// mode 1 over the x work-items (subgroup_id.x * S + subgroup_local_id, step
// work_group_size[0]), mode 2 over the y work-items (subgroup_id.y, step
// work_group_size[1]), further modes sequentially. A foreach of one mode on
// a work-group with y work-items strides over all of them (x + y *
// work_group_size[0], step work_group_size[0] * work_group_size[1]): each
// iteration must run once, not once per y work-item.
//
// `foreach_tile` becomes `parallel` with one loop over the linearised tile
// index that strides over the subgroups (subgroup_linear_id, step
// num_subgroups), so tile offsets stay uniform within a subgroup as the
// spec requires. Each iteration computes the tile offsets `from + k * tile`
// and sizes `min(tile, to - offset)` and runs the body.
//
// The body's instructions move into the innermost loop; its region
// parameters are replaced by the computed values.
//
//===----------------------------------------------------------------------===//
#include "KernelShape.h"
#include "Passes/LoweringBuilder.h"
#include "Passes/Pass.h"

#include "comprehend/ir/Function.h"

using namespace comprehend;
using namespace comprehend::backend;
using ir::InstKind;
using ir::ScalarKind;

namespace {

/// Moves every instruction of \p from to the end of \p to.
void moveBody(ir::Region &from, ir::Region &to) {
  while (!from.empty())
    to.push_back(from.remove(&from.front()));
}

class LowerForeachPass : public KernelShapePass {
public:
  LogicalResult runOnShape(ir::Function &function, PassContext &context,
                           KernelShape &kernelShape) override {
    shape = kernelShape;
    ctx = &function.getContext();
    replaceMatching(
        function,
        [](const ir::Instruction &inst) {
          return inst.getKind() == InstKind::Foreach ||
                 inst.getKind() == InstKind::ForeachTile;
        },
        [&](ir::Instruction &inst, LoweringBuilder &b) {
          if (inst.getKind() == InstKind::Foreach)
            lowerForeach(ir::ForeachInst(&inst), b);
          else
            lowerForeachTile(ir::ForeachTileInst(&inst), b);
        });
    return success();
  }

private:
  /// An i32 built-in converted to the integer type \p type.
  ir::Value *toType(LoweringBuilder &b, ir::Value *value,
                    const ir::Type *type) {
    return b.castTo(value, llvm::cast<ir::ScalarType>(type)->getScalarKind());
  }

  ir::Value *constant(LoweringBuilder &b, int64_t value, const ir::Type *type) {
    return b.createConstant(b.getLoc(), value, type);
  }

  void lowerForeach(ir::ForeachInst inst, LoweringBuilder &b) {
    Location loc = b.getLoc();
    auto parallel = b.create<ir::ParallelInst>(loc);
    b.setInsertionPointToEnd(parallel.getBody());
    ir::Region &body = inst.getBody();
    llvm::ArrayRef<ir::Value *> from = inst.getFrom(), to = inst.getTo();
    ir::Region *innermost = nullptr;
    for (unsigned mode = 0; mode < from.size(); ++mode) {
      const ir::Type *type = from[mode]->getType();
      ir::Value *start = from[mode];
      ir::Value *step = nullptr;
      if (mode == 0) {
        ir::Value *lane = b.create<ir::SubgroupLocalIdInst>(loc).getResult();
        ir::Value *group =
            b.create<ir::SubgroupIdInst>(loc, ir::Comp3::X).getResult();
        ir::Value *size = b.create<ir::SubgroupSizeInst>(loc).getResult();
        ir::Value *x = b.add(b.mul(group, size), lane); // x work-item id, i32
        int64_t stride = shape.workGroupSize[0];
        if (from.size() == 1 && shape.workGroupSize[1] > 1) {
          ir::Value *y =
              b.create<ir::SubgroupIdInst>(loc, ir::Comp3::Y).getResult();
          x = b.add(b.mul(y, constant(b, shape.workGroupSize[0], y->getType())),
                    x);
          stride *= shape.workGroupSize[1];
        }
        start = b.add(start, toType(b, x, type));
        step = constant(b, stride, type);
      } else if (mode == 1) {
        ir::Value *y =
            b.create<ir::SubgroupIdInst>(loc, ir::Comp3::Y).getResult();
        start = b.add(start, toType(b, y, type));
        step = constant(b, shape.workGroupSize[1], type);
      }
      auto loop = b.create<ir::ForInst>(loc, start, to[mode], step,
                                        llvm::ArrayRef<ir::Value *>{});
      body.getParameter(mode)->replaceAllUsesWith(
          loop.getBody().getParameter(0));
      b.setInsertionPointToEnd(loop.getBody());
      innermost = &loop.getBody();
    }
    moveBody(body, *innermost);
  }

  void lowerForeachTile(ir::ForeachTileInst inst, LoweringBuilder &b) {
    Location loc = b.getLoc();
    llvm::ArrayRef<ir::Value *> from = inst.getFrom(), to = inst.getTo();
    llvm::ArrayRef<int64_t> tileShape = inst.getTileShape();
    unsigned numModes = from.size();
    ir::Region &body = inst.getBody();

    // Number of tiles per mode, in index arithmetic: ceil((to - from) / T).
    llvm::SmallVector<ir::Value *, 2> counts;
    ir::Value *total = nullptr;
    for (unsigned mode = 0; mode < numModes; ++mode) {
      ir::Value *upper = b.castTo(to[mode], ScalarKind::Index);
      ir::Value *lower = b.castTo(from[mode], ScalarKind::Index);
      ir::Value *extent = b.create<ir::SubInst>(loc, upper, lower).getResult();
      ir::Value *rounded = b.add(extent, b.index(tileShape[mode] - 1));
      ir::Value *count =
          b.create<ir::DivInst>(loc, rounded, b.index(tileShape[mode]))
              .getResult();
      counts.push_back(count);
      total = total ? b.mul(total, count) : count;
    }

    auto parallel = b.create<ir::ParallelInst>(loc);
    b.setInsertionPointToEnd(parallel.getBody());
    ir::Value *first = b.castTo(
        b.create<ir::SubgroupLinearIdInst>(loc).getResult(), ScalarKind::Index);
    auto loop = b.create<ir::ForInst>(loc, first, total,
                                      b.index(shape.getNumSubgroups()),
                                      llvm::ArrayRef<ir::Value *>{});
    b.setInsertionPointToEnd(loop.getBody());
    ir::Value *rest = loop.getBody().getParameter(0);
    for (unsigned mode = 0; mode < numModes; ++mode) {
      const ir::Type *type = from[mode]->getType();
      ir::Value *k = rest;
      if (mode + 1 < numModes) {
        k = b.create<ir::RemInst>(loc, rest, counts[mode]).getResult();
        rest = b.create<ir::DivInst>(loc, rest, counts[mode]).getResult();
      }
      ir::Value *tile = constant(b, tileShape[mode], type);
      ir::Value *offset = b.add(
          from[mode],
          b.mul(b.castTo(k, llvm::cast<ir::ScalarType>(type)->getScalarKind()),
                tile));
      ir::Value *remaining =
          b.create<ir::SubInst>(loc, to[mode], offset).getResult();
      ir::Value *size = b.create<ir::MinInst>(loc, tile, remaining).getResult();
      body.getParameter(mode)->replaceAllUsesWith(offset);
      body.getParameter(numModes + mode)->replaceAllUsesWith(size);
    }
    moveBody(body, loop.getBody());
  }

  KernelShape shape;
  ir::Context *ctx = nullptr;
};

} // namespace

std::unique_ptr<Pass> comprehend::backend::createLowerForeachPass() {
  return std::make_unique<LowerForeachPass>();
}
