//===- VerifyCoop.cpp - Rules of the cooperative matrix instructions ------===//
#include "VerifyHelpers.h"

#include "comprehend/ir/Region.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

static const CoopMatrixType *coopOf(const Value *value) {
  return llvm::dyn_cast_or_null<CoopMatrixType>(value->getType());
}

/// rows(X) mod subgroup_size = 0, when the subgroup size is known.
static void checkRowsMultiple(const Instruction &inst, VerifyContext &vc,
                              const CoopMatrixType *type, llvm::StringRef what,
                              Location loc) {
  std::optional<int64_t> sg = vc.getSubgroupSize();
  if (!sg || *sg <= 0 || type->getRows() % *sg == 0)
    return;
  vc.emitError(loc) << "rows of " << what << " of '" << inst.getName()
                    << "' must be a multiple of the subgroup size " << *sg
                    << ", but " << type << " has " << type->getRows();
}

void detail::verifyCoopApply(const Instruction &inst, VerifyContext &vc) {
  auto apply = viewOf<CooperativeMatrixApplyInst>(inst);
  const CoopMatrixType *type = coopOf(apply.getA());
  const Region &body = apply.getBody();
  const Type *i32 = ScalarType::get(type->getContext(), ScalarKind::I32);
  const Type *expected[] = {i32, i32, type->getComponentType()};
  if (body.getNumParameters() != 3) {
    vc.emitError(inst.getLoc())
        << "region of 'cooperative_matrix_apply' must have 3 parameters "
           "(row, column, value), but has "
        << body.getNumParameters();
    return;
  }
  for (unsigned i = 0; i < 3; ++i)
    if (body.getParameter(i)->getType() != expected[i])
      vc.emitError(body.getParameter(i)->getLoc())
          << "parameter " << i << " of 'cooperative_matrix_apply' must have "
          << "type " << expected[i] << ", but has type "
          << body.getParameter(i)->getType();
  if (body.empty() || body.back().getKind() != InstKind::Yield)
    vc.emitError(body.empty() ? inst.getLoc() : body.back().getLoc())
        << "region of 'cooperative_matrix_apply' must end with 'yield'";
}

void detail::verifyCoopElementIndex(const Instruction &inst,
                                    VerifyContext &vc) {
  unsigned matIndex =
      inst.getKind() == InstKind::CooperativeMatrixExtract ? 0 : 1;
  const CoopMatrixType *type = coopOf(inst.getOperand(matIndex));
  int64_t index = inst.getInteger(*inst.getDescriptor().findProperty("index"));
  if (index < 0) {
    vc.emitError(inst.getLoc()) << "index " << index << " of '"
                                << inst.getName() << "' must not be negative";
    return;
  }
  std::optional<int64_t> sg = vc.getSubgroupSize();
  if (!sg || *sg <= 0)
    return;
  // Rows beyond the last multiple of the subgroup size are padded: a
  // work-item holds ceil(rows / sg) components per column.
  // Rounded up without rows + sg - 1 (sg is the user's); sizes are at most
  // 65536 (TypeParser.cpp), so the product fits.
  int64_t rows = type->getRows();
  int64_t length = (rows / *sg + (rows % *sg != 0)) * type->getCols();
  if (index >= length)
    vc.emitError(inst.getLoc())
        << "index " << index << " of '" << inst.getName()
        << "' must be smaller than the work-item vector length " << length
        << " of " << type;
}

void detail::verifyCoopMulAdd(const Instruction &inst, VerifyContext &vc) {
  auto mulAdd = viewOf<CooperativeMatrixMulAddInst>(inst);
  const CoopMatrixType *a = coopOf(mulAdd.getA());
  const CoopMatrixType *b = coopOf(mulAdd.getB());
  const CoopMatrixType *c = coopOf(mulAdd.getC());
  const CoopMatrixType *d = coopOf(mulAdd.getResult());
  if (a->getCols() != b->getRows())
    vc.emitOperandError(inst, 1)
        << "'cooperative_matrix_mul_add' requires columns(A) = rows(B), but "
        << a->getCols() << " != " << b->getRows();
  if (c->getRows() != a->getRows() || c->getCols() != b->getCols())
    vc.emitOperandError(inst, 2)
        << "'cooperative_matrix_mul_add' requires shape(C) = " << a->getRows()
        << "x" << b->getCols() << " (rows(A) x columns(B)), but C has type "
        << c;
  if (d->getRows() != c->getRows() || d->getCols() != c->getCols())
    vc.emitError(inst.getLoc())
        << "result of 'cooperative_matrix_mul_add' must have the shape of C ("
        << c->getRows() << "x" << c->getCols() << "), but has type " << d;
  checkRowsMultiple(inst, vc, a, "A", inst.getOperandLoc(0));
  checkRowsMultiple(inst, vc, c, "C", inst.getOperandLoc(2));
}

