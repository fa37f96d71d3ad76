//===- Clone.h - Deep copies of functions and programs ----------*- C++ -*-===//
//
// A copy shares the context (types and attributes are uniqued there) and has
// its own instructions and values: passes may rewrite it while the original
// stays as it was, e.g. a tuner compiling one candidate configuration after
// another from one parsed program.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_CLONE_H
#define COMPREHEND_IR_CLONE_H

#include <memory>

namespace comprehend::ir {

class Function;
class Program;

/// A copy of \p function, not yet in a program.
std::unique_ptr<Function> clone(const Function &function);

/// Appends a copy of every function of \p from to \p to (in the same
/// context).
void cloneInto(const Program &from, Program &to);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_CLONE_H
