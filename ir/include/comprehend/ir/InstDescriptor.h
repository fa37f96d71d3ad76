//===- InstDescriptor.h - Generated description of instructions -*- C++ -*-===//
//
// The instruction table (Instructions.td) is compiled by comprehend-tblgen
// into an InstKind enumerator per instruction and one InstDescriptor each.
// The parser, printer and verifier are driven by the descriptors: operand
// groups, properties with their modifier spellings, regions and the format.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_INSTDESCRIPTOR_H
#define COMPREHEND_IR_INSTDESCRIPTOR_H

#include "comprehend/ir/Enums.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace comprehend::ir {

/// One enumerator per instruction, in table order (`InstKind::Gemm`).
enum class InstKind : uint16_t {
#define COMPREHEND_INST(Name, Mnemonic) Name,
#include "comprehend/ir/InstKinds.inc"
};

/// Number of InstKind enumerators.
inline constexpr unsigned kNumInstKinds = 0
#define COMPREHEND_INST(Name, Mnemonic) +1
#include "comprehend/ir/InstKinds.inc"
    ;

/// One enumerator per Trait def of InstBase.td (`InstTrait::Blas`): facts
/// passes ask with Instruction::hasTrait instead of listing kinds.
enum class InstTrait : uint8_t {
#define COMPREHEND_TRAIT(Name, Doc) Name,
#include "comprehend/ir/InstTraits.inc"
};

/// The bit of \p trait in InstDescriptor::traits.
constexpr uint64_t traitBit(InstTrait trait) {
  return uint64_t(1) << static_cast<unsigned>(trait);
}

/// What an instruction does to the elements of a memref operand.
enum class MemoryEffect : uint8_t {
  None = 0,
  Read = 1,
  Write = 2,
  ReadWrite = Read | Write
};
constexpr bool reads(MemoryEffect effect) {
  return static_cast<unsigned>(effect) &
         static_cast<unsigned>(MemoryEffect::Read);
}
constexpr bool writes(MemoryEffect effect) {
  return static_cast<unsigned>(effect) &
         static_cast<unsigned>(MemoryEffect::Write);
}

/// How many values an operand or result group holds.
enum class Arity : uint8_t { Single, Optional, Variadic };

/// Kind of a property (a compile-time value stored in the instruction).
enum class PropertyKind : uint8_t {
  Flag,        ///< bool; printed as its modifier (`.atomic`) when set
  Enum,        ///< int64 enumerator; printed as its spelling when not default
  Integer,     ///< int64
  IntegerList, ///< SmallVector<int64_t>; kDynamic marks a dynamic entry
  Constant,    ///< ConstantValue (bool / int64 / double / complex<double>)
  Dictionary   ///< const DictionaryAttr * (may be null)
};

struct OperandDescriptor {
  llvm::StringRef name;
  Arity arity;
  /// Human-readable constraint ("memref of order 2"), for docs.
  llvm::StringRef constraint;
  /// Operands: the instruction's access to the memref's elements (`reads`
  /// and `writes` of the table; None for a group operand's memrefs).
  MemoryEffect effect = MemoryEffect::None;
  /// Operands: a memref result refers to this operand's memory (a view, or
  /// a memref loaded from a group).
  bool viewSource = false;
};

struct PropertyDescriptor {
  llvm::StringRef name;
  PropertyKind kind;
  /// The default (flags: 0/1, enums: enumerator value, integers).
  int64_t defaultValue;
  /// Flags: the modifier (`.atomic`); enums: the spelling of each
  /// enumerator in order (`.n`, `.t`); empty otherwise.
  llvm::ArrayRef<llvm::StringRef> spellings;
  /// Enums whose spelling is always written (`group_id.x`).
  bool alwaysPrint;
};

struct RegionDescriptor {
  llvm::StringRef name;
  RegionKind kind;
  /// Whether the region may be absent in the text (`else`).
  bool optional;
};

/// Everything the table says about one instruction.
struct InstDescriptor {
  InstKind kind;
  llvm::StringRef mnemonic;
  llvm::StringRef cppName;
  InstCategory category;
  llvm::StringRef summary;
  llvm::ArrayRef<OperandDescriptor> operands;
  llvm::ArrayRef<OperandDescriptor> results;
  llvm::ArrayRef<PropertyDescriptor> properties;
  llvm::ArrayRef<RegionDescriptor> regions;
  /// The format string (its directives: ir/lib/AsmFormat.h).
  llvm::StringRef format;
  bool isPure;
  bool isTerminator;
  /// traitBit() of each trait of the instruction.
  uint64_t traits;
  /// Reductions, scans and atomic updates: the binary instruction that
  /// combines two values (Add, Max, Min).
  std::optional<InstKind> combine;

  bool hasTrait(InstTrait trait) const { return traits & traitBit(trait); }
  /// Whether some operand's memory is read or written.
  bool hasMemoryEffects() const {
    for (const OperandDescriptor &operand : operands)
      if (operand.effect != MemoryEffect::None)
        return true;
    return false;
  }

  /// Index of the property named \p name, if any.
  std::optional<unsigned> findProperty(llvm::StringRef name) const;
  /// Index of the operand group named \p name, if any.
  std::optional<unsigned> findOperand(llvm::StringRef name) const;
};

/// The descriptor of \p kind.
const InstDescriptor &getDescriptor(InstKind kind);
/// The InstKind spelled \p mnemonic (`gemm`, `cooperative_matrix_load`).
std::optional<InstKind> lookupMnemonic(llvm::StringRef mnemonic);
/// The mnemonic of \p kind.
llvm::StringRef getMnemonic(InstKind kind);
/// Whether instructions of \p kind have \p trait.
bool hasTrait(InstKind kind, InstTrait trait);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_INSTDESCRIPTOR_H
