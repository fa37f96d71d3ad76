//===- Verifier.h - Checks every rule of the tensor language ----*- C++ -*-===//
//
// The verifier reports every violation (not just the first) at the
// instruction or operand location, with a note at the definition of the
// value involved:
//
//   error: operand 'A' of 'gemm' must be a memref of order 2, but has type
//          memref<f32x4>
//   note: 'A' defined here
//
// It runs the constraint checks generated from Instructions.td and the
// hand-written hooks for the rules the table cannot express.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_VERIFIER_H
#define COMPREHEND_IR_VERIFIER_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Support.h"

namespace comprehend::ir {

class Function;
class Instruction;
class Program;

/// Verifies every function of \p program.
LogicalResult verify(const Program &program, DiagnosticEngine &diags);
/// Verifies \p function (types, attributes, nesting, every instruction).
LogicalResult verify(const Function &function, DiagnosticEngine &diags);
/// Verifies one instruction without its regions' contents.
LogicalResult verifyInstruction(const Instruction &inst,
                                DiagnosticEngine &diags);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_VERIFIER_H
