#include "eval/glue_scoring.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/glue/glue_predictions.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

const GlueTaskSpec& Task(const std::string& name) {
  absl::StatusOr<const GlueTaskSpec*> task = FindGlueTask(name);
  EXPECT_TRUE(task.ok()) << task.status();
  return **task;
}

GlueSet Gold(const std::vector<int32_t>& labels) {
  GlueSet set;
  set.path = "gold.tsv";
  for (size_t i = 0; i < labels.size(); ++i) {
    GlueRawExample example;
    example.guid = std::to_string(i);
    example.label = labels[i];
    example.score = static_cast<float>(labels[i]);
    example.has_label = true;
    example.line = static_cast<int64_t>(i) + 2;
    set.examples.push_back(example);
  }
  return set;
}

TEST(GlueScoringTest, MrpcReportsAccuracyAndF1MatchedByIndex) {
  // Predictions in reverse order: matched by index, not position.
  // gold 1 0 1 1, predicted 1 1 0 1: accuracy 2/4, F1 2*2/(2*2+1+1) = 2/3.
  const GlueSet gold = Gold({1, 0, 1, 1});
  const std::vector<GluePrediction> predictions = {{"3", 1, 0.0f, 2},
                                                   {"2", 0, 0.0f, 3},
                                                   {"1", 1, 0.0f, 4},
                                                   {"0", 1, 0.0f, 5}};
  absl::StatusOr<GlueScores> scores =
      ScoreGluePredictions(Task("MRPC"), gold, predictions, "pred.tsv");
  ASSERT_TRUE(scores.ok()) << scores.status();
  EXPECT_EQ(scores->examples, 4);
  ASSERT_EQ(scores->values.size(), 2u);
  EXPECT_EQ(scores->values[0].first, GlueMetric::kAccuracy);
  EXPECT_DOUBLE_EQ(scores->values[0].second, 0.5);
  EXPECT_EQ(scores->values[1].first, GlueMetric::kF1);
  EXPECT_DOUBLE_EQ(scores->values[1].second, 2.0 / 3.0);
  EXPECT_EQ(scores->primary_metric, GlueMetric::kF1);
  EXPECT_DOUBLE_EQ(scores->primary, 2.0 / 3.0);
}

TEST(GlueScoringTest, StsbReportsPearsonAndSpearman) {
  const GlueSet gold = Gold({1, 2, 3, 4});
  const std::vector<GluePrediction> predictions = {{"0", 0, 1.0f, 0},
                                                   {"1", 0, 4.0f, 0},
                                                   {"2", 0, 9.0f, 0},
                                                   {"3", 0, 16.0f, 0}};
  absl::StatusOr<GlueScores> scores =
      ScoreGluePredictions(Task("STS-B"), gold, predictions, "pred.tsv");
  ASSERT_TRUE(scores.ok()) << scores.status();
  EXPECT_EQ(scores->primary_metric, GlueMetric::kSpearman);
  EXPECT_DOUBLE_EQ(scores->primary, 1.0);
  EXPECT_LT(scores->values[0].second, 1.0);  // Pearson of x vs x^2
}

TEST(GlueScoringTest, MissingAndExtraPredictionsNameFileAndLine) {
  const GlueSet gold = Gold({1, 0});
  EXPECT_EQ(
      ScoreGluePredictions(Task("RTE"), gold, {{"0", 1, 0.0f, 2}}, "pred.tsv")
          .status()
          .message(),
      "gold.tsv:3: no prediction for index \"1\" in pred.tsv");
  EXPECT_EQ(
      ScoreGluePredictions(
          Task("RTE"), gold,
          {{"0", 1, 0.0f, 2}, {"1", 1, 0.0f, 3}, {"9", 1, 0.0f, 4}}, "pred.tsv")
          .status()
          .message(),
      "pred.tsv:4: index \"9\" is not in the gold file gold.tsv");
  GlueSet unlabelled = gold;
  unlabelled.examples[0].has_label = false;
  EXPECT_THAT(
      ScoreGluePredictions(Task("RTE"), unlabelled,
                           {{"0", 1, 0.0f, 2}, {"1", 1, 0.0f, 3}}, "pred.tsv")
          .status()
          .message(),
      HasSubstr("gold.tsv:2: gold row without a label"));
}

}  // namespace
}  // namespace bertlab
