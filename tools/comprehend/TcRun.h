//===- TcRun.h - Running a TC def on given or random inputs -----*- C++ -*-===//
//
// What `comprehend run FILE.tc` does between reading its flags and printing
// (the driver's own: the library API is api::TcKernel):
//
//  1. the size variables are bound from fixed sizes (--sizes) and from the
//     shapes of the given arrays (TC shape, row-major as TC reads it); a
//     disagreement or a size that stays unknown is an input error naming
//     the size;
//  2. (the caller compiles the def at those sizes: api::TcKernel)
//  3. the inputs are uploaded (given, else random), outputs and
//     temporaries poisoned with NaN bytes so that an element the kernel
//     never writes shows up in the check; an output that the def reads
//     before writing it (`+=` without `!`) takes an incoming value instead,
//     given or random, which the evaluator gets too;
//  4. the first launch produces the outputs (written to a directory as
//     DIR/NAME.npy in TC shape and, when checked, compared with
//     tc::evaluate on the same inputs); further launches are timed with
//     profiling events.
//
// Check tolerance on the relative error |got - want| / max(1, |want|):
// 1e-4 for float (single-precision kernels against the evaluator's double
// arithmetic), 1e-10 for double and 0 (exact) for integer tensors. A
// floating-point tolerance grows with the longest reduction of the def (n
// terms summed into one element) to 4 n u, u the unit roundoff (2^-24,
// 2^-53): the typical error of an n-term sum in any order grows like n u on
// random data with cancellation (a column sum of 4096 floats in [-1, 1]
// measured 1.2e-4), while a wrong kernel is off by O(1).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_TOOLS_TCRUN_H
#define COMPREHEND_TOOLS_TCRUN_H

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Npy.h"

namespace comprehend::tools {

/// The arrays given for a def's inputs (and for outputs that take an
/// incoming value), and the sizes bound by them and the fixed sizes.
struct TcArguments {
  struct GivenArray {
    std::string path;
    runtime::HostTensor tensor;
  };
  llvm::StringMap<GivenArray> arrays;
  /// Every size variable of the def.
  llvm::StringMap<int64_t> sizes;
};

/// Reads `args` (each `NAME=FILE.npy`, as --arg gives them) and binds every
/// size variable of `def` from `fixed` and the arrays' shapes; input errors
/// name the argument or the size.
llvm::Expected<TcArguments>
bindTcArguments(const tc::Def &def, const llvm::StringMap<int64_t> &fixed,
                llvm::ArrayRef<std::string> args);

struct TcRunOptions {
  /// Timed launches after the first.
  unsigned repeat = 1;
  /// Compare the outputs with the reference evaluator.
  bool check = false;
  /// Where to write the outputs as NAME.npy; empty: nowhere.
  std::string outDir;
};

struct TcRunResult {
  runtime::Timing timing;
  /// The files written.
  std::vector<std::string> written;
  /// With `check`: the largest relative error (infinite for an element
  /// left poisoned), the tensor where it is, the tolerance of the def's
  /// outputs and the evaluator's time.
  std::optional<double> maxError;
  std::string worstTensor;
  double tolerance = 0;
  double referenceMs = 0;
};

/// Runs `kernel`, compiled from `def` of `program` at `arguments.sizes`, on
/// the given arrays (random where none is given). Diagnostics of the
/// evaluator go to `diags`.
llvm::Expected<TcRunResult>
runTcKernel(api::TcKernel &kernel, const tc::Program &program,
            const tc::Def &def, const TcArguments &arguments,
            DiagnosticEngine &diags, const TcRunOptions &options);

} // namespace comprehend::tools

#endif // COMPREHEND_TOOLS_TCRUN_H
