//===- VerifyCollective.cpp - Rules of the collective instructions --------===//
//
// Shapes and orders of axpby, cumsum, gemm, gemv, ger, hadamard and sum;
// the atomic beta rule; alloca and lifetime_stop.
//
//===----------------------------------------------------------------------===//
#include "VerifyHelpers.h"

using namespace comprehend;
using namespace comprehend::ir;
using namespace comprehend::ir::detail;

std::string detail::dimText(int64_t value) {
  return isDynamic(value) ? "?" : std::to_string(value);
}

llvm::SmallVector<int64_t, 2> detail::opShape(const MemRefType *type,
                                              Transpose t) {
  llvm::SmallVector<int64_t, 2> shape(type->getShape().begin(),
                                      type->getShape().end());
  if (t == Transpose::T && shape.size() == 2)
    std::swap(shape[0], shape[1]);
  return shape;
}

void detail::checkDimsEqual(const Instruction &inst, VerifyContext &vc,
                            unsigned operand, llvm::StringRef what, int64_t a,
                            llvm::StringRef otherWhat, int64_t b) {
  if (compatibleDims(a, b))
    return;
  vc.emitOperandError(inst, operand)
      << "'" << inst.getName() << "' requires " << what << " = " << otherWhat
      << ", but " << dimText(a) << " != " << dimText(b);
}

/// The value of a `constant` defining \p value, as a double, if real.
static std::optional<double> constantValue(const Value *value) {
  auto constant =
      llvm::dyn_cast_or_null<ConstantInst>(value->getDefiningInstruction());
  if (!constant)
    return std::nullopt;
  const ConstantValue &c = constant.getValue();
  if (const auto *i = std::get_if<int64_t>(&c))
    return static_cast<double>(*i);
  if (const auto *d = std::get_if<double>(&c))
    return *d;
  if (const auto *z = std::get_if<std::complex<double>>(&c))
    return z->imag() == 0 ? std::optional<double>(z->real()) : std::nullopt;
  return std::nullopt;
}

void detail::checkAtomicBeta(const Instruction &inst, VerifyContext &vc,
                             bool atomic, Value *beta, unsigned betaIndex) {
  if (!atomic)
    return;
  std::optional<double> value = constantValue(beta);
  if (value && (*value == 0 || *value == 1))
    return;
  vc.emitOperandError(inst, betaIndex)
      << "operand 'beta' of '" << inst.getName()
      << ".atomic' must be a constant 0 or 1";
}

void detail::verifyAlloca(const Instruction &inst, VerifyContext &vc) {
  auto allocaInst = viewOf<AllocaInst>(inst);
  const auto *type = memrefOf(allocaInst.getResult());
  if (type->getNumDynamicShape() != 0 || type->getNumDynamicStride() != 0)
    vc.emitError(inst.getLoc())
        << "result of 'alloca' must have a static shape and stride, but has "
           "type "
        << type;
  if (type->getAddressSpace() != AddressSpace::Local)
    vc.emitError(inst.getLoc())
        << "result of 'alloca' must be in the local address space, but has "
           "type "
        << type;
  const DictionaryAttr *attrs = allocaInst.getAttributes();
  if (!attrs)
    return;
  if (const Attribute *attr = attrs->get("alignment")) {
    const auto *value = llvm::dyn_cast<IntegerAttr>(attr);
    int64_t size = getSizeInBytes(type->getElementKind());
    if (!value || value->getValue() <= 0)
      vc.emitError(inst.getLoc())
          << "'alignment' of 'alloca' must be a positive integer, but is "
          << *attr;
    else if (value->getValue() % size != 0)
      vc.emitError(inst.getLoc())
          << "'alignment' of 'alloca' must be a multiple of the element size "
          << size << ", but is " << value->getValue();
  }
}

void detail::verifyLifetimeStop(const Instruction &inst, VerifyContext &vc) {
  const Value *object = viewOf<LifetimeStopInst>(inst).getObject();
  if (!llvm::isa_and_nonnull<AllocaInst>(object->getDefiningInstruction()))
    vc.emitOperandError(inst, 0)
        << "operand 'object' of 'lifetime_stop' must be the result of an "
           "'alloca'";
}

void detail::verifyAxpby(const Instruction &inst, VerifyContext &vc) {
  auto axpby = viewOf<AxpbyInst>(inst);
  const MemRefType *a = memrefOf(axpby.getA());
  const MemRefType *b = memrefOf(axpby.getB());
  if (b->getOrder() > 2) {
    vc.emitOperandError(inst, 3)
        << "operand 'B' of 'axpby' must have order 0, 1 or 2, but has type "
        << b;
    return;
  }
  auto shapeA = opShape(a, axpby.getTransposeA());
  if (shapeA.size() != b->getOrder()) {
    vc.emitOperandError(inst, 3)
        << "'axpby' requires shape(B) = shape(op(A)), but B has order "
        << b->getOrder() << " and A has order " << a->getOrder();
    return;
  }
  for (unsigned i = 0; i < shapeA.size(); ++i)
    checkDimsEqual(inst, vc, 3, "shape(B)[" + std::to_string(i) + "]",
                   b->getShape(i), "shape(op(A))[" + std::to_string(i) + "]",
                   shapeA[i]);
  checkAtomicBeta(inst, vc, axpby.isAtomic(), axpby.getBeta(), 2);
}

