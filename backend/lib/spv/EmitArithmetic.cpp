//===- EmitArithmetic.cpp - Arithmetic, comparisons, casts, math ----------===//
//
// Scalars map to core SPIR-V instructions or OpenCL.std; coopmatrices apply
// the operation to each part (a vector or a scalar, see CoopLayout), or to
// each component when the operands' layouts differ. Complex numbers are
// 2-vectors (re, im); f16/bf16 values are computed in f32.
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
  Id type = getVectorValueType(scalar, width);
  bool isInt = ir::isInteger(scalar);
  switch (kind) {
  case InstKind::Add:
    return emitValue(isInt ? ::spv::OpIAdd : ::spv::OpFAdd, type, {a, b});
  case InstKind::Sub:
    return emitValue(isInt ? ::spv::OpISub : ::spv::OpFSub, type, {a, b});
  case InstKind::Mul:
    if (ir::isComplex(scalar))
      return complexMul(scalar, a, b);
    return emitValue(isInt ? ::spv::OpIMul : ::spv::OpFMul, type, {a, b});
  case InstKind::Div:
    if (ir::isComplex(scalar))
      return complexDiv(scalar, a, b);
    return emitValue(isInt ? ::spv::OpSDiv : ::spv::OpFDiv, type, {a, b});
  case InstKind::Rem:
    return emitValue(isInt ? ::spv::OpSRem : ::spv::OpFRem, type, {a, b});
  case InstKind::Max:
    return emitExt(isInt ? OpenCLLIB::SMax : OpenCLLIB::Fmax, type, {a, b});
  case InstKind::Min:
    return emitExt(isInt ? OpenCLLIB::SMin : OpenCLLIB::Fmin, type, {a, b});
  case InstKind::Shl:
    return emitValue(::spv::OpShiftLeftLogical, type, {a, b});
  case InstKind::Shr:
    return emitValue(::spv::OpShiftRightArithmetic, type, {a, b});
  case InstKind::And:
    return emitValue(::spv::OpBitwiseAnd, type, {a, b});
  case InstKind::Or:
    return emitValue(::spv::OpBitwiseOr, type, {a, b});
  case InstKind::Xor:
    return emitValue(::spv::OpBitwiseXor, type, {a, b});
  default:
    llvm_unreachable("not a binary arithmetic instruction");
  }
}

Id FunctionEmitter::emitBinary(InstKind kind, const ir::Type *type, Id a,
                               Id b) {
  if (llvm::isa<ir::BoolType>(type)) {
    Id boolType = types.getBoolType();
    switch (kind) {
    case InstKind::And:
      return emitValue(::spv::OpLogicalAnd, boolType, {a, b});
    case InstKind::Or:
      return emitValue(::spv::OpLogicalOr, boolType, {a, b});
    default:
      return emitValue(::spv::OpLogicalNotEqual, boolType, {a, b});
    }
  }
  return emitScalarBinary(kind, *ir::getScalarOrComponentKind(type), a, b);
}

