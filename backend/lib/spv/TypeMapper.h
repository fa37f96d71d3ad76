//===- TypeMapper.h - Tensor-language types as SPIR-V types -----*- C++ -*-===//
//
// How values of the tensor language live in SPIR-V for the OpenCL
// environment:
//  - integers (index = i64) as OpTypeInt, bool as OpTypeBool;
//  - f32/f64 as OpTypeFloat; f16 and bf16 are computed in f32 and converted
//    when loaded or stored (f16 through OpenCL.std vload_half/vstore_half,
//    bf16 as the upper half of an f32 bit pattern);
//  - complex numbers as 2-vectors of their component type;
//  - memref elements through CrossWorkgroup (global) or Workgroup (local)
//    pointers to the storage type.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_SPV_TYPEMAPPER_H
#define COMPREHEND_BACKEND_SPV_TYPEMAPPER_H

#include "spv/ModuleBuilder.h"

#include "comprehend/ir/Types.h"

namespace comprehend::backend::spv {

class TypeMapper {
public:
  explicit TypeMapper(ModuleBuilder &builder) : builder(builder) {}

  /// The type a value of \p kind has in registers.
  Id getValueType(ir::ScalarKind kind);
  /// The type an element of \p kind has in memory.
  Id getStorageType(ir::ScalarKind kind);
  /// The real component type of \p kind in registers (f32 for c32).
  Id getComponentValueType(ir::ScalarKind kind);
  Id getBoolType() { return builder.getBoolType(); }
  Id getIndexType() { return builder.getIntType(64); }
  Id getI32Type() { return builder.getIntType(32); }
  /// Pointer to an element of \p kind in \p space.
  Id getElementPointerType(ir::ScalarKind kind, ir::AddressSpace space);
  static ::spv::StorageClass getStorageClass(ir::AddressSpace space);

  /// Whether loads and stores of \p kind need a conversion.
  static bool isConvertedOnAccess(ir::ScalarKind kind) {
    return kind == ir::ScalarKind::F16 || kind == ir::ScalarKind::BF16;
  }

  /// Constant of \p kind (value type) from an integer / float / complex.
  Id getConstant(ir::ScalarKind kind, int64_t value);
  Id getConstant(ir::ScalarKind kind, double value);
  Id getConstant(ir::ScalarKind kind, double re, double im);

  ModuleBuilder &getBuilder() { return builder; }

private:
  ModuleBuilder &builder;
};

} // namespace comprehend::backend::spv

#endif // COMPREHEND_BACKEND_SPV_TYPEMAPPER_H