void detail::verifyCumsum(const Instruction &inst, VerifyContext &vc) {
  auto cumsum = viewOf<CumsumInst>(inst);
  const MemRefType *a = memrefOf(cumsum.getA());
  const MemRefType *b = memrefOf(cumsum.getB());
  if (a->getOrder() < 1) {
    vc.emitOperandError(inst, 1)
        << "operand 'A' of 'cumsum' must have order >= 1, but has type " << a;
    return;
  }
  if (cumsum.getMode() < 0 || cumsum.getMode() >= a->getOrder())
    vc.emitError(inst.getLoc())
        << "mode " << cumsum.getMode() << " of 'cumsum' must be in [0, "
        << a->getOrder() << ")";
  if (a->getOrder() != b->getOrder()) {
    vc.emitOperandError(inst, 3)
        << "'cumsum' requires shape(A) = shape(B), but A has order "
        << a->getOrder() << " and B has order " << b->getOrder();
    return;
  }
  for (unsigned i = 0; i < a->getOrder(); ++i)
    checkDimsEqual(inst, vc, 3, "shape(B)[" + std::to_string(i) + "]",
                   b->getShape(i), "shape(A)[" + std::to_string(i) + "]",
                   a->getShape(i));
  checkAtomicBeta(inst, vc, cumsum.isAtomic(), cumsum.getBeta(), 2);
}

void detail::verifyGemm(const Instruction &inst, VerifyContext &vc) {
  auto gemm = viewOf<GemmInst>(inst);
  auto a = opShape(memrefOf(gemm.getA()), gemm.getTransposeA());
  auto b = opShape(memrefOf(gemm.getB()), gemm.getTransposeB());
  const MemRefType *c = memrefOf(gemm.getC());
  checkDimsEqual(inst, vc, 2, "columns(op(A))", a[1], "rows(op(B))", b[0]);
  checkDimsEqual(inst, vc, 4, "rows(C)", c->getShape(0), "rows(op(A))", a[0]);
  checkDimsEqual(inst, vc, 4, "columns(C)", c->getShape(1), "columns(op(B))",
                 b[1]);
  checkAtomicBeta(inst, vc, gemm.isAtomic(), gemm.getBeta(), 3);
}

void detail::verifyGemv(const Instruction &inst, VerifyContext &vc) {
  auto gemv = viewOf<GemvInst>(inst);
  auto a = opShape(memrefOf(gemv.getA()), gemv.getTransposeA());
  const MemRefType *b = memrefOf(gemv.getB());
  const MemRefType *c = memrefOf(gemv.getC());
  checkDimsEqual(inst, vc, 2, "columns(op(A))", a[1], "rows(b)",
                 b->getShape(0));
  checkDimsEqual(inst, vc, 4, "rows(c)", c->getShape(0), "rows(op(A))", a[0]);
  checkAtomicBeta(inst, vc, gemv.isAtomic(), gemv.getBeta(), 3);
}

void detail::verifyGer(const Instruction &inst, VerifyContext &vc) {
  auto ger = viewOf<GerInst>(inst);
  const MemRefType *a = memrefOf(ger.getA());
  const MemRefType *b = memrefOf(ger.getB());
  const MemRefType *c = memrefOf(ger.getC());
  checkDimsEqual(inst, vc, 4, "rows(C)", c->getShape(0), "rows(a)",
                 a->getShape(0));
  checkDimsEqual(inst, vc, 4, "columns(C)", c->getShape(1), "rows(b)",
                 b->getShape(0));
  checkAtomicBeta(inst, vc, ger.isAtomic(), ger.getBeta(), 3);
}

void detail::verifyHadamard(const Instruction &inst, VerifyContext &vc) {
  auto hadamard = viewOf<HadamardInst>(inst);
  const MemRefType *types[] = {memrefOf(hadamard.getA()),
                               memrefOf(hadamard.getB()),
                               memrefOf(hadamard.getC())};
  const unsigned operandIndex[] = {1, 2, 4};
  const char *names[] = {"a", "b", "c"};
  for (unsigned k = 0; k < 3; ++k) {
    unsigned order = types[k]->getOrder();
    if (order == 1 || order == 2)
      continue;
    vc.emitOperandError(inst, operandIndex[k])
        << "operand '" << names[k]
        << "' of 'hadamard' must have order 1 or 2, but has type " << types[k];
    return;
  }
  for (unsigned k = 1; k < 3; ++k) {
    if (types[k]->getOrder() != types[0]->getOrder()) {
      vc.emitOperandError(inst, operandIndex[k])
          << "'hadamard' requires operands of equal order, but '" << names[k]
          << "' has type " << types[k] << " and 'a' has type " << types[0];
      return;
    }
    for (unsigned i = 0; i < types[0]->getOrder(); ++i)
      checkDimsEqual(
          inst, vc, operandIndex[k],
          "shape(" + std::string(names[k]) + ")[" + std::to_string(i) + "]",
          types[k]->getShape(i), "shape(a)[" + std::to_string(i) + "]",
          types[0]->getShape(i));
  }
  checkAtomicBeta(inst, vc, hadamard.isAtomic(), hadamard.getBeta(), 3);
}

void detail::verifySum(const Instruction &inst, VerifyContext &vc) {
  auto sum = viewOf<SumInst>(inst);
  const MemRefType *a = memrefOf(sum.getA());
  const MemRefType *b = memrefOf(sum.getB());
  if (b->getOrder() > 1) {
    vc.emitOperandError(inst, 3)
        << "operand 'b' of 'sum' must have order 0 or 1, but has type " << b;
    return;
  }
  if (a->getOrder() != b->getOrder() + 1) {
    vc.emitOperandError(inst, 1)
        << "operand 'A' of 'sum' must have order " << b->getOrder() + 1
        << " (order of 'b' plus 1), but has type " << a;
    return;
  }
  if (b->getOrder() == 1)
    checkDimsEqual(inst, vc, 3, "rows(b)", b->getShape(0), "rows(op(A))",
                   opShape(a, sum.getTransposeA())[0]);
  checkAtomicBeta(inst, vc, sum.isAtomic(), sum.getBeta(), 2);
}
