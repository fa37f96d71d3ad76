//===- VerifyContext.h - Diagnostics helpers of the verifier ----*- C++ -*-===//
//
// Shared by the generated constraint checks (InstVerify.cpp.inc) and the
// hand-written hooks (Verify*.cpp). Every error marks the context failed;
// errors about an operand point at the operand and carry a note at the
// definition of its value.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_IR_LIB_VERIFYCONTEXT_H
#define COMPREHEND_IR_LIB_VERIFYCONTEXT_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Instruction.h"
#include "comprehend/ir/Types.h"

#include <optional>
#include <string>
#include <utility>

namespace comprehend::ir {

class Function;

/// A captured scalar kind and where it came from (for messages).
struct KindVar {
  std::optional<ScalarKind> kind;
  const Value *value = nullptr;
  Location loc;
  std::string what; // "element type of operand 'A'"
};

class VerifyContext {
public:
  VerifyContext(DiagnosticEngine &diags, const Function *function)
      : diags(diags), function(function) {}

  bool failed() const { return numErrors != 0; }
  /// The function being verified (subgroup size, ...); may be null.
  const Function *getFunction() const { return function; }
  /// The function's `subgroup_size`, if given.
  std::optional<int64_t> getSubgroupSize() const;

  /// An error at \p loc.
  InFlightDiagnostic emitError(Location loc);
  /// An error at operand \p i of \p inst with a note at its definition.
  InFlightDiagnostic emitOperandError(const Instruction &inst, unsigned i);
  /// Attaches "'x' defined here" at the definition of \p value.
  static void noteDefinition(InFlightDiagnostic &diag, const Value *value,
                             llvm::StringRef fallbackName);

  /// "'A'" for operand \p i (the name of its operand group).
  std::string operandName(const Instruction &inst, unsigned i) const;
  /// Flat operand indices [first, second) of operand group \p group.
  std::pair<unsigned, unsigned> operandRange(const Instruction &inst,
                                             unsigned group) const;
  std::pair<unsigned, unsigned> resultRange(const Instruction &inst) const {
    return {0, inst.getNumResults()};
  }

  // Messages of the generated checks.
  void operandTypeError(const Instruction &inst, unsigned i,
                        llvm::StringRef expected);
  void operandMismatch(const Instruction &inst, unsigned i,
                       llvm::StringRef what, const Type *expected);
  void resultTypeError(const Instruction &inst, unsigned i,
                       llvm::StringRef expected);
  void resultMismatch(const Instruction &inst, unsigned i, llvm::StringRef what,
                      const Type *expected);
  void countMismatch(const Instruction &inst, bool isResult,
                     llvm::StringRef name, unsigned count,
                     llvm::StringRef refName, unsigned refCount);
  bool capture(const Instruction &inst, KindVar &var, ScalarKind kind,
               const Value *value, Location loc, llvm::StringRef what);
  /// promote(a, b); reports and returns a variable without kind if there is
  /// none. The relations below are false (and silent) for such variables.
  KindVar promote(const Instruction &inst, const KindVar &a, const KindVar &b);
  bool promotable(const Instruction &inst, const KindVar &a, const KindVar &b);
  bool castAllowed(const Instruction &inst, const KindVar &a, const KindVar &b);
  bool kindIn(const Instruction &inst, const KindVar &a,
              llvm::StringRef typeClass);

private:
  InFlightDiagnostic emitAt(const Instruction &inst, const KindVar &var);

  DiagnosticEngine &diags;
  const Function *function;
  /// The last failed promotion, so a promote() shared by several relations
  /// of one instruction is reported once.
  const Instruction *lastPromoteInst = nullptr;
  std::string lastPromoteWhat;
  unsigned numErrors = 0;
};

/// "'x'" for a named value, else \p fallback quoted.
std::string quoteValueName(const Value *value, llvm::StringRef fallback);

} // namespace comprehend::ir

#endif // COMPREHEND_IR_LIB_VERIFYCONTEXT_H
