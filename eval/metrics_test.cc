#include "eval/metrics.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The vectors and expected values of tools/reference/glue_metrics_reference.py
// (numpy 1.24.2, written from the sklearn/scipy definitions independently of
// this code); rerun it to regenerate.
const std::vector<int32_t> kGold = {1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1};
const std::vector<int32_t> kPredicted = {1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 1};
const std::vector<int32_t> kGold3 = {0, 1, 2, 2, 1, 0, 2, 1, 0, 2};
const std::vector<int32_t> kPredicted3 = {0, 2, 2, 1, 1, 0, 2, 0, 0, 2};
const std::vector<double> kX = {4.2, 3.0, 0.5, 5.0, 2.25, 3.0,
                                1.0, 4.2, 3.0, 0.0, 2.8};
const std::vector<double> kY = {3.9, 2.5, 1.1, 4.8, 2.0, 3.3,
                                0.4, 4.4, 2.5, 0.2, 3.6};
constexpr double kTolerance = 1e-12;

TEST(MetricsTest, MatchesTheReferenceScript) {
  EXPECT_NEAR(Accuracy(kGold, kPredicted), 0.6923076923076923, kTolerance);
  EXPECT_NEAR(F1Positive(kGold, kPredicted), 0.75, kTolerance);
  EXPECT_NEAR(MatthewsCorrelation(kGold, kPredicted), 0.35, kTolerance);
  EXPECT_NEAR(MatthewsCorrelation(kGold3, kPredicted3), 0.5539117094069973,
              kTolerance);
  EXPECT_NEAR(PearsonCorrelation(kX, kY), 0.9555326592907336, kTolerance);
  EXPECT_NEAR(SpearmanCorrelation(kX, kY), 0.9263066247445044, kTolerance);
  EXPECT_THAT(AverageRanks(kX), ElementsAre(9.5, 7.0, 2.0, 11.0, 4.0, 7.0, 3.0,
                                            9.5, 7.0, 1.0, 5.0));
}

TEST(MetricsTest, DegenerateCases) {
  // Perfect and inverted predictions.
  EXPECT_DOUBLE_EQ(MatthewsCorrelation({0, 1, 1}, {0, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(MatthewsCorrelation({0, 1, 1}, {1, 0, 0}), -1.0);
  // A constant prediction: sklearn returns 0 (not NaN).
  EXPECT_DOUBLE_EQ(MatthewsCorrelation({0, 1, 1}, {1, 1, 1}), 0.0);
  // No positive anywhere: sklearn's zero_division result, 0.
  EXPECT_DOUBLE_EQ(F1Positive({0, 0}, {0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(F1Positive({1, 1, 0}, {0, 0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(PearsonCorrelation({1, 2, 3}, {2, 4, 6}), 1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3}, {1, 8, 27}), 1.0);
  EXPECT_DOUBLE_EQ(SpearmanCorrelation({1, 2, 3}, {3, 2, 1}), -1.0);
  // Constant side: undefined, as scipy's NaN.
  EXPECT_TRUE(std::isnan(PearsonCorrelation({1, 2, 3}, {5, 5, 5})));
  EXPECT_TRUE(std::isnan(SpearmanCorrelation({5, 5, 5}, {1, 2, 3})));
}

TEST(GlueAverageTest, ReproducesThePapersTable1Averages) {
  // BERT-BASE and BERT-LARGE rows of Table 1 (PAPER.md), WNLI added to show
  // that it is left out; the paper prints 79.6 and 82.1.
  absl::StatusOr<double> base = GlueAverage({{"MNLI-m", 84.6},
                                             {"MNLI-mm", 83.4},
                                             {"QQP", 71.2},
                                             {"QNLI", 90.5},
                                             {"SST-2", 93.5},
                                             {"CoLA", 52.1},
                                             {"STS-B", 85.8},
                                             {"MRPC", 88.9},
                                             {"RTE", 66.4},
                                             {"WNLI", 65.1}});
  ASSERT_TRUE(base.ok()) << base.status();
  EXPECT_NEAR(*base, 79.6, 0.05);
  absl::StatusOr<double> large = GlueAverage({{"MNLI-m", 86.7},
                                              {"MNLI-mm", 85.9},
                                              {"QQP", 72.1},
                                              {"QNLI", 92.7},
                                              {"SST-2", 94.9},
                                              {"CoLA", 60.5},
                                              {"STS-B", 86.5},
                                              {"MRPC", 89.3},
                                              {"RTE", 70.1}});
  ASSERT_TRUE(large.ok()) << large.status();
  EXPECT_NEAR(*large, 82.1, 0.05);
}

TEST(GlueAverageTest, SubsetsAndErrors) {
  absl::StatusOr<double> two = GlueAverage({{"RTE", 0.5}, {"MRPC", 0.75}});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_DOUBLE_EQ(*two, 0.625);
  EXPECT_THAT(GlueAverage({{"RTE", 0.5}, {"RTE", 0.6}}).status().message(),
              HasSubstr("RTE given twice"));
  EXPECT_THAT(GlueAverage({{"MNLI", 0.5}}).status().message(),
              HasSubstr("unknown set \"MNLI\""));
  EXPECT_THAT(GlueAverage({{"WNLI", 0.5}}).status().message(),
              HasSubstr("no task to average"));
}

}  // namespace
}  // namespace bertlab
