//===- CallPlacement.h - Worker threads or the calling thread ---*- C++ -*-===//
//
// On a CPU device with a caller-thread queue (Platform::hasCallerThreadQueue:
// PoCL's `basic` device beside `pthread`), a call can run its kernels on the
// device's worker threads, which costs a hand-off to them and back (26-65 us
// per call on a 2-core machine), or on the thread that makes the call, on
// one core, for about 1 us. Which is faster depends on the kernels, the
// cores and the machine's load, so each compiled call measures both and
// keeps the faster: a few calls on each, alternated, after one warm-up call
// on each (the first launch on a device builds the kernel for it). Calls
// that take the workers longer than kMaxTrialMs stay there unmeasured: the
// hand-off is a small part of them, and one core would lose far more. The
// machine's load changes, and three calls on a shared machine can all meet
// a busy core, so every kCallsBetweenMeasurements calls both places are
// measured again (their warm-ups long past). The results are the same
// either way: the same kernels, the same work-groups.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_CALLPLACEMENT_H
#define COMPREHEND_RUNTIME_CALLPLACEMENT_H

#include <limits>
#include <optional>

namespace comprehend::runtime {

class CallPlacement {
public:
  enum class Mode {
    /// Measure both places, then keep the faster.
    Measured,
    /// Always the device's worker threads.
    Workers,
    /// Always the calling thread.
    CallerThread,
  };

  /// Calls on the workers from this wall time on are not measured against
  /// the calling thread.
  static constexpr double kMaxTrialMs = 1.0;
  /// Measured calls in each place, after its warm-up call.
  static constexpr unsigned kTrialsPerPlace = 3;
  /// Calls in the place kept before both are measured again (without
  /// warm-ups): a decision taken while something else held a core is not
  /// kept for good, at the price of a few calls in the slower place.
  static constexpr unsigned kCallsBetweenMeasurements = 1024;

  void setMode(Mode newMode);
  Mode getMode() const { return mode; }

  /// Whether the next call runs on the calling thread.
  bool nextOnCallerThread() const;
  /// Records the wall time of the call that ran where nextOnCallerThread()
  /// said.
  void record(double wallMs);
  /// The place kept once measured (nullopt while measuring): true for the
  /// calling thread.
  std::optional<bool> getDecision() const { return decision; }

private:
  /// Starts measuring both places again, their warm-up calls past.
  void measureAgain();

  Mode mode = Mode::Measured;
  /// Calls recorded so far while measuring.
  unsigned calls = 0;
  /// Whether this measurement follows a decision: both places are warm.
  bool remeasuring = false;
  /// Calls since the last decision.
  unsigned callsSinceDecision = 0;
  double bestWorkersMs = std::numeric_limits<double>::infinity();
  double bestCallerMs = std::numeric_limits<double>::infinity();
  std::optional<bool> decision;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_CALLPLACEMENT_H
