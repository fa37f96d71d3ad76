//===- CallPlacement.cpp - Worker threads or the calling thread -----------===//
#include "comprehend/runtime/CallPlacement.h"

#include <algorithm>

using namespace comprehend::runtime;

namespace {
/// The calls of a measurement, by their number: the workers' warm-up, the
/// workers' first measured call (which may end it: kMaxTrialMs), the calling
/// thread's warm-up, then the measured calls alternating between the calling
/// thread and the workers. Measuring again after a decision starts at the
/// workers' first measured call, and the calling thread's warm-up counts.
constexpr unsigned kWorkersWarmUp = 0;
constexpr unsigned kWorkersFirst = 1;
constexpr unsigned kCallerWarmUp = 2;
constexpr unsigned kFirstAlternating = 3;
constexpr unsigned kEnd =
    kFirstAlternating + 2 * CallPlacement::kTrialsPerPlace;

bool isCallerThreadCall(unsigned call) {
  return call == kCallerWarmUp ||
         (call >= kFirstAlternating && (call - kFirstAlternating) % 2 == 0);
}
} // namespace

void CallPlacement::setMode(Mode newMode) {
  mode = newMode;
  calls = 0;
  bestWorkersMs = bestCallerMs = std::numeric_limits<double>::infinity();
  decision.reset();
  remeasuring = false;
  callsSinceDecision = 0;
}

void CallPlacement::measureAgain() {
  calls = kWorkersFirst;
  bestWorkersMs = bestCallerMs = std::numeric_limits<double>::infinity();
  decision.reset();
  remeasuring = true;
  callsSinceDecision = 0;
}

bool CallPlacement::nextOnCallerThread() const {
  switch (mode) {
  case Mode::Workers:
    return false;
  case Mode::CallerThread:
    return true;
  case Mode::Measured:
    break;
  }
  return decision ? *decision : isCallerThreadCall(calls);
}

void CallPlacement::record(double wallMs) {
  if (mode != Mode::Measured)
    return;
  if (decision) {
    if (++callsSinceDecision >= kCallsBetweenMeasurements)
      measureAgain();
    return;
  }
  unsigned call = calls++;
  if (!remeasuring && (call == kWorkersWarmUp || call == kCallerWarmUp))
    return;
  bool callerThread = isCallerThreadCall(call);
  double &best = callerThread ? bestCallerMs : bestWorkersMs;
  best = std::min(best, wallMs);
  if (call == kWorkersFirst && wallMs >= kMaxTrialMs)
    decision = false;
  else if (calls >= kEnd)
    decision = bestCallerMs < bestWorkersMs;
}
