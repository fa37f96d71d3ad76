//===- Region.h - An ordered list of instructions ---------------*- C++ -*-===//
//
// A region owns its instructions and its parameters (loop variables, tile
// offsets and sizes, function parameters). Its kind says which instructions
// may appear in it: collective, SPMD or mixed.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_REGION_H
#define COMPREHEND_IR_REGION_H

#include "comprehend/ir/Enums.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Value.h"

#include "llvm/ADT/iterator.h"
#include "llvm/ADT/iterator_range.h"

#include <list>
#include <memory>

namespace comprehend::ir {

class Function;

/// Iterates over the instructions of a region as `Instruction &`.
template <typename WrappedT, typename T>
class InstIterator
    : public llvm::iterator_adaptor_base<InstIterator<WrappedT, T>, WrappedT,
                                         std::bidirectional_iterator_tag, T> {
public:
  InstIterator() = default;
  explicit InstIterator(WrappedT it)
      : InstIterator::iterator_adaptor_base(std::move(it)) {}
  T &operator*() const { return **this->I; }
  /// The underlying list iterator.
  const WrappedT &getUnderlying() const { return this->I; }
};

class Region {
public:
  using InstList = std::list<std::unique_ptr<Instruction>>;
  using iterator = InstIterator<InstList::iterator, Instruction>;
  using const_iterator =
      InstIterator<InstList::const_iterator, const Instruction>;

  explicit Region(RegionKind kind, Instruction *parent = nullptr)
      : kind(kind), parentInst(parent) {}
  ~Region();
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;

  RegionKind getKind() const { return kind; }
  void setKind(RegionKind newKind) { kind = newKind; }

  /// The instruction owning this region; null for a function body.
  Instruction *getParentInstruction() const { return parentInst; }
  /// The function whose body this is; null for nested regions.
  Function *getParentFunction() const { return parentFunc; }
  /// The function containing this region, at any depth; null if detached.
  Function *getEnclosingFunction() const;

  //===--------------------------------------------------------------------===//
  // Parameters
  //===--------------------------------------------------------------------===//

  Value *addParameter(const Type *type, Location loc = {},
                      llvm::StringRef name = {});
  llvm::ArrayRef<Value *> getParameters() const { return paramPtrs; }
  unsigned getNumParameters() const { return paramPtrs.size(); }
  Value *getParameter(unsigned i) const { return paramPtrs[i]; }

  //===--------------------------------------------------------------------===//
  // Instructions
  //===--------------------------------------------------------------------===//

  iterator begin() { return iterator(insts.begin()); }
  iterator end() { return iterator(insts.end()); }
  const_iterator begin() const { return const_iterator(insts.begin()); }
  const_iterator end() const { return const_iterator(insts.end()); }
  bool empty() const { return insts.empty(); }
  size_t size() const { return insts.size(); }
  Instruction &front() { return *insts.front(); }
  Instruction &back() { return *insts.back(); }
  const Instruction &back() const { return *insts.back(); }

  /// Inserts \p inst before \p pos and returns it.
  Instruction *insert(iterator pos, std::unique_ptr<Instruction> inst);
  Instruction *push_back(std::unique_ptr<Instruction> inst);
  /// The position of \p inst, which must be in this region.
  iterator getIterator(const Instruction *inst);
  /// Unlinks \p inst and hands it to the caller.
  std::unique_ptr<Instruction> remove(Instruction *inst);
  /// Erases \p inst; its results must have no uses.
  void erase(Instruction *inst);

private:
  friend class Function;
  RegionKind kind;
  Instruction *parentInst;
  Function *parentFunc = nullptr;
  llvm::SmallVector<std::unique_ptr<Value>, 2> params;
  llvm::SmallVector<Value *, 2> paramPtrs;
  InstList insts;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_REGION_H
