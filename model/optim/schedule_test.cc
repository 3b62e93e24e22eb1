#include "model/optim/schedule.h"

#include <cstdint>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// The paper's pre-training schedule: lr 1e-4, 10k warmup steps, 1M steps.
LearningRateSchedule PaperSchedule() {
  LearningRateSchedule schedule;
  schedule.base_learning_rate = 1e-4;
  schedule.warmup_steps = 10000;
  schedule.total_steps = 1000000;
  return schedule;
}

// Relative to the rates involved (1e-4): a few double roundings.
constexpr double kTolerance = 1e-18;

TEST(ScheduleTest, PaperScheduleAtHandComputedSteps) {
  const LearningRateSchedule schedule = PaperSchedule();
  // Warmup: base * step / warmup.
  EXPECT_EQ(LearningRateAt(schedule, 0), 0.0);
  EXPECT_NEAR(LearningRateAt(schedule, 1), 1e-8, kTolerance);
  EXPECT_NEAR(LearningRateAt(schedule, 5000), 5e-5, kTolerance);
  EXPECT_NEAR(LearningRateAt(schedule, 9999), 9.999e-5, kTolerance);
  // End of warmup: the decay is measured from step 0, so the rate is
  // base * (1 - 10000 / 1e6) = 9.9e-5, not base.
  EXPECT_NEAR(LearningRateAt(schedule, 10000), 9.9e-5, kTolerance);
  // Middle: base * (1 - 0.5).
  EXPECT_NEAR(LearningRateAt(schedule, 500000), 5e-5, kTolerance);
  // Last step taken (k = total - 1): base / total.
  EXPECT_NEAR(LearningRateAt(schedule, 999999), 1e-10, kTolerance);
  // From total_steps on: 0 (polynomial_decay clamps the step).
  EXPECT_EQ(LearningRateAt(schedule, 1000000), 0.0);
  EXPECT_EQ(LearningRateAt(schedule, 2000000), 0.0);
}

TEST(ScheduleTest, NotMeasuredFromTheEndOfWarmup) {
  LearningRateSchedule schedule;
  schedule.base_learning_rate = 1.0;
  schedule.warmup_steps = 4;
  schedule.total_steps = 10;
  // HF's linear schedule would give 1.0 at step 4 and 0.5 at step 7.
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 3), 0.75);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 4), 0.6);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 7), 0.3);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 9), 0.1);
}

TEST(ScheduleTest, NoWarmupStartsAtTheBaseRate) {
  LearningRateSchedule schedule;
  schedule.base_learning_rate = 2e-5;
  schedule.warmup_steps = 0;
  schedule.total_steps = 4;
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 0), 2e-5);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 2), 1e-5);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 4), 0.0);
}

TEST(ScheduleTest, WarmupOverTheWholeRun) {
  LearningRateSchedule schedule;
  schedule.base_learning_rate = 1.0;
  schedule.warmup_steps = 4;
  schedule.total_steps = 4;
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 3), 0.75);
  EXPECT_DOUBLE_EQ(LearningRateAt(schedule, 4), 0.0);
}

TEST(ScheduleTest, ValidationNamesTheField) {
  EXPECT_TRUE(ValidateSchedule(PaperSchedule()).ok());
  LearningRateSchedule schedule = PaperSchedule();
  schedule.base_learning_rate = 0;
  EXPECT_THAT(ValidateSchedule(schedule).message(),
              HasSubstr("base_learning_rate"));
  schedule = PaperSchedule();
  schedule.total_steps = 0;
  EXPECT_THAT(ValidateSchedule(schedule).message(), HasSubstr("total_steps"));
  schedule = PaperSchedule();
  schedule.warmup_steps = -1;
  EXPECT_THAT(ValidateSchedule(schedule).message(), HasSubstr("warmup_steps"));
  schedule = PaperSchedule();
  schedule.warmup_steps = schedule.total_steps + 1;
  EXPECT_EQ(ValidateSchedule(schedule).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ScheduleTest, PhaseEndSteps) {
  // The paper's 90% at 128 then 10% at 512.
  EXPECT_THAT(PhaseEndSteps({0.9, 0.1}, 1000000),
              ::testing::ElementsAre(900000, 1000000));
  // Rounded to the nearest step; the last phase ends at total_steps even
  // when the rounded shares fall short of it.
  EXPECT_THAT(PhaseEndSteps({1.0 / 3, 1.0 / 3, 1.0 / 3}, 100),
              ::testing::ElementsAre(33, 67, 100));
  EXPECT_THAT(PhaseEndSteps({0.755, 0.245}, 100),
              ::testing::ElementsAre(76, 100));
  // Never past the end.
  EXPECT_THAT(PhaseEndSteps({1.2, 0.1}, 10), ::testing::ElementsAre(10, 10));
  EXPECT_THAT(PhaseEndSteps({1.0}, 7), ::testing::ElementsAre(7));
}

TEST(ScheduleDeathTest, NegativeStep) {
  EXPECT_DEATH(LearningRateAt(PaperSchedule(), -1), "step >= 0");
}

}  // namespace
}  // namespace bertlab
