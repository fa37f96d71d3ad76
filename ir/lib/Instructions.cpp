//===- Instructions.cpp - Generated builders and their hooks --------------===//
//
// The build() functions come from the table; the hooks below add what the
// table does not describe: region parameters (loop variables, tile offsets
// and sizes, the component coordinates of cooperative_matrix_apply).
//
//===----------------------------------------------------------------------===//
#include "comprehend/ir/Instructions.h"

#include "Constraints.h"

namespace comprehend::ir {

#include "comprehend/ir/InstBuilders.cpp.inc"

/// The type of the first operand of group \p group, or index if empty.
static const Type *groupType(Context &ctx, Instruction &inst, unsigned group) {
  llvm::ArrayRef<Value *> values = inst.getOperandGroup(group);
  if (!values.empty() && values.front())
    return values.front()->getType();
  return ScalarType::get(ctx, ScalarKind::Index);
}

void detail::buildForParams(Context &ctx, Instruction &inst) {
  ForInst view(&inst);
  Region &body = view.getBody();
  body.addParameter(groupType(ctx, inst, 0), inst.getLoc());
  for (Value *init : view.getInit())
    body.addParameter(init->getType(), inst.getLoc());
}

void detail::buildForeachParams(Context &ctx, Instruction &inst) {
  ForeachInst view(&inst);
  for (Value *from : view.getFrom())
    view.getBody().addParameter(from->getType(), inst.getLoc());
}

void detail::buildForeachTileParams(Context &ctx, Instruction &inst) {
  ForeachTileInst view(&inst);
  for (Value *from : view.getFrom())
    view.getBody().addParameter(from->getType(), inst.getLoc());
  for (Value *from : view.getFrom())
    view.getBody().addParameter(from->getType(), inst.getLoc());
}

void detail::buildCoopApplyParams(Context &ctx, Instruction &inst) {
  CooperativeMatrixApplyInst view(&inst);
  const Type *i32 = ScalarType::get(ctx, ScalarKind::I32);
  Region &body = view.getBody();
  body.addParameter(i32, inst.getLoc());
  body.addParameter(i32, inst.getLoc());
  std::optional<ScalarKind> kind =
      getScalarOrComponentKind(view.getA()->getType());
  assert(kind && "cooperative_matrix_apply needs a coopmatrix operand");
  body.addParameter(ScalarType::get(ctx, *kind), inst.getLoc());
}

} // namespace comprehend::ir
