#include "experiments/epoch_choice.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::HasSubstr;

// The highest tune score wins, the earliest of ties, with its parameters
// and all its scores.
TEST(EpochChoiceTest, KeepsTheBestEarliestEpoch) {
  EpochChoice choice;
  ASSERT_TRUE(
      choice.Offer(1, {{"accuracy", 60}, {"f1", 70}}, "accuracy", {1.0f}).ok());
  ASSERT_TRUE(
      choice.Offer(2, {{"accuracy", 65}, {"f1", 50}}, "accuracy", {2.0f}).ok());
  ASSERT_TRUE(
      choice.Offer(3, {{"accuracy", 65}, {"f1", 90}}, "accuracy", {3.0f}).ok());
  ASSERT_TRUE(
      choice.Offer(4, {{"accuracy", 64}, {"f1", 99}}, "accuracy", {4.0f}).ok());
  EXPECT_EQ(choice.epoch, 2);
  EXPECT_EQ(choice.score, 65);
  EXPECT_EQ(choice.metrics.at("f1"), 50);
  EXPECT_EQ(choice.parameters, std::vector<float>{2.0f});
}

TEST(EpochChoiceTest, RefusesScoresWithoutThePrimaryMetric) {
  EpochChoice choice;
  const absl::Status missing = choice.Offer(1, {{"f1", 70}}, "accuracy", {});
  EXPECT_EQ(missing.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(missing.message(),
              HasSubstr("epoch 1: the tune split's scores (f1 70) have no "
                        "finite \"accuracy\""));
  EXPECT_FALSE(
      choice.Offer(2, {{"accuracy", std::nan("")}}, "accuracy", {}).ok());
  EXPECT_EQ(choice.epoch, 0);
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
