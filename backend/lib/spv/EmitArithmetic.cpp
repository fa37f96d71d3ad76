//===- EmitArithmetic.cpp - Arithmetic, comparisons, casts, math ----------===//
//
// Scalars map to core SPIR-V instructions or OpenCL.std, vectors (the parts
// of coopmatrices, see CoopLayout.h) to the same ones on OpenCL vectors.
// Complex numbers are 2-vectors (re, im); f16/bf16 values are computed in
// f32.
//
//===----------------------------------------------------------------------===//
#include "spv/FunctionEmitter.h"

#include <cmath>
#include <complex>
#include <numbers>

using namespace comprehend;
using namespace comprehend::backend;
using namespace comprehend::backend::spv;
using ir::InstKind;
using ir::ScalarKind;

namespace {

constexpr unsigned kNoOpcode = ~0u;

/// The SPIR-V of an instruction's scalar form, from the instruction table
/// (`spirvInt`, `spirvFloat`, `spirvBool`, `spirvExt`).
struct ScalarOpcodes {
  bool isExtInst;
  unsigned integer, floating, boolean;
};

constexpr ScalarOpcodes kScalarOpcodes[] = {
#include "comprehend/ir/InstSpirv.inc"
};
static_assert(std::size(kScalarOpcodes) == ir::kNumInstKinds,
              "one row per InstKind");

} // namespace

Id FunctionEmitter::emitTableOp(InstKind kind, std::optional<ScalarKind> scalar,
                                Id type, llvm::ArrayRef<Id> operands) {
  const ScalarOpcodes &row = kScalarOpcodes[static_cast<unsigned>(kind)];
  unsigned opcode = !scalar                  ? row.boolean
                    : ir::isInteger(*scalar) ? row.integer
                                             : row.floating;
  assert(opcode != kNoOpcode && "the instruction table has no opcode");
  if (row.isExtInst)
    return emitExt(static_cast<OpenCLLIB::Entrypoints>(opcode), type, operands);
  return emitValue(static_cast<::spv::Op>(opcode), type, operands);
}

Id FunctionEmitter::makeComplex(ScalarKind kind, Id re, Id im) {
  // OpCompositeInsert instead of OpCompositeConstruct: LLVMSPIRVLib 15
  // crashes on vectors constructed from non-constant scalars.
  Id type = types.getValueType(kind);
  Id vector = emitValue(::spv::OpCompositeInsert, type,
                        {re, builder.getConstantNull(type), 0});
  return emitValue(::spv::OpCompositeInsert, type, {im, vector, 1});
}

Id FunctionEmitter::complexMul(ScalarKind kind, Id a, Id b) {
  Id component = types.getComponentValueType(kind);
  auto part = [&](Id v, unsigned i) {
    return emitValue(::spv::OpCompositeExtract, component, {v, i});
  };
  Id ar = part(a, 0), ai = part(a, 1), br = part(b, 0), bi = part(b, 1);
  Id aibi = emitValue(::spv::OpFMul, component, {ai, bi});
  Id negAibi = emitValue(::spv::OpFNegate, component, {aibi});
  Id re = emitExt(OpenCLLIB::Fma, component, {ar, br, negAibi});
  Id aibr = emitValue(::spv::OpFMul, component, {ai, br});
  Id im = emitExt(OpenCLLIB::Fma, component, {ar, bi, aibr});
  return makeComplex(kind, re, im);
}

Id FunctionEmitter::complexDiv(ScalarKind kind, Id a, Id b) {
  // a / b = a * conj(b) / |b|^2.
  Id component = types.getComponentValueType(kind);
  Id type = types.getValueType(kind);
  Id br = emitValue(::spv::OpCompositeExtract, component, {b, 0});
  Id bi = emitValue(::spv::OpCompositeExtract, component, {b, 1});
  Id negBi = emitValue(::spv::OpFNegate, component, {bi});
  Id conj = makeComplex(kind, br, negBi);
  Id numerator = complexMul(kind, a, conj);
  Id bibi = emitValue(::spv::OpFMul, component, {bi, bi});
  Id norm = emitExt(OpenCLLIB::Fma, component, {br, br, bibi});
  Id normVector = makeComplex(kind, norm, norm);
  return emitValue(::spv::OpFDiv, type, {numerator, normVector});
}

Id FunctionEmitter::emitMulAdd(ScalarKind kind, Id a, Id b, Id c,
                               unsigned width) {
  Id type = getVectorValueType(kind, width);
  if (ir::isInteger(kind))
    return emitValue(::spv::OpIAdd, type,
                     {emitValue(::spv::OpIMul, type, {a, b}), c});
  if (ir::isComplex(kind))
    return emitValue(::spv::OpFAdd, type, {complexMul(kind, a, b), c});
  return emitExt(OpenCLLIB::Fma, type, {a, b, c});
}