void detail::verifyCoopPrefetch(const Instruction &inst, VerifyContext &vc) {
  auto prefetch = viewOf<CooperativeMatrixPrefetchInst>(inst);
  if (prefetch.getCacheLevel() < 0)
    vc.emitError(inst.getLoc())
        << "cache level of 'cooperative_matrix_prefetch' must not be "
           "negative, but is "
        << prefetch.getCacheLevel();
  if (prefetch.getRows() <= 0 || prefetch.getCols() <= 0)
    vc.emitError(inst.getLoc())
        << "block size of 'cooperative_matrix_prefetch' must be positive, "
           "but is "
        << prefetch.getRows() << "x" << prefetch.getCols();
}

void detail::verifyCoopReduce(const Instruction &inst, VerifyContext &vc) {
  const CoopMatrixType *a = coopOf(viewOf<CoopReduceView>(inst).getA());
  const CoopMatrixType *result = coopOf(inst.getResult(0));
  bool rowReduce =
      static_cast<ReduceMode>(inst.getInteger(0)) == ReduceMode::Row;
  int64_t rows = rowReduce ? a->getRows() : 1;
  int64_t cols = rowReduce ? 1 : a->getCols();
  const CoopMatrixType *expected = CoopMatrixType::get(
      a->getContext(), a->getComponentKind(), rows, cols, a->getUse());
  if (result != expected)
    vc.emitError(inst.getLoc())
        << "result of '" << inst.getName()
        << stringify(rowReduce ? ReduceMode::Row : ReduceMode::Column)
        << "' must have type " << expected << ", but has type " << result;
  checkRowsMultiple(inst, vc, a, "the operand", inst.getOperandLoc(0));
}

void detail::verifyPartIndex(const Instruction &inst, VerifyContext &vc) {
  int64_t index = inst.getInteger(*inst.getDescriptor().findProperty("index"));
  if (index < 0) {
    vc.emitError(inst.getLoc()) << "index " << index << " of '"
                                << inst.getName() << "' must not be negative";
    return;
  }
  // The parts of a coopmatrix depend on the subgroup size; a vector's
  // width is in its type.
  const Value *vector = inst.getOperands().back();
  if (const auto *type = llvm::dyn_cast<VectorType>(vector->getType()))
    if (index >= type->getWidth())
      vc.emitError(inst.getLoc())
          << "index " << index << " of '" << inst.getName()
          << "' must be smaller than the width " << type->getWidth() << " of "
          << type;
}

void detail::verifyFromParts(const Instruction &inst, VerifyContext &vc) {
  ScalarKind component = coopOf(inst.getResult(0))->getComponentKind();
  if (inst.getNumOperands() == 0)
    vc.emitError(inst.getLoc())
        << "'" << inst.getName() << "' needs at least one part";
  for (unsigned i = 0, e = inst.getNumOperands(); i < e; ++i)
    if (getScalarOrComponentKind(inst.getOperand(i)->getType()) != component)
      vc.emitOperandError(inst, i)
          << "part " << i << " of '" << inst.getName() << "' must hold "
          << stringify(component) << ", but has type "
          << inst.getOperand(i)->getType();
}

void detail::verifyVectorStore(const Instruction &inst, VerifyContext &vc) {
  verifyVectorAccess(inst, vc);
  const DictionaryAttr *attrs = viewOf<VectorStoreInst>(inst).getAttributes();
  if (!attrs)
    return;
  // `align` is a promise the emitter passes on (a false one faults on
  // streaming stores), so only a value that can be true is taken.
  if (const Attribute *align = attrs->get("align")) {
    const auto *bytes = llvm::dyn_cast<IntegerAttr>(align);
    if (!bytes || !llvm::isPowerOf2_64(bytes->getValue()))
      vc.emitError(inst.getLoc())
          << "'align' of 'vector_store' must be a power of two (bytes), but "
             "is "
          << *align;
  }
  if (const Attribute *streaming = attrs->get("nontemporal"))
    if (!llvm::isa<BoolAttr>(streaming))
      vc.emitError(inst.getLoc())
          << "'nontemporal' of 'vector_store' must be a boolean, but is "
          << *streaming;
}

void detail::verifyVectorAccess(const Instruction &inst, VerifyContext &vc) {
  verifyIndexCount(inst, vc);
  std::optional<unsigned> group = inst.getDescriptor().findOperand("tensor");
  const auto *memref =
      llvm::cast<MemRefType>(inst.getOperandGroup(*group).front()->getType());
  if (memref->getStride(0) != 1)
    vc.emitOperandError(inst, *group)
        << "mode 0 of the memref of '" << inst.getName()
        << "' must have stride 1, but " << memref << " has stride "
        << (isDynamic(memref->getStride(0))
                ? std::string("?")
                : std::to_string(memref->getStride(0)));
}
