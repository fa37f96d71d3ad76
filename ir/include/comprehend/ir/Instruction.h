//===- Instruction.h - One instruction of the tensor language ---*- C++ -*-===//
//
// Instruction is a single generic class (not a template): a kind, operands
// grouped into segments as the descriptor declares, results, regions and
// typed properties. Typed access goes through the generated views
// (Instructions.h): `GemmInst` wraps an `Instruction *` like MLIR's Op
// classes, and `llvm::isa/dyn_cast/cast<GemmInst>(Instruction *)` work
// through the CastInfo specialisation at the end of this file:
//
//   if (auto gemm = llvm::dyn_cast<GemmInst>(&inst))
//     use(gemm.getA(), gemm.getTransposeA());
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_INSTRUCTION_H
#define COMPREHEND_IR_INSTRUCTION_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/InstDescriptor.h"
#include "comprehend/ir/Value.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Casting.h"

#include <complex>
#include <memory>
#include <variant>

namespace comprehend::ir {

class DictionaryAttr;
class Region;
class Type;

/// The value of a `constant` instruction.
using ConstantValue = std::variant<bool, int64_t, double, std::complex<double>>;
/// Integer list properties (tile shapes, static subview offsets/sizes).
using IntegerList = llvm::SmallVector<int64_t, 4>;
/// A property value; the alternative follows the PropertyKind of the
/// descriptor (Flag: bool; Enum, Integer: int64_t; IntegerList; Constant;
/// Dictionary: const DictionaryAttr *, possibly null).
using Property = std::variant<std::monostate, bool, int64_t, IntegerList,
                              ConstantValue, const DictionaryAttr *>;

/// A generic instruction. Create it with create(), fill its operands and
/// results, and insert it into a Region, which then owns it.
class Instruction {
public:
  /// Creates an instruction of \p kind with default properties, no
  /// operands, no results and the regions of its descriptor (empty).
  static std::unique_ptr<Instruction> create(InstKind kind, Location loc);
  ~Instruction();
  Instruction(const Instruction &) = delete;
  Instruction &operator=(const Instruction &) = delete;

  InstKind getKind() const { return kind; }
  const InstDescriptor &getDescriptor() const {
    return ir::getDescriptor(kind);
  }
  bool hasTrait(InstTrait trait) const {
    return getDescriptor().hasTrait(trait);
  }
  /// The mnemonic (`gemm`).
  llvm::StringRef getName() const { return getDescriptor().mnemonic; }
  Location getLoc() const { return loc; }
  void setLoc(Location newLoc) { loc = newLoc; }

  //===--------------------------------------------------------------------===//
  // Operands
  //===--------------------------------------------------------------------===//

  llvm::ArrayRef<Value *> getOperands() const { return operands; }
  unsigned getNumOperands() const { return operands.size(); }
  Value *getOperand(unsigned i) const { return operands[i]; }
  /// Replaces operand \p i, keeping use lists up to date.
  void setOperand(unsigned i, Value *value);
  /// Replaces all operands; \p segmentSizes has one entry per operand group
  /// of the descriptor (1 or 0 for single/optional, any for variadic) and
  /// sums to operands.size().
  void setOperands(llvm::ArrayRef<Value *> newOperands,
                   llvm::ArrayRef<unsigned> segmentSizes);
  /// Number of values in each operand group of the descriptor.
  llvm::ArrayRef<unsigned> getOperandSegmentSizes() const {
    return segmentSizes;
  }
  /// The operands of group \p group (see InstDescriptor::operands).
  llvm::ArrayRef<Value *> getOperandGroup(unsigned group) const;
  /// Source range of operand \p i (where the parser saw it); the
  /// instruction's location when unknown.
  Location getOperandLoc(unsigned i) const;
  void setOperandLocs(llvm::ArrayRef<Location> locs);

  //===--------------------------------------------------------------------===//
  // Results
  //===--------------------------------------------------------------------===//

