//===- Enums.h - Small enumerations of the tensor language ------*- C++ -*-===//
//
// Enumerations shared by types, instruction properties and regions, each with
// its textual spelling as written in the spec (`.t`, `.work_group`, `local`).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_ENUMS_H
#define COMPREHEND_IR_ENUMS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace comprehend::ir {

/// Address space of a memref (`global` is the default).
enum class AddressSpace : uint8_t { Global, Local };

/// Use of a cooperative matrix in a matrix multiplication.
enum class MatrixUse : uint8_t { A, B, Acc };

/// Whether an operand is transposed (`.n` is the default).
enum class Transpose : uint8_t { N, T };

/// Out-of-bounds checks of cooperative matrix loads and stores.
enum class CheckedFlag : uint8_t { None, Rows, Cols, Both };

/// Memory scope of atomic instructions (`.work_group` is the default).
enum class MemoryScope : uint8_t { CrossDevice, Device, WorkGroup, Subgroup };

/// Memory semantics of atomic instructions (`.relaxed` is the default).
enum class MemorySemantics : uint8_t {
  Relaxed,
  Acquire,
  Release,
  AcquireRelease,
  SequentiallyConsistent
};

/// Mode of a three-dimensional builtin (`.x`, `.y`, `.z`).
enum class Comp3 : uint8_t { X, Y, Z };

/// Direction of a cooperative matrix reduction.
enum class ReduceMode : uint8_t { Row, Column };

/// Kind of a region, and of the instructions allowed in it.
enum class RegionKind : uint8_t { Collective, Spmd, Mixed };

/// Category of an instruction: where it may appear.
enum class InstCategory : uint8_t { Collective, Spmd, Mixed };

/// Spellings as written in the IR text (address spaces and uses without a
/// leading dot, instruction modifiers with it).
llvm::StringRef stringify(AddressSpace value);
llvm::StringRef stringify(MatrixUse value);
llvm::StringRef stringify(Transpose value);
llvm::StringRef stringify(CheckedFlag value);
llvm::StringRef stringify(MemoryScope value);
llvm::StringRef stringify(MemorySemantics value);
llvm::StringRef stringify(Comp3 value);
llvm::StringRef stringify(ReduceMode value);
llvm::StringRef stringify(RegionKind value);
llvm::StringRef stringify(InstCategory value);

/// Inverse of stringify for the two spellings that appear inside types.
std::optional<AddressSpace> parseAddressSpace(llvm::StringRef spelling);
std::optional<MatrixUse> parseMatrixUse(llvm::StringRef spelling);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_ENUMS_H
