#include "model/train/evaluation.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/heads/pretraining_heads.h"

namespace bertlab {
namespace {

TEST(EvaluationTest, LanguageModelMetricsOnAHandCheckedCase) {
  // Row 0: label 2 has the largest logit: correct, CE = log(e + e^2 + e^3) - 3
  // = 0.40760596. Row 1: all logits equal, the first (0) wins the tie, label
  // 1: wrong, CE = log 3. Row 2 is ignored.
  const std::vector<float> logits = {1, 2, 3, 0, 0, 0, 5, -5, 0};
  const std::vector<int32_t> labels = {2, 1, kIgnoreLabel};
  UnigramModel unigram(3);
  for (int32_t token : {2, 2, 1}) unigram.Add(token);
  HeldOutMetrics metrics;
  AccumulateLanguageModel(logits.data(), labels.data(), 3, 3, &unigram,
                          &metrics);
  EXPECT_EQ(metrics.predictions, 2);
  EXPECT_EQ(metrics.lm_correct, 1);
  EXPECT_DOUBLE_EQ(metrics.lm_accuracy(), 0.5);
  const double ce0 =
      std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)) - 3.0;
  EXPECT_NEAR(ce0, 0.40760596, 1e-8);
  const double ce1 = std::log(3.0);
  EXPECT_NEAR(metrics.lm_loss(), (ce0 + ce1) / 2, 1e-12);
  EXPECT_NEAR(metrics.lm_perplexity(), std::exp((ce0 + ce1) / 2), 1e-12);
  // Laplace: counts (0, 1, 2) + 1 over 3 + 3: p(2) = 1/2, p(1) = 1/3.
  EXPECT_NEAR(unigram.LogProbability(0), std::log(1.0 / 6), 1e-12);
  EXPECT_NEAR(metrics.unigram_perplexity(), std::sqrt(6.0), 1e-12);

  // A second batch adds to the sums: perplexity is over all predictions, not
  // a mean of batch means.
  const std::vector<float> more = {0, 10, 0};
  const std::vector<int32_t> more_labels = {1};
  AccumulateLanguageModel(more.data(), more_labels.data(), 1, 3, nullptr,
                          &metrics);
  EXPECT_EQ(metrics.predictions, 3);
  EXPECT_EQ(metrics.lm_correct, 2);
  const double ce2 = std::log(2 + std::exp(10.0)) - 10;
  EXPECT_NEAR(metrics.lm_loss(), (ce0 + ce1 + ce2) / 3, 1e-12);
}

TEST(EvaluationTest, NextSentenceAccuracy) {
  // Predictions 1, 0, 0 (a tie goes to 0, IsNext); labels 1, 1, 0; the
  // ignored row does not count.
  const std::vector<float> logits = {0.1f, 0.9f, 2, 1, 0, 0, 0, 1};
  const std::vector<int32_t> labels = {1, 1, 0, kIgnoreLabel};
  HeldOutMetrics metrics;
  AccumulateNextSentence(logits.data(), labels.data(), 4, &metrics);
  EXPECT_EQ(metrics.next_sentence_count, 3);
  EXPECT_EQ(metrics.next_sentence_correct, 2);
  EXPECT_DOUBLE_EQ(metrics.next_sentence_accuracy(), 2.0 / 3);
}

TEST(EvaluationTest, EmptyMetricsAreNaN) {
  const HeldOutMetrics metrics;
  EXPECT_TRUE(std::isnan(metrics.lm_accuracy()));
  EXPECT_TRUE(std::isnan(metrics.lm_perplexity()));
  EXPECT_TRUE(std::isnan(metrics.next_sentence_accuracy()));
  EXPECT_TRUE(std::isnan(metrics.unigram_perplexity()));
}

}  // namespace
}  // namespace bertlab
