//===- Function.h - A kernel of the tensor language -------------*- C++ -*-===//
#ifndef COMPREHEND_IR_FUNCTION_H
#define COMPREHEND_IR_FUNCTION_H

#include "comprehend/ir/Attributes.h"
#include "comprehend/ir/Region.h"

#include <array>
#include <optional>
#include <string>

namespace comprehend::ir {

class Context;
class Program;

/// `func @name(%a: type {attrs}, ...) attributes {...} { body }`.
/// The parameters are the parameters of the (collective) body region.
class Function {
public:
  Function(Context &ctx, llvm::StringRef name, Location loc = {});
  Function(const Function &) = delete;
  Function &operator=(const Function &) = delete;

  Context &getContext() const { return *ctx; }
  /// The name without `@`.
  llvm::StringRef getName() const { return name; }
  void setName(llvm::StringRef newName) { name = newName.str(); }
  Location getLoc() const { return loc; }
  Program *getParentProgram() const { return parent; }

  /// Appends a parameter with optional attributes (`alignment`, ...).
  Value *addParameter(const Type *type, llvm::StringRef name = {},
                      Location loc = {}, const DictionaryAttr *attrs = nullptr);
  llvm::ArrayRef<Value *> getParameters() const { return body.getParameters(); }
  unsigned getNumParameters() const { return body.getNumParameters(); }
  Value *getParameter(unsigned i) const { return body.getParameter(i); }
  /// The attribute dictionary of parameter \p i; null if none was given.
  const DictionaryAttr *getParameterAttrs(unsigned i) const {
    return paramAttrs[i];
  }
  void setParameterAttrs(unsigned i, const DictionaryAttr *attrs) {
    paramAttrs[i] = attrs;
  }

  /// The `attributes {...}` dictionary; null if none was given.
  const DictionaryAttr *getAttributes() const { return attrs; }
  void setAttributes(const DictionaryAttr *newAttrs) { attrs = newAttrs; }
  /// `subgroup_size`, if given as an integer.
  std::optional<int64_t> getSubgroupSize() const;
  /// `work_group_size`, if given as two integers.
  std::optional<std::array<int64_t, 2>> getWorkGroupSize() const;

  Region &getBody() { return body; }
  const Region &getBody() const { return body; }

private:
  friend class Program;
  Context *ctx;
  std::string name;
  Location loc;
  Program *parent = nullptr;
  const DictionaryAttr *attrs = nullptr;
  llvm::SmallVector<const DictionaryAttr *, 4> paramAttrs;
  Region body;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_FUNCTION_H
