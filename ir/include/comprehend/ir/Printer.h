//===- Printer.h - Writing tensor-language source ---------------*- C++ -*-===//
//
// Prints programs in the syntax the parser reads, so that printing, parsing
// and printing again gives the same text. Unnamed values are numbered %0,
// %1, ... in order of definition per function; named values keep their names,
// made unique per function with a `_N` suffix where needed. Compile-time
// variables of the preprocessor are resolved and never printed.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_PRINTER_H
#define COMPREHEND_IR_PRINTER_H

#include "llvm/Support/raw_ostream.h"

namespace comprehend::ir {

class Function;
class Instruction;
class Program;

/// Prints every function of \p program, separated by blank lines.
void print(const Program &program, llvm::raw_ostream &os);
/// Prints \p function.
void print(const Function &function, llvm::raw_ostream &os);
/// Prints \p inst (with its regions) at \p indent spaces, naming values as
/// if its function were printed (for debugging and diagnostics).
void print(const Instruction &inst, llvm::raw_ostream &os, unsigned indent = 0);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_PRINTER_H