  llvm::ArrayRef<Value *> getResults() const { return resultPtrs; }
  unsigned getNumResults() const { return resultPtrs.size(); }
  Value *getResult(unsigned i) const { return resultPtrs[i]; }
  /// Appends a result of type \p type, defined at \p valueLoc.
  Value *addResult(const Type *type, Location valueLoc = {},
                   llvm::StringRef name = {});

  //===--------------------------------------------------------------------===//
  // Regions
  //===--------------------------------------------------------------------===//

  unsigned getNumRegions() const { return regions.size(); }
  Region &getRegion(unsigned i) const { return *regions[i]; }
  llvm::SmallVector<Region *, 2> getRegions() const;
  /// The region containing this instruction; null until inserted.
  Region *getParentRegion() const { return parent; }
  /// The instruction owning the parent region; null at function level.
  Instruction *getParentInstruction() const;

  //===--------------------------------------------------------------------===//
  // Properties (indexed as in InstDescriptor::properties)
  //===--------------------------------------------------------------------===//

  unsigned getNumProperties() const { return properties.size(); }
  const Property &getProperty(unsigned i) const { return properties[i]; }
  void setProperty(unsigned i, Property value);
  bool getFlag(unsigned i) const { return std::get<bool>(properties[i]); }
  int64_t getInteger(unsigned i) const {
    return std::get<int64_t>(properties[i]);
  }
  llvm::ArrayRef<int64_t> getIntegerList(unsigned i) const {
    return std::get<IntegerList>(properties[i]);
  }
  const ConstantValue &getConstant(unsigned i) const {
    return std::get<ConstantValue>(properties[i]);
  }
  const DictionaryAttr *getDictionary(unsigned i) const {
    return std::get<const DictionaryAttr *>(properties[i]);
  }

  /// Drops all operand uses (before erasing a group of instructions that
  /// use each other).
  void dropAllReferences();

private:
  friend class Region;
  Instruction(InstKind kind, Location loc);

  InstKind kind;
  Location loc;
  Region *parent = nullptr;
  llvm::SmallVector<Value *, 4> operands;
  llvm::SmallVector<unsigned, 4> segmentSizes;
  llvm::SmallVector<Location, 0> operandLocs;
  llvm::SmallVector<std::unique_ptr<Value>, 1> results;
  llvm::SmallVector<Value *, 1> resultPtrs;
  llvm::SmallVector<std::unique_ptr<Region>, 1> regions;
  llvm::SmallVector<Property, 2> properties;
};

/// Base of the generated views: a nullable `Instruction *` with typed
/// accessors in the derived class.
class InstView {
public:
  InstView() = default;
  explicit InstView(Instruction *inst) : inst(inst) {}
  Instruction *getInstruction() const { return inst; }
  Instruction *operator->() const { return inst; }
  Instruction &operator*() const { return *inst; }
  operator Instruction *() const { return inst; }
  explicit operator bool() const { return inst != nullptr; }
  Location getLoc() const { return inst->getLoc(); }

protected:
  Instruction *inst = nullptr;
};

} // namespace comprehend::ir

namespace llvm {
/// `isa/dyn_cast/cast<View>(Instruction *)` return views by value (null view
/// on failure), as MLIR does for its Op classes.
template <typename To>
struct CastInfo<
    To, comprehend::ir::Instruction *,
    std::enable_if_t<std::is_base_of_v<comprehend::ir::InstView, To>>>
    : public ValueFromPointerCast<To, comprehend::ir::Instruction,
                                  CastInfo<To, comprehend::ir::Instruction *>> {
  static bool isPossible(comprehend::ir::Instruction *inst) {
    return To::classof(inst);
  }
};
template <typename To>
struct CastInfo<
    To, const comprehend::ir::Instruction *,
    std::enable_if_t<std::is_base_of_v<comprehend::ir::InstView, To>>>
    : public ConstStrippingForwardingCast<
          To, const comprehend::ir::Instruction *,
          CastInfo<To, comprehend::ir::Instruction *>> {};
} // namespace llvm

#endif // COMPREHEND_IR_INSTRUCTION_H
