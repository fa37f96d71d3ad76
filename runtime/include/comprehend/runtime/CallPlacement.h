//===- CallPlacement.h - Worker threads or the calling thread ---*- C++ -*-===//
//
// On a CPU device with a caller-thread queue (Platform::hasCallerThreadQueue:
// PoCL's `basic` device beside `pthread`), a call can run its kernels on the
// device's worker threads, which costs a hand-off to them and back (26-65 us
// per call on a 2-core machine), or on the thread that makes the call, on
// one core, for about 1 us. Which is faster depends on the kernels, the
// cores and the machine's load, so each compiled call measures both and
// keeps the faster. It measures in pairs: two calls in one place, of which
// only the second counts, then two in the other. The first call of a pair
// pays for the switch (the first launch on a device builds the kernel for
// it; a call on the calling thread right after one on the workers meets
// caches and a core they left cold) and says nothing about the place kept.
// Calls that take the workers longer than kMaxTrialMs stay there
// unmeasured: the hand-off is a small part of them, and one core would lose
// far more. A few calls on a shared machine can all meet a busy core, and
// the first ones meet a cold process (the calling thread's heap grows for
// PoCL's work-group buffers over its first calls), so a decision is
// measured again: kFirstCallsBetweenMeasurements calls after the first,
// then kGrowthBetweenMeasurements times as many calls after each, up to
// kMaxCallsBetweenMeasurements calls from then on. The results are the same
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
  /// Pairs of calls in each place per measurement; the second call of
  /// each pair counts.
  static constexpr unsigned kTrialsPerPlace = 3;
  /// Calls in the place kept before both are measured again, after the
  /// first decision: a decision taken while something else held a core,
  /// or while the process was cold, is not kept for good, at the price of
  /// a few calls in the slower place.
  static constexpr unsigned kFirstCallsBetweenMeasurements = 16;
  /// How many times more calls each decision after that is kept.
  static constexpr unsigned kGrowthBetweenMeasurements = 4;
  /// The most calls a decision is kept for: the machine's load changes.
  static constexpr unsigned kMaxCallsBetweenMeasurements = 1024;

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
  /// Starts measuring both places again.
  void measureAgain();

  Mode mode = Mode::Measured;
  /// Calls recorded so far while measuring.
  unsigned calls = 0;
  /// Calls since the last decision.
  unsigned callsSinceDecision = 0;
  /// Calls the current decision is kept for.
  unsigned callsBetweenMeasurements = kFirstCallsBetweenMeasurements;
  double bestWorkersMs = std::numeric_limits<double>::infinity();
  double bestCallerMs = std::numeric_limits<double>::infinity();
  std::optional<bool> decision;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_CALLPLACEMENT_H
