//===- CallPlacementTest.cpp - Worker threads or the calling thread -------===//
//
// runtime::CallPlacement on given wall times: which calls run where while
// it measures, which of them count, what it keeps, and the fixed modes.
//
//===----------------------------------------------------------------------===//
#include "comprehend/runtime/CallPlacement.h"

#include "gtest/gtest.h"

#include <vector>

using namespace comprehend::runtime;

namespace {

/// Wall times of a call by where it runs and whether it is the first of
/// its place after a switch (or the first call of all).
struct Times {
  double caller;
  double workers;
  double callerAfterSwitch;
  double workersAfterSwitch;
};

/// Runs calls with `times` until the placement decides (at most 20); where
/// each call ran.
std::vector<bool> measure(CallPlacement &placement, Times times) {
  std::vector<bool> places;
  while (!placement.getDecision() && places.size() < 20) {
    bool callerThread = placement.nextOnCallerThread();
    bool afterSwitch = places.empty() || places.back() != callerThread;
    places.push_back(callerThread);
    if (callerThread)
      placement.record(afterSwitch ? times.callerAfterSwitch : times.caller);
    else
      placement.record(afterSwitch ? times.workersAfterSwitch : times.workers);
  }
  return places;
}

std::vector<bool> measure(CallPlacement &placement, double callerMs,
                          double workersMs) {
  return measure(placement, {callerMs, workersMs, callerMs, workersMs});
}

/// kTrialsPerPlace pairs of calls on the workers and on the calling thread,
/// alternated, the workers first.
std::vector<bool> pairs() {
  std::vector<bool> places;
  for (unsigned i = 0; i < CallPlacement::kTrialsPerPlace; ++i)
    places.insert(places.end(), {false, false, true, true});
  return places;
}

TEST(CallPlacementTest, MeasuresBothPlacesInPairs) {
  CallPlacement placement;
  EXPECT_EQ(measure(placement, 0.01, 0.04), pairs());
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_TRUE(*placement.getDecision());
  EXPECT_TRUE(placement.nextOnCallerThread());
}

TEST(CallPlacementTest, KeepsTheWorkersWhenTheyAreFaster) {
  CallPlacement placement;
  measure(placement, 0.3, 0.2);
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_FALSE(*placement.getDecision());
  EXPECT_FALSE(placement.nextOnCallerThread());
}

/// The first call of each pair pays for the switch, and its time is not
/// the place's: counted, the fast switches onto the workers here would
/// keep them, and the slow switches onto the calling thread (its caches
/// cold) would lose it every pair.
TEST(CallPlacementTest, OnlyTheSecondCallOfAPairCounts) {
  CallPlacement placement;
  measure(placement, {/*caller=*/0.01, /*workers=*/0.05,
                      /*callerAfterSwitch=*/0.5,
                      /*workersAfterSwitch=*/0.001});
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_TRUE(*placement.getDecision());
}

TEST(CallPlacementTest, WarmUpCallsDoNotCount) {
  // A slow first launch on either place (it builds the kernel there) does
  // not decide anything.
  CallPlacement placement;
  placement.record(50.0); // workers' warm-up
  placement.record(0.05); // workers, counted
  EXPECT_FALSE(placement.getDecision().has_value());
  ASSERT_TRUE(placement.nextOnCallerThread());
  placement.record(80.0); // calling thread's warm-up
  while (!placement.getDecision())
    placement.record(placement.nextOnCallerThread() ? 0.01 : 0.05);
  EXPECT_TRUE(*placement.getDecision());
}

TEST(CallPlacementTest, LongCallsStayOnTheWorkersUnmeasured) {
  CallPlacement placement;
  std::vector<bool> places =
      measure(placement, 0.001, CallPlacement::kMaxTrialMs);
  EXPECT_EQ(places, (std::vector<bool>{false, false}));
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_FALSE(*placement.getDecision());
}

TEST(CallPlacementTest, FixedModesIgnoreTimesAndResetMeasuring) {
  CallPlacement placement;
  placement.setMode(CallPlacement::Mode::CallerThread);
  placement.record(100.0);
  EXPECT_TRUE(placement.nextOnCallerThread());
  EXPECT_FALSE(placement.getDecision().has_value());
  placement.setMode(CallPlacement::Mode::Workers);
  EXPECT_FALSE(placement.nextOnCallerThread());
  // Back to measuring: from the start.
  measure(placement, 0.01, 0.04);
  placement.setMode(CallPlacement::Mode::Measured);
  EXPECT_FALSE(placement.getDecision().has_value());
  EXPECT_FALSE(placement.nextOnCallerThread());
}

/// Calls in the place decided on until the placement measures again.
unsigned callsUntilMeasuring(CallPlacement &placement) {
  unsigned calls = 0;
  while (placement.getDecision() && calls <= 100000) {
    placement.record(placement.nextOnCallerThread() ? 0.01 : 0.2);
    ++calls;
  }
  return calls;
}

/// A decision is measured again, in pairs from the start, and follows the
/// machine: here the workers were faster at first, then the calling thread.
TEST(CallPlacementTest, MeasuresAgainAfterSomeCalls) {
  CallPlacement placement;
  measure(placement, 0.3, 0.2);
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_FALSE(*placement.getDecision());
  EXPECT_EQ(callsUntilMeasuring(placement),
            CallPlacement::kFirstCallsBetweenMeasurements);
  EXPECT_EQ(measure(placement, 0.01, 0.2), pairs());
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_TRUE(*placement.getDecision());
}

/// The first decision is kept for a few calls, each after it for
/// kGrowthBetweenMeasurements times as many, up to a bound.
TEST(CallPlacementTest, MeasuresLessOftenUpToABound) {
  CallPlacement placement;
  std::vector<unsigned> kept;
  for (unsigned i = 0; i < 6; ++i) {
    measure(placement, 0.01, 0.2);
    kept.push_back(callsUntilMeasuring(placement));
  }
  EXPECT_EQ(kept, (std::vector<unsigned>{16, 64, 256, 1024, 1024, 1024}));
  // A mode set starts the schedule afresh.
  placement.setMode(CallPlacement::Mode::Measured);
  measure(placement, 0.01, 0.2);
  EXPECT_EQ(callsUntilMeasuring(placement),
            CallPlacement::kFirstCallsBetweenMeasurements);
}

/// Setting a mode in the middle of a measurement starts it afresh.
TEST(CallPlacementTest, SettingAModeRestartsAMeasurement) {
  CallPlacement placement;
  measure(placement, 0.01, 0.04);
  callsUntilMeasuring(placement);
  placement.record(0.05);
  placement.record(0.05);
  placement.record(0.01);
  placement.setMode(CallPlacement::Mode::Measured);
  EXPECT_EQ(measure(placement, 0.01, 0.04), pairs());
  EXPECT_TRUE(*placement.getDecision());
}

} // namespace
