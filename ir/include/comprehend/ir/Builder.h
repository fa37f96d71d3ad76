//===- Builder.h - Creates IR in code ---------------------------*- C++ -*-===//
//
// The TC lowering and the backend passes create IR only through a Builder:
//
//   Builder b(ctx);
//   Function &f = b.createFunction(program, "kernel", {{"A", memrefTy}});
//   auto gid = b.create<GroupIdInst>(loc, Comp3::X);
//   b.create<GemmInst>(loc, alpha, a, bv, beta, c);
//
// create<View>(loc, args...) calls the generated View::build(ctx, loc,
// args...) (result types inferred where the table can) and inserts the
// instruction at the insertion point.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_BUILDER_H
#define COMPREHEND_IR_BUILDER_H

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Region.h"
#include "comprehend/ir/Types.h"

#include <utility>

namespace comprehend::ir {

/// A parameter for Builder::createFunction.
struct FunctionParam {
  llvm::StringRef name;
  const Type *type;
  const DictionaryAttr *attrs = nullptr;
};

class Builder {
public:
  explicit Builder(Context &ctx) : ctx(&ctx) {}
  /// Inserts at the end of \p region.
  Builder(Context &ctx, Region &region) : ctx(&ctx) {
    setInsertionPointToEnd(region);
  }

  Context &getContext() const { return *ctx; }

  //===--------------------------------------------------------------------===//
  // Insertion point
  //===--------------------------------------------------------------------===//

  void setInsertionPointToEnd(Region &newRegion) {
    region = &newRegion;
    point = newRegion.end();
  }
  void setInsertionPointToStart(Region &newRegion) {
    region = &newRegion;
    point = newRegion.begin();
  }
  /// Inserts before \p inst.
  void setInsertionPoint(Instruction *inst);
  /// Inserts after \p inst.
  void setInsertionPointAfter(Instruction *inst);
  Region *getInsertionRegion() const { return region; }
  Region::iterator getInsertionPoint() const { return point; }

  /// Inserts \p inst at the insertion point (which stays after it).
  Instruction *insert(std::unique_ptr<Instruction> inst);

  /// Builds a View with its generated build() and inserts it.
  template <class View, class... Args>
  View create(Location loc, Args &&...args) {
    return View(insert(View::build(*ctx, loc, std::forward<Args>(args)...)));
  }

  /// `kind %a, %b` with the type of \p a: the binary instructions a pass
  /// chooses at run time (a reduction's add, mul, max or min).
  Value *createBinary(Location loc, InstKind kind, Value *a, Value *b);
  /// A copy of the single-result, region-free \p inst (kind, properties,
  /// location) on \p operands, with result type \p resultType: the same
  /// operation on other values, e.g. on vector parts instead of scalars.
  Value *cloneWithOperands(const Instruction &inst,
                           llvm::ArrayRef<Value *> operands,
                           const Type *resultType);

  //===--------------------------------------------------------------------===//
  // Functions
  //===--------------------------------------------------------------------===//

  /// Appends a function with \p params to \p program and moves the
  /// insertion point to the end of its body.
  Function &createFunction(Program &program, llvm::StringRef name,
                           llvm::ArrayRef<FunctionParam> params,
                           Location loc = {});

  //===--------------------------------------------------------------------===//
  // Types and constants
  //===--------------------------------------------------------------------===//

  const BoolType *getBoolType() const { return BoolType::get(*ctx); }
  const ScalarType *getScalarType(ScalarKind kind) const {
    return ScalarType::get(*ctx, kind);
  }
  const ScalarType *getIndexType() const {
    return ScalarType::get(*ctx, ScalarKind::Index);
  }
  /// `constant <value> : <type>`; returns the result.
  Value *createConstant(Location loc, ConstantValue value, const Type *type);
  /// `constant <value> : index`.
  Value *createIndexConstant(Location loc, int64_t value);

private:
  Context *ctx;
  Region *region = nullptr;
  Region::iterator point;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_BUILDER_H
