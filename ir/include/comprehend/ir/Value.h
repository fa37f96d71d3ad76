//===- Value.h - SSA values -------------------------------------*- C++ -*-===//
//
// A Value is a result of an instruction or a parameter of a region (loop
// variables, function parameters). It keeps its users so passes can find and
// replace them.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_VALUE_H
#define COMPREHEND_IR_VALUE_H

#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace comprehend::ir {

class Instruction;
class Region;
class Type;

/// One use of a value: operand \p operandIndex of \p user.
struct Use {
  Instruction *user;
  unsigned operandIndex;
  bool operator==(const Use &other) const {
    return user == other.user && operandIndex == other.operandIndex;
  }
};

/// An SSA value. Owned by its defining instruction or region; not copyable.
class Value {
public:
  Value(const Type *type, Location loc = {}, llvm::StringRef name = {})
      : type(type), loc(loc), name(name.str()) {}
  Value(const Value &) = delete;
  Value &operator=(const Value &) = delete;

  const Type *getType() const { return type; }
  /// Changes the type; callers keep the IR valid.
  void setType(const Type *newType) { type = newType; }

  /// The name without `%`; empty for unnamed values.
  llvm::StringRef getName() const { return name; }
  void setName(llvm::StringRef newName) { name = newName.str(); }
  bool hasName() const { return !name.empty(); }

  /// The definition site (the `%x` of the assignment, or the parameter).
  Location getLoc() const { return loc; }
  void setLoc(Location newLoc) { loc = newLoc; }

  /// The instruction producing this value; null for region parameters
  /// (loop variables, function parameters).
  Instruction *getDefiningInstruction() const { return definingInst; }
  /// The index in the defining instruction's results.
  unsigned getResultIndex() const { return index; }
  /// The region declaring this value as a parameter; null for results.
  Region *getOwnerRegion() const { return ownerRegion; }
  /// The region in which the value is visible: the region of the defining
  /// instruction, or the owner region of a parameter.
  Region *getParentRegion() const;

  llvm::ArrayRef<Use> getUses() const { return uses; }
  bool hasUses() const { return !uses.empty(); }
  unsigned getNumUses() const { return uses.size(); }
  /// Makes every user of this value use \p other instead.
  void replaceAllUsesWith(Value *other);

private:
  friend class Instruction;
  friend class Region;
  void addUse(Use use) { uses.push_back(use); }
  void removeUse(Use use);

  const Type *type;
  Location loc;
  std::string name;
  Instruction *definingInst = nullptr;
  Region *ownerRegion = nullptr;
  unsigned index = 0;
  llvm::SmallVector<Use, 2> uses;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_VALUE_H
