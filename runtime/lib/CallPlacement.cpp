//===- CallPlacement.cpp - Worker threads or the calling thread -----------===//
#include "comprehend/runtime/CallPlacement.h"

#include <algorithm>

using namespace comprehend::runtime;

namespace {
/// The calls of a measurement, by their number: pairs of calls, the
/// workers' first (which may end the measurement: kMaxTrialMs), then the
/// calling thread's, and so on; the second call of each pair counts.
constexpr unsigned kCallsPerPair = 2;
constexpr unsigned kWorkersFirstCounted = 1;
constexpr unsigned kEnd = 2 * kCallsPerPair * CallPlacement::kTrialsPerPlace;

bool isCallerThreadCall(unsigned call) {
  return (call / kCallsPerPair) % 2 == 1;
}

bool counts(unsigned call) { return call % kCallsPerPair == kCallsPerPair - 1; }
} // namespace

void CallPlacement::setMode(Mode newMode) {
  mode = newMode;
  measureAgain();
  callsBetweenMeasurements = kFirstCallsBetweenMeasurements;
}

void CallPlacement::measureAgain() {
  calls = 0;
  bestWorkersMs = bestCallerMs = std::numeric_limits<double>::infinity();
  decision.reset();
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
    if (++callsSinceDecision < callsBetweenMeasurements)
      return;
    measureAgain();
    callsBetweenMeasurements =
        std::min(callsBetweenMeasurements * kGrowthBetweenMeasurements,
                 kMaxCallsBetweenMeasurements);
    return;
  }
  unsigned call = calls++;
  if (!counts(call))
    return;
  double &best = isCallerThreadCall(call) ? bestCallerMs : bestWorkersMs;
  best = std::min(best, wallMs);
  if (call == kWorkersFirstCounted && wallMs >= kMaxTrialMs)
    decision = false;
  else if (calls >= kEnd)
    decision = bestCallerMs < bestWorkersMs;
}