Id FunctionEmitter::emitScalarUnary(InstKind kind, ScalarKind scalar, Id a,
                                    unsigned width) {
  Id type = getVectorValueType(scalar, width);
  Id component = types.getComponentValueType(scalar);
  bool isInt = ir::isInteger(scalar);
  switch (kind) {
  case InstKind::Abs:
    if (ir::isComplex(scalar))
      return emitExt(OpenCLLIB::Hypot, component,
                     {emitValue(::spv::OpCompositeExtract, component, {a, 0}),
                      emitValue(::spv::OpCompositeExtract, component, {a, 1})});
    return emitExt(isInt ? OpenCLLIB::SAbs : OpenCLLIB::Fabs, type, {a});
  case InstKind::Neg:
    return emitValue(isInt ? ::spv::OpSNegate : ::spv::OpFNegate, type, {a});
  case InstKind::Not:
    return emitValue(::spv::OpNot, type, {a});
  case InstKind::Conj: {
    Id im = emitValue(::spv::OpCompositeExtract, component, {a, 1});
    Id negIm = emitValue(::spv::OpFNegate, component, {im});
    return emitValue(::spv::OpCompositeInsert, type, {negIm, a, 1});
  }
  case InstKind::Re:
    return emitValue(::spv::OpCompositeExtract, component, {a, 0});
  case InstKind::Im:
    return emitValue(::spv::OpCompositeExtract, component, {a, 1});
  default:
    llvm_unreachable("not a unary arithmetic instruction");
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
  bool isInt = ir::isInteger(scalar);
  ::spv::Op op;
  switch (kind) {
  case InstKind::Equal:
    op = isInt ? ::spv::OpIEqual : ::spv::OpFOrdEqual;
    break;
  case InstKind::NotEqual:
    op = isInt ? ::spv::OpINotEqual : ::spv::OpFUnordNotEqual;
    break;
  case InstKind::GreaterThan:
    op = isInt ? ::spv::OpSGreaterThan : ::spv::OpFOrdGreaterThan;
    break;
  case InstKind::GreaterThanEqual:
    op = isInt ? ::spv::OpSGreaterThanEqual : ::spv::OpFOrdGreaterThanEqual;
    break;
  case InstKind::LessThan:
    op = isInt ? ::spv::OpSLessThan : ::spv::OpFOrdLessThan;
    break;
  case InstKind::LessThanEqual:
    op = isInt ? ::spv::OpSLessThanEqual : ::spv::OpFOrdLessThanEqual;
    break;
  default:
    llvm_unreachable("not a comparison");
  }
  return emitValue(op, boolType, {a, b});
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
    Id magnitude =
        emitExt(base2 ? (native ? OpenCLLIB::Native_exp2 : OpenCLLIB::Exp2)
                      : (native ? OpenCLLIB::Native_exp : OpenCLLIB::Exp),
                component, {re});
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
  OpenCLLIB::Entrypoints entry;
  switch (kind) {
  case InstKind::Cos:
    entry = OpenCLLIB::Cos;
    break;
  case InstKind::Sin:
    entry = OpenCLLIB::Sin;
    break;
  case InstKind::Exp:
    entry = OpenCLLIB::Exp;
    break;
  case InstKind::Exp2:
    entry = OpenCLLIB::Exp2;
    break;
  case InstKind::Log:
    entry = OpenCLLIB::Log;
    break;
  case InstKind::Log2:
    entry = OpenCLLIB::Log2;
    break;
  case InstKind::NativeCos:
    entry = OpenCLLIB::Native_cos;
    break;
  case InstKind::NativeSin:
    entry = OpenCLLIB::Native_sin;
    break;
  case InstKind::NativeExp:
    entry = OpenCLLIB::Native_exp;
    break;
  case InstKind::NativeExp2:
    entry = OpenCLLIB::Native_exp2;
    break;
  case InstKind::NativeLog:
    entry = OpenCLLIB::Native_log;
    break;
  case InstKind::NativeLog2:
    entry = OpenCLLIB::Native_log2;
    break;
  default:
    llvm_unreachable("not a math instruction");
  }
  return emitExt(entry, type, {a});
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

LogicalResult FunctionEmitter::emitArithmeticInst(ir::Instruction &inst) {
  InstKind kind = inst.getKind();
  ir::Value *result = inst.getNumResults() ? inst.getResult(0) : nullptr;
  const ir::Type *resultType = result ? result->getType() : nullptr;
  auto *coop =
      resultType ? llvm::dyn_cast<ir::CoopMatrixType>(resultType) : nullptr;

  // Applies fn(ids, width) to scalars and coopmatrices alike: per part when
  // all coopmatrix operands are packed like the result, else per component.
  auto map = [&](unsigned numOperands, auto &&fn) {
    if (!coop) {
      llvm::SmallVector<Id, 2> ids;
      for (unsigned i = 0; i < numOperands; ++i)
        ids.push_back(getValue(inst.getOperand(i)));
      setValue(result, fn(ids, 1u));
      return;
    }
    CoopLayout layout = getCoopLayout(coop);
    bool samePacking =
        llvm::all_of(llvm::ArrayRef(inst.getOperands()).take_front(numOperands),
                     [&](ir::Value *operand) {
                       auto *type =
                           llvm::cast<ir::CoopMatrixType>(operand->getType());
                       return getCoopLayout(type) == layout;
                     });
    llvm::SmallVector<Id, 16> out;
    if (samePacking) {
      for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
        llvm::SmallVector<Id, 2> ids;
        for (unsigned i = 0; i < numOperands; ++i)
          ids.push_back(getCoop(inst.getOperand(i))[part]);
        out.push_back(fn(ids, layout.getWidth(part)));
      }
      setCoop(result, std::move(out));
      return;
    }
    for (unsigned k = 0, e = layout.getNumComponents(); k < e; ++k) {
      llvm::SmallVector<Id, 2> ids;
      for (unsigned i = 0; i < numOperands; ++i)
        ids.push_back(getCoopComponent(inst.getOperand(i), k));
      out.push_back(fn(ids, 1u));
    }
    setCoopComponents(result, out);
  };
  auto operandKind = [&](unsigned i) {
    return *ir::getScalarOrComponentKind(inst.getOperand(i)->getType());
  };

  switch (kind) {
  case InstKind::Constant: {
    const ir::ConstantValue &value = inst.getConstant(0);
    if (llvm::isa<ir::BoolType>(resultType)) {
      setValue(result, builder.getConstantBool(std::get<bool>(value)));
      return success();
    }
    Id id =
        getConstantId(types, *ir::getScalarOrComponentKind(resultType), value);
    if (coop) {
      llvm::SmallVector<Id, 16> parts;
      CoopLayout layout = getCoopLayout(coop);
      for (unsigned part = 0, e = layout.getNumParts(); part < e; ++part) {
        unsigned width = layout.getWidth(part);
        parts.push_back(
            width == 1
                ? id
                : builder.getConstantComposite(
                      getVectorValueType(
                          *ir::getScalarOrComponentKind(resultType), width),
                      llvm::SmallVector<Id, 16>(width, id)));
      }
      setCoop(result, std::move(parts));
    } else {
      setValue(result, id);
    }
    return success();
  }
  case InstKind::Add:
  case InstKind::Sub:
  case InstKind::Mul:
  case InstKind::Div:
  case InstKind::Rem:
  case InstKind::Max:
  case InstKind::Min:
  case InstKind::Shl:
  case InstKind::Shr:
  case InstKind::And:
  case InstKind::Or:
  case InstKind::Xor:
    map(2, [&](llvm::ArrayRef<Id> ids, unsigned width) {
      if (width > 1)
        return emitScalarBinary(kind, *ir::getScalarOrComponentKind(resultType),
                                ids[0], ids[1], width);
      return emitBinary(kind, resultType, ids[0], ids[1]);
    });
    return success();
  case InstKind::Not:
    if (llvm::isa<ir::BoolType>(resultType)) {
      setValue(result, emitValue(::spv::OpLogicalNot, types.getBoolType(),
                                 {getValue(inst.getOperand(0))}));
      return success();
    }
    [[fallthrough]];
  case InstKind::Abs:
  case InstKind::Neg:
  case InstKind::Conj:
  case InstKind::Re:
  case InstKind::Im: {
    ScalarKind scalar = operandKind(0);
    map(1, [&](llvm::ArrayRef<Id> ids, unsigned width) {
      return emitScalarUnary(kind, scalar, ids[0], width);
    });
    return success();
  }
  case InstKind::Equal:
  case InstKind::NotEqual:
  case InstKind::GreaterThan:
  case InstKind::GreaterThanEqual:
  case InstKind::LessThan:
  case InstKind::LessThanEqual:
    setValue(result,
             emitCompare(kind, operandKind(0), getValue(inst.getOperand(0)),
                         getValue(inst.getOperand(1))));
    return success();
  case InstKind::Cast: {
    ScalarKind from = operandKind(0);
    ScalarKind to = *ir::getScalarOrComponentKind(resultType);
    map(1, [&](llvm::ArrayRef<Id> ids, unsigned width) {
      return emitCast(from, to, ids[0], width);
    });
    return success();
  }
  case InstKind::Cos:
  case InstKind::Sin:
  case InstKind::Exp:
  case InstKind::Exp2:
  case InstKind::Log:
  case InstKind::Log2:
  case InstKind::NativeCos:
  case InstKind::NativeSin:
  case InstKind::NativeExp:
  case InstKind::NativeExp2:
  case InstKind::NativeLog:
  case InstKind::NativeLog2:
    setValue(result,
             emitMath(kind, operandKind(0), getValue(inst.getOperand(0))));
    return success();
  default:
    return emitUnsupported(inst, "no SPIR-V lowering for this instruction");
  }
}
