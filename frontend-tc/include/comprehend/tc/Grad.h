//===- Grad.h - Reverse-mode differentiation of a TC def --------*- C++ -*-===//
//
// Derives the backward def of a def at the TC level: TC text that the rest
// of the pipeline (check, ranges, compile, run, tune) takes like any other
// def. The rules, the tie rule of max=!/min=! and what gets no gradient are
// in docs/autodiff.md.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TC_GRAD_H
#define COMPREHEND_TC_GRAD_H

#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace comprehend::tc {

struct GradOptions {
  /// Inputs to differentiate, by name; empty: every floating-point input.
  std::vector<std::string> wrt;
};

/// The derived backward def of `entry`.
struct BackwardDef {
  std::string name;   ///< "<entry>_grad"
  std::string source; ///< TC text: the backward def (and any def it calls)
  /// Its parameters in order: the forward's inputs, then the forward's
  /// outputs, then d_<O> for each forward output O.
  std::vector<std::string> inputs;
  /// d_<I> for each differentiated input I, in the forward's parameter order.
  std::vector<std::string> outputs;
};

/// Parses `source`, differentiates def `entry` (empty: the last def) and
/// returns the backward def. Located diagnostics go to `diags` (when
/// `source` is a buffer of the engine's SourceMgr they point into it; else
/// a copy is added); failure -> llvm::Error (input error).
llvm::Expected<BackwardDef> deriveBackward(llvm::StringRef source,
                                           llvm::StringRef entry,
                                           const GradOptions &options,
                                           DiagnosticEngine &diags);

} // namespace comprehend::tc

#endif // COMPREHEND_TC_GRAD_H