Id FunctionEmitter::emitScalarBinary(InstKind kind, ScalarKind scalar, Id a,
                                     Id b, unsigned width) {
  if (ir::isComplex(scalar) && kind == InstKind::Mul)
    return complexMul(scalar, a, b);
  if (ir::isComplex(scalar) && kind == InstKind::Div)
    return complexDiv(scalar, a, b);
  return emitTableOp(kind, scalar, getVectorValueType(scalar, width), {a, b});
}

Id FunctionEmitter::emitBinary(InstKind kind, const ir::Type *type, Id a,
                               Id b) {
  if (llvm::isa<ir::BoolType>(type))
    return emitTableOp(kind, std::nullopt, types.getBoolType(), {a, b});
  return emitScalarBinary(kind, *ir::getScalarOrComponentKind(type), a, b);
}

Id FunctionEmitter::emitScalarUnary(InstKind kind, ScalarKind scalar, Id a,
                                    unsigned width) {
  Id type = getVectorValueType(scalar, width);
  if (!ir::isComplex(scalar))
    return emitTableOp(kind, scalar, type, {a});
  // Complex values are (re, im) vectors.
  Id component = types.getComponentValueType(scalar);
  auto part = [&](unsigned i) {
    return emitValue(::spv::OpCompositeExtract, component, {a, i});
  };
  switch (kind) {
  case InstKind::Abs:
    return emitExt(OpenCLLIB::Hypot, component, {part(0), part(1)});
  case InstKind::Conj: {
    Id negIm = emitValue(::spv::OpFNegate, component, {part(1)});
    return emitValue(::spv::OpCompositeInsert, type, {negIm, a, 1});
  }
  case InstKind::Re:
    return part(0);
  case InstKind::Im:
    return part(1);
  default:
    return emitTableOp(kind, scalar, type, {a});
  }
}

Id FunctionEmitter::emitCompare(InstKind kind, ScalarKind scalar, Id a, Id b) {
  Id boolType = types.getBoolType();
  if (ir::isComplex(scalar)) {
    Id bool2 = builder.getVectorType(boolType, 2);
    bool equal = kind == InstKind::Equal;
    Id parts = emitValue(equal ? ::spv::OpFOrdEqual : ::spv::OpFUnordNotEqual,
                         bool2, {a, b});
    return emitValue(equal ? ::spv::OpAll : ::spv::OpAny, boolType, {parts});
  }
  return emitTableOp(kind, scalar, boolType, {a, b});
}

Id FunctionEmitter::emitCast(ScalarKind from, ScalarKind to, Id value,
                             unsigned width) {
  Id fromComponent = types.getComponentValueType(from);
  Id toComponent = types.getComponentValueType(to);
  Id toType = types.getValueType(to);
  unsigned fromWidth = builder.getTypeInfo(fromComponent).width;
  unsigned toWidth = builder.getTypeInfo(toComponent).width;
  // Vectors hold real or integer kinds only: convert them as a whole.
  if (width > 1)
    toComponent = getVectorValueType(to, width);
  auto convertComponent = [&](Id component) -> Id {
    if (ir::isInteger(from) && ir::isInteger(to))
      return fromWidth == toWidth
                 ? component
                 : emitValue(::spv::OpSConvert, toComponent, {component});
    if (ir::isInteger(from))
      return emitValue(::spv::OpConvertSToF, toComponent, {component});
    if (ir::isInteger(to))
      return emitValue(::spv::OpConvertFToS, toComponent, {component});
    return fromWidth == toWidth
               ? component
               : emitValue(::spv::OpFConvert, toComponent, {component});
  };
  if (ir::isComplex(from)) {
    // complex -> complex only (the verifier rejects the rest).
    return fromWidth == toWidth ? value
                                : emitValue(::spv::OpFConvert, toType, {value});
  }
  Id converted = convertComponent(value);
  if (!ir::isComplex(to))
    return converted;
  return emitValue(::spv::OpCompositeInsert, toType,
                   {converted, builder.getConstantNull(toType), 0});
}

