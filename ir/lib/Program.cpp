//===- Program.cpp - A compilation unit -----------------------------------===//
#include "comprehend/ir/Program.h"

using namespace comprehend::ir;

Function &Program::addFunction(std::unique_ptr<Function> function) {
  function->parent = this;
  functions.push_back(std::move(function));
  return *functions.back();
}

Function *Program::lookupFunction(llvm::StringRef name) const {
  for (const std::unique_ptr<Function> &function : functions)
    if (function->getName() == name)
      return function.get();
  return nullptr;
}
