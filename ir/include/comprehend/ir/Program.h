//===- Program.h - A compilation unit ---------------------------*- C++ -*-===//
#ifndef COMPREHEND_IR_PROGRAM_H
#define COMPREHEND_IR_PROGRAM_H

#include "comprehend/ir/Function.h"

#include "llvm/ADT/iterator.h"

#include <memory>
#include <vector>

namespace comprehend::ir {

class Context;

/// The functions of one source file, in order, and their Context.
class Program {
public:
  using FunctionList = std::vector<std::unique_ptr<Function>>;
  using iterator = llvm::pointee_iterator<FunctionList::iterator>;
  using const_iterator = llvm::pointee_iterator<FunctionList::const_iterator>;

  explicit Program(Context &ctx) : ctx(&ctx) {}
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  Context &getContext() const { return *ctx; }

  /// Appends \p function and returns it.
  Function &addFunction(std::unique_ptr<Function> function);
  /// The function named \p name (without `@`), or null.
  Function *lookupFunction(llvm::StringRef name) const;

  iterator begin() { return iterator(functions.begin()); }
  iterator end() { return iterator(functions.end()); }
  const_iterator begin() const { return const_iterator(functions.begin()); }
  const_iterator end() const { return const_iterator(functions.end()); }
  size_t size() const { return functions.size(); }
  bool empty() const { return functions.empty(); }

private:
  Context *ctx;
  FunctionList functions;
};

} // namespace comprehend::ir

#endif // COMPREHEND_IR_PROGRAM_H