Id FunctionEmitter::emitMath(InstKind kind, ScalarKind scalar, Id a) {
  Id type = types.getValueType(scalar);
  if (ir::isComplex(scalar)) {
    // exp(x + iy) = e^x (cos y + i sin y); exp2 via y * ln 2.
    Id component = types.getComponentValueType(scalar);
    Id re = emitValue(::spv::OpCompositeExtract, component, {a, 0});
    Id im = emitValue(::spv::OpCompositeExtract, component, {a, 1});
    bool native = kind == InstKind::NativeExp || kind == InstKind::NativeExp2;
    bool base2 = kind == InstKind::Exp2 || kind == InstKind::NativeExp2;
    // The table's entry point of the real form gives e^x (or 2^x).
    Id magnitude = emitTableOp(kind, scalar, component, {re});
    if (base2)
      im = emitValue(
          ::spv::OpFMul, component,
          {im, builder.getConstantFloat(component, std::numbers::ln2)});
    Id cos = emitExt(native ? OpenCLLIB::Native_cos : OpenCLLIB::Cos, component,
                     {im});
    Id sin = emitExt(native ? OpenCLLIB::Native_sin : OpenCLLIB::Sin, component,
                     {im});
    return makeComplex(scalar,
                       emitValue(::spv::OpFMul, component, {magnitude, cos}),
                       emitValue(::spv::OpFMul, component, {magnitude, sin}));
  }
  return emitTableOp(kind, scalar, type, {a});
}

/// A constant of \p kind from a `constant` property value.
static Id getConstantId(TypeMapper &types, ScalarKind kind,
                        const ir::ConstantValue &value) {
  if (const auto *integer = std::get_if<int64_t>(&value))
    return types.getConstant(kind, *integer);
  if (const auto *real = std::get_if<double>(&value))
    return types.getConstant(kind, *real);
  if (const auto *complex = std::get_if<std::complex<double>>(&value))
    return types.getConstant(kind, complex->real(), complex->imag());
  return types.getConstant(kind, int64_t(std::get<bool>(value)));
}

void FunctionEmitter::emitConstant(ir::ConstantInst inst) {
  const ir::ConstantValue &value = inst.getValue();
  ir::Value *result = inst.getResult();
  const ir::Type *resultType = result->getType();
  if (llvm::isa<ir::BoolType>(resultType)) {
    setValue(result, builder.getConstantBool(std::get<bool>(value)));
    return;
  }
  ScalarKind scalar = *ir::getScalarOrComponentKind(resultType);
  Id id = getConstantId(types, scalar, value);
  // Index constants fold into address arithmetic (addI64, mulI64).
  if (scalar == ScalarKind::Index)
    id = constI64(std::get<int64_t>(value));
  if (auto *vector = llvm::dyn_cast<ir::VectorType>(resultType))
    id = builder.getConstantComposite(
        getPartType(vector), llvm::SmallVector<Id, 16>(vector->getWidth(), id));
  setValue(result, id);
}

LogicalResult FunctionEmitter::emitArithmeticInst(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  if (auto constant = llvm::dyn_cast<ir::ConstantInst>(&inst)) {
    emitConstant(constant);
    return success();
  }
  bool isCast = kind == InstKind::Cast;
  bool isElementwise = inst.hasTrait(ir::InstTrait::Elementwise);
  if (!isCast && !isElementwise && !inst.hasTrait(ir::InstTrait::Comparison) &&
      !inst.hasTrait(ir::InstTrait::MathFunction))
    return emitUnsupported(inst, "no SPIR-V lowering for this instruction");

  // Every remaining instruction has one result and number or vector
  // operands whose kind decides the opcode.
  llvm::ArrayRef<ir::Value *> operands = inst.getOperands();
  ir::Value *result = inst.getResult(0);
  const ir::Type *resultType = result->getType();
  std::optional<ScalarKind> operandKind =
      ir::getScalarOrComponentKind(operands.front()->getType());
  llvm::SmallVector<Id, 8> ids = flatten(operands);
  auto *vector = llvm::dyn_cast<ir::VectorType>(resultType);
  if (!isCast && !isElementwise) {
    // Comparisons take scalars; math functions scalars or real vectors,
    // which OpenCL.std maps component-wise.
    if (inst.hasTrait(ir::InstTrait::Comparison))
      setValue(result, emitCompare(kind, *operandKind, ids[0], ids[1]));
    else if (vector)
      setValue(result,
               emitTableOp(kind, *operandKind, getPartType(vector), ids));
    else
      setValue(result, emitMath(kind, *operandKind, ids[0]));
    return success();
  }
  unsigned width = vector ? vector->getWidth() : 1;
  Id id;
  if (isCast)
    id = emitCast(*operandKind, *ir::getScalarOrComponentKind(resultType),
                  ids[0], width);
  else if (operands.size() == 2 && vector)
    id =
        emitScalarBinary(kind, vector->getElementKind(), ids[0], ids[1], width);
  else if (operands.size() == 2)
    id = emitBinary(kind, resultType, ids[0], ids[1]);
  else if (!operandKind) // `not` on bool.
    id = emitTableOp(kind, std::nullopt, types.getBoolType(), {ids[0]});
  else
    id = emitScalarUnary(kind, *operandKind, ids[0], width);
  setValue(result, id);
  return success();
}
