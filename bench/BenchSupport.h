//===- BenchSupport.h - Shared machinery of the kernel benchmarks -*- C++
//-*-===//
//
// The kernel benchmarks compare one TC def at one set of sizes (a "case")
// across variants: Comprehend with default parameters, Comprehend with the
// tuning cache's configuration, CLBlast on the same OpenCL device and
// OpenBLAS or a plain C++ loop on the host. Every variant is one Google
// Benchmark named `<kernel>/<shape>/<variant>` that
//
//  - prepares its inputs once (the case's random data, shared by all
//    variants of the case) outside the timed loop,
//  - checks its result once against the case's CPU reference and stops with
//    SkipWithError if it is wrong,
//  - reports every iteration's time as manual time (OpenCL profiling events
//    for device code, the wall clock for host code), and the counters `ms`
//    (median per-iteration milliseconds), `min_ms`, `GFLOP/s` and/or `GB/s`
//    (from the median), which bench/report.py turns into docs/benchmarks.md.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BENCH_BENCHSUPPORT_H
#define COMPREHEND_BENCH_BENCHSUPPORT_H

#include "comprehend/runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <benchmark/benchmark.h>
#include <clblast.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace comprehend::bench {

/// The inputs of a case (row-major, in TC's shapes) and the expected value of
/// its outputs (one after the other, in the order of TcCase::outputs),
/// computed once on the host.
struct CaseData {
  llvm::StringMap<std::vector<float>> inputs;
  /// Integer (int32) inputs, e.g. the indices of a gather; only the
  /// Comprehend variants and bench/pytorch_bench.py read them.
  llvm::StringMap<std::vector<int32_t>> indexInputs;
  std::vector<float> expected;

  const std::vector<float> &input(llvm::StringRef name) const {
    return inputs.find(name)->second;
  }
};

/// One TC def at one set of sizes.
struct TcCase {
  /// A case of def `entry` in `file` at `sizes`, checked on `outputs`; the
  /// shape label lists the sizes.
  TcCase(std::string kernel, std::string file, std::string entry,
         std::vector<std::pair<std::string, int64_t>> sizes,
         std::vector<std::string> outputs);

  /// Table row label: the kernel and its shape (`M=128,N=128,K=128`).
  std::string kernel;
  std::string shape;
  /// The .tc file (absolute path), its def and the sizes of its size
  /// variables, in the order `comprehend tune --sizes` gets them.
  std::string file;
  std::string entry;
  std::vector<std::pair<std::string, int64_t>> sizes;
  /// The def's outputs compared with `CaseData::expected` (which holds them
  /// one after the other, in this order).
  std::vector<std::string> outputs;
  /// Useful work per run: floating-point operations (compute-bound kernels)
  /// and/or compulsory bytes moved (memory-bound kernels); zero: not
  /// reported.
  double flops = 0;
  double bytes = 0;
  /// Largest accepted max|got - expected| / max|expected|.
  double tolerance = 1e-4;
  /// Fills the inputs and the expected output.
  std::function<void(CaseData &)> makeData;

  int64_t size(llvm::StringRef name) const;
  std::string getSizesArgument() const; ///< "M=128,N=128,K=128"
  std::string getName(llvm::StringRef variant) const;
};

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers the `default` and `tuned` Comprehend variants of `tcCase` and
/// remembers the case for `--list-tuning-jobs`.
void registerComprehend(const TcCase &tcCase);

/// A CLBlast routine on the case's device buffers: `buffers` holds the
/// inputs named in registerClblast's `inputs`, in that order, then the
/// output.
using ClblastRoutine = std::function<clblast::StatusCode(
    const TcCase &, llvm::ArrayRef<cl_mem> buffers, cl_command_queue *queue,
    cl_event *event)>;

/// Completes a baseline's first result before the check (e.g. adds a bias
/// the routine does not have).
using ResultFixup =
    std::function<void(const TcCase &, const CaseData &, std::vector<float> &)>;

/// Registers the `clblast` variant: `routine` on the runtime's device,
/// context and profiling queue, on device copies of the case inputs named in
/// `inputs` and an output that starts as a copy of input `initialOutput`
/// (for routines that update in place) or uninitialised (empty name). Each
/// run is timed from the end of a marker enqueued just before the call to
/// the end of the routine's last kernel, so routines that launch several
/// kernels (padding, transposes) are timed whole, including CLBlast's
/// host-side work between its launches.
void registerClblast(const TcCase &tcCase, std::vector<std::string> inputs,
                     ClblastRoutine routine, std::string initialOutput = "",
                     ResultFixup fixup = nullptr);

/// A host routine: computes the case's output into `result` (sized like the
/// expected output).
using HostRoutine = std::function<void(const TcCase &, const CaseData &,
                                       std::vector<float> &result)>;

/// Registers a host variant (`openblas`, `libxsmm`, `cpu`) timed by the wall
/// clock.
/// OpenBLAS runs with `openblasThreads` threads while it runs (0: leave
/// OpenBLAS's setting alone).
/// `label`, if given, is shown beside the result (e.g. which code path the
/// library took).
void registerHost(const TcCase &tcCase, llvm::StringRef variant,
                  HostRoutine routine, unsigned openblasThreads = 0,
                  std::string label = "");

/// Defined by each benchmark binary: registers its cases.
void registerSuite();

//===----------------------------------------------------------------------===//
// Environment
//===----------------------------------------------------------------------===//

/// The process-wide runtime on the default device (COMPREHEND_DEVICE picks
/// another), or null with the reason in `getRuntimeError()`.
runtime::Runtime *getRuntime();
const std::string &getRuntimeError();

/// The tuning cache of the `tuned` variant: $COMPREHEND_BENCH_TUNING_CACHE,
/// else bench/results/tuning.json in the source tree.
std::string getTuningCachePath();

/// Absolute path of examples/NAME and bench/kernels/NAME.
std::string getExamplePath(llvm::StringRef name);
std::string getBenchKernelPath(llvm::StringRef name);

/// Number of host threads of the CPU baselines (the number of cores).
unsigned getNumHostThreads();

/// Runs `body(begin, end)` on getNumHostThreads() threads over equal parts
/// of [0, n) and joins them.
void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &body);

/// Uniform random values in [-1, 1), reproducible from `seed`.
std::vector<float> makeRandom(size_t count, uint64_t seed);

/// The mean and the biased variance of `count` values, accumulated in
/// double (the references of row and group statistics).
std::pair<double, double> getMeanAndVariance(const float *values,
                                             int64_t count);

/// Uniform random integers in [0, bound), reproducible from `seed`.
std::vector<int32_t> makeRandomIndices(size_t count, int32_t bound,
                                       uint64_t seed);

} // namespace comprehend::bench

#endif // COMPREHEND_BENCH_BENCHSUPPORT_H
