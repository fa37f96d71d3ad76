//===- CallPlacementTest.cpp - Worker threads or the calling thread -------===//
//
// runtime::CallPlacement on given wall times: which calls run where while
// it measures, what it keeps, and the fixed modes.
//
//===----------------------------------------------------------------------===//
#include "comprehend/runtime/CallPlacement.h"

#include "gtest/gtest.h"

#include <vector>

using namespace comprehend::runtime;

namespace {

/// Runs calls with wall times `callerMs` on the calling thread and
/// `workersMs` on the workers until the placement decides (at most 20);
/// where each call ran.
std::vector<bool> measure(CallPlacement &placement, double callerMs,
                          double workersMs) {
  std::vector<bool> places;
  while (!placement.getDecision() && places.size() < 20) {
    bool callerThread = placement.nextOnCallerThread();
    places.push_back(callerThread);
    placement.record(callerThread ? callerMs : workersMs);
  }
  return places;
}

/// `start`, then kTrialsPerPlace calls on the calling thread and on the
/// workers, alternated.
std::vector<bool> thenAlternating(std::vector<bool> start) {
  for (unsigned i = 0; i < CallPlacement::kTrialsPerPlace; ++i) {
    start.push_back(true);
    start.push_back(false);
  }
  return start;
}

TEST(CallPlacementTest, MeasuresBothPlacesAfterAWarmUpEach) {
  CallPlacement placement;
  std::vector<bool> places = measure(placement, 0.01, 0.04);
  // Workers: warm-up, first measured call; caller thread: warm-up; then
  // alternating, kTrialsPerPlace each.
  EXPECT_EQ(places, thenAlternating({false, false, true}));
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

TEST(CallPlacementTest, WarmUpCallsDoNotCount) {
  // A slow warm-up on either place (the first launch builds the kernel
  // there) does not decide anything.
  CallPlacement placement;
  placement.record(50.0); // workers' warm-up
  placement.record(0.05); // workers, measured
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

/// A decision is measured again after kCallsBetweenMeasurements calls,
/// without warm-ups, and follows the machine: here the workers were faster
/// at first, then the calling thread.
TEST(CallPlacementTest, MeasuresAgainAfterManyCalls) {
  CallPlacement placement;
  measure(placement, 0.3, 0.2);
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_FALSE(*placement.getDecision());
  for (unsigned i = 0; i + 1 < CallPlacement::kCallsBetweenMeasurements; ++i)
    placement.record(0.2);
  EXPECT_TRUE(placement.getDecision().has_value());
  placement.record(0.2);
  EXPECT_FALSE(placement.getDecision().has_value());
  // Workers' first measured call, then alternating from the calling
  // thread's former warm-up, which now counts.
  EXPECT_EQ(measure(placement, 0.01, 0.2), thenAlternating({false, true}));
  ASSERT_TRUE(placement.getDecision().has_value());
  EXPECT_TRUE(*placement.getDecision());
}

/// Setting a mode while measuring again starts a measurement afresh, its
/// warm-up calls not counted.
TEST(CallPlacementTest, SettingAModeForgetsAMeasurementAgain) {
  CallPlacement placement;
  measure(placement, 0.3, 0.2);
  for (unsigned i = 0; i < CallPlacement::kCallsBetweenMeasurements; ++i)
    placement.record(0.2);
  ASSERT_FALSE(placement.getDecision().has_value());
  placement.setMode(CallPlacement::Mode::Measured);
  // A fast warm-up on the workers would decide for them if it counted.
  placement.record(0.001);
  EXPECT_EQ(measure(placement, 0.01, 0.04), thenAlternating({false, true}));
  EXPECT_TRUE(*placement.getDecision());
}

} // namespace
