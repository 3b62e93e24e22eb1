// The trivial predictors' fitting rules on hand-made training sets; their
// scores on dev through the official scorers are checked per task in
// experiments/task_evaluation_test.cc.
#include "tasks/finetune/trivial_baseline.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

std::vector<ClassificationExample> Labelled(
    const std::vector<int32_t>& labels) {
  std::vector<ClassificationExample> examples;
  for (const int32_t label : labels) {
    ClassificationExample example;
    example.label = label;
    example.has_label = true;
    examples.push_back(example);
  }
  return examples;
}

TEST(TrivialBaselineTest, MajorityClassIsTheMostFrequentTrainingLabel) {
  auto fitted = FitMajorityClass(Labelled({0, 2, 1, 2, 0, 2}),
                                 {"contradiction", "entailment", "neutral"});
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_EQ(fitted->label, 2);
  EXPECT_EQ(fitted->predictor, "majority class of train (neutral)");
  // Names "0"/"1" (MRPC) print as the label's name too.
  EXPECT_EQ(FitMajorityClass(Labelled({1, 1, 0}), {"0", "1"})->predictor,
            "majority class of train (1)");
}

TEST(TrivialBaselineTest,
     MajorityClassTiesGoToTheSmallerIdAndUnlabelledIsSkipped) {
  std::vector<ClassificationExample> train = Labelled({1, 0, 1, 0});
  train.push_back(ClassificationExample{});  // unlabelled: not counted
  train.back().label = kNoLabel;
  auto fitted = FitMajorityClass(train, {});
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(fitted->label, 0);
  EXPECT_EQ(fitted->predictor, "majority class of train (0)");
  EXPECT_THAT(FitMajorityClass({}, {}).status().message(),
              HasSubstr("no labelled training example"));
}

TEST(TrivialBaselineTest, MeanScoreIsTheTrainingMean) {
  std::vector<ClassificationExample> train = Labelled({0, 0, 0, 0});
  const float scores[] = {0.5f, 1.5f, 4.0f, 5.0f};
  for (int i = 0; i < 4; ++i) train[i].score = scores[i];
  auto fitted = FitMeanScore(train);
  ASSERT_TRUE(fitted.ok());
  EXPECT_DOUBLE_EQ(fitted->score, 2.75);  // 11 / 4
  EXPECT_THAT(fitted->predictor, HasSubstr("mean score of train (2.75);"));
  EXPECT_THAT(fitted->predictor,
              HasSubstr("the correlation of a constant is taken as 0"));
  EXPECT_FALSE(FitMeanScore({}).ok());
}

TEST(TrivialBaselineTest, FirstWordsTakesTheLowerMedianAnswerLength) {
  auto odd = FitFirstWords({5, 1, 2, 2, 9});  // sorted 1 2 2 5 9
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->words, 2);
  EXPECT_EQ(odd->predictor,
            "the first 2 words of the context (2 = median train answer "
            "length)");
  EXPECT_EQ(FitFirstWords({4, 1, 3, 2})->words, 2);  // 1 2 | 3 4: lower
  EXPECT_EQ(FitFirstWords({1})->predictor,
            "the first 1 word of the context (1 = median train answer "
            "length)");
  EXPECT_FALSE(FitFirstWords({}).ok());
  EXPECT_THAT(FitFirstWords({3, 0}).status().message(),
              HasSubstr("a training answer of 0 words"));
}

TEST(TrivialBaselineTest, FirstWordsPredictsTheContextsFirstTokens) {
  FirstWords rule;
  rule.words = 3;
  EXPECT_EQ(rule.Predict({"The", "cat,", "sat", "on", "it."}), "The cat, sat");
  EXPECT_EQ(rule.Predict({"Short", "one"}), "Short one");
  EXPECT_EQ(rule.Predict({}), "");
}

TEST(TrivialBaselineTest, MajorityChoiceIsTheMostFrequentRightEnding) {
  std::vector<MultipleChoiceExample> train(6);
  const int32_t labels[] = {3, 1, 3, 0, 1, 3};
  for (int i = 0; i < 6; ++i) train[i].label = labels[i];
  auto fitted = FitMajorityChoice(train, 4);
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(fitted->choice, 3);
  EXPECT_EQ(fitted->predictor,
            "most frequent right ending of train (ending 3)");
  train[0].label = 4;
  train[0].guid = "g0";
  EXPECT_THAT(FitMajorityChoice(train, 4).status().message(),
              HasSubstr("example g0 has label 4, not in [0, 4)"));
  EXPECT_FALSE(FitMajorityChoice({}, 4).ok());
}

}  // namespace
}  // namespace bertlab
