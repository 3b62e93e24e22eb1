// Gradient checks of the sequence classification / regression head in double
// at odd, tiny shapes (B 5, H 7), with dropout off and on (a fixed Philox
// stream), for every parameter and for d_pooled_output, under the op contract
// (parameter gradients accumulate on a prefill, d_pooled_output is
// overwritten); plus the loss formulas, ignored labels and prediction only.
#include "model/heads/classifier_head.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;

constexpr GradientTolerance kHeadTolerance{/*step=*/1e-6, /*relative=*/1e-6,
                                           /*absolute=*/1e-9};
constexpr int64_t kBatch = 5;
constexpr int64_t kHidden = 7;

BertConfig TinyConfig() {
  BertConfig config;
  config.hidden_size = kHidden;
  config.hidden_dropout_prob = 0.3;
  config.initializer_range = 0.5;
  return config;
}

struct Head {
  explicit Head(int64_t num_labels) : config(TinyConfig()) {
    offsets = AddClassifierHeadParameters(config, num_labels, &layout);
    params.resize(layout.total_size());
    InitializeParameters(layout, 11, params.data());
    const std::vector<double> jitter =
        RandomVector(layout.total_size(), 12, -0.3, 0.3);
    for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
    pooled = RandomVector(kBatch * kHidden, 13);
  }
  BertConfig config;
  ParameterLayout layout;
  ClassifierHeadOffsets offsets;
  std::vector<double> params;
  std::vector<double> pooled;  // (B, H)
};

// Checks every parameter gradient and d_pooled_output against central
// differences, with the gradients prefilled as the contract says.
void CheckGradients(Head* head, const ClassifierTargets& targets,
                    const DropoutSettings& dropout) {
  ClassifierHeadActivations<double> acts(head->config, head->offsets.num_labels,
                                         kBatch);
  auto loss = [&] {
    return ClassifierHeadForward(head->config, head->offsets,
                                 head->params.data(), head->pooled.data(),
                                 targets, kBatch, dropout, &acts);
  };
  const double value = loss();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.0);
  std::vector<double> grads =
      Prefilled(head->layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_pooled =
      Prefilled(kBatch * kHidden, kInputGradientGarbage);
  ClassifierHeadBackward(head->config, head->offsets, head->params.data(),
                         grads.data(), targets, kBatch, dropout, &acts,
                         d_pooled.data());
  EXPECT_TRUE(GradientMatches("classifier parameters", loss, &head->params,
                              MinusPrefill(grads), kHeadTolerance));
  EXPECT_TRUE(GradientMatches("classifier d_pooled_output", loss, &head->pooled,
                              d_pooled, kHeadTolerance));
}

const DropoutSettings kEval{false, 0, 0};
const DropoutSettings kTraining{true, 17, 3};

TEST(ClassifierHeadTest, ParametersUnderHuggingFaceNames) {
  Head head(3);
  const ParameterInfo* weight = head.layout.Find("classifier.weight");
  const ParameterInfo* bias = head.layout.Find("classifier.bias");
  ASSERT_NE(weight, nullptr);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(weight->shape, (std::vector<int64_t>{3, kHidden}));
  EXPECT_EQ(bias->shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(weight->offset, head.offsets.weight);
  EXPECT_EQ(bias->offset, head.offsets.bias);
  EXPECT_EQ(bias->initializer.kind, Initializer::Kind::kConstant);
  EXPECT_EQ(bias->initializer.scale, 0.0);
}

TEST(ClassifierHeadGradientTest, ClassificationWithoutDropout) {
  Head head(3);
  const std::vector<int32_t> labels = {2, 0, 1, 1, 0};
  CheckGradients(&head, {labels.data(), nullptr}, kEval);
}

TEST(ClassifierHeadGradientTest, ClassificationWithDropout) {
  Head head(3);
  const std::vector<int32_t> labels = {2, 0, 1, 1, 0};
  CheckGradients(&head, {labels.data(), nullptr}, kTraining);
}

TEST(ClassifierHeadGradientTest, IgnoredLabels) {
  Head head(2);
  const std::vector<int32_t> labels = {1, kIgnoreLabel, 0, kIgnoreLabel, 1};
  CheckGradients(&head, {labels.data(), nullptr}, kTraining);
}

TEST(ClassifierHeadGradientTest, RegressionWithoutDropout) {
  Head head(1);
  const std::vector<float> scores = {0.5f, 4.25f, -1.0f, 2.0f, 3.5f};
  CheckGradients(&head, {nullptr, scores.data()}, kEval);
}

TEST(ClassifierHeadGradientTest, RegressionWithDropout) {
  Head head(1);
  const std::vector<float> scores = {0.5f, 4.25f, -1.0f, 2.0f, 3.5f};
  CheckGradients(&head, {nullptr, scores.data()}, kTraining);
}

// logits = pooled W^T + b; loss = mean CE over the counted rows; ignored
// rows get no gradient.
TEST(ClassifierHeadTest, ClassificationLossByHand) {
  Head head(3);
  const std::vector<int32_t> labels = {2, kIgnoreLabel, 1, 0, kIgnoreLabel};
  ClassifierHeadActivations<double> acts(head.config, 3, kBatch);
  const double loss = ClassifierHeadForward(
      head.config, head.offsets, head.params.data(), head.pooled.data(),
      {labels.data(), nullptr}, kBatch, kEval, &acts);
  EXPECT_DOUBLE_EQ(loss, acts.loss());
  double expected = 0;
  for (int64_t b = 0; b < kBatch; ++b) {
    double logits[3];
    for (int64_t k = 0; k < 3; ++k) {
      logits[k] = head.params[head.offsets.bias + k];
      for (int64_t h = 0; h < kHidden; ++h) {
        logits[k] += head.pooled[b * kHidden + h] *
                     head.params[head.offsets.weight + k * kHidden + h];
      }
      EXPECT_NEAR(acts.logits()[b * 3 + k], logits[k], 1e-13);
    }
    if (labels[b] == kIgnoreLabel) continue;
    double sum = 0;
    for (double logit : logits) sum += std::exp(logit);
    expected += std::log(sum) - logits[labels[b]];
  }
  EXPECT_NEAR(loss, expected / 3, 1e-13);

  std::vector<double> grads(head.layout.total_size(), 0.0);
  std::vector<double> d_pooled(kBatch * kHidden, kInputGradientGarbage);
  ClassifierHeadBackward(head.config, head.offsets, head.params.data(),
                         grads.data(), {labels.data(), nullptr}, kBatch, kEval,
                         &acts, d_pooled.data());
  for (int64_t b : {1, 4}) {
    for (int64_t h = 0; h < kHidden; ++h) {
      EXPECT_EQ(d_pooled[b * kHidden + h], 0.0) << "row " << b;
    }
  }
}

TEST(ClassifierHeadTest, EveryLabelIgnoredGivesZeroLossAndGradient) {
  Head head(2);
  const std::vector<int32_t> labels(kBatch, kIgnoreLabel);
  ClassifierHeadActivations<double> acts(head.config, 2, kBatch);
  EXPECT_EQ(ClassifierHeadForward(head.config, head.offsets, head.params.data(),
                                  head.pooled.data(), {labels.data(), nullptr},
                                  kBatch, kTraining, &acts),
            0.0);
  std::vector<double> grads =
      Prefilled(head.layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_pooled(kBatch * kHidden, kInputGradientGarbage);
  ClassifierHeadBackward(head.config, head.offsets, head.params.data(),
                         grads.data(), {labels.data(), nullptr}, kBatch,
                         kTraining, &acts, d_pooled.data());
  for (double g : grads) EXPECT_EQ(g, kParameterGradientPrefill);
  for (double d : d_pooled) EXPECT_EQ(d, 0.0);
}

TEST(ClassifierHeadTest, RegressionLossIsMeanSquaredError) {
  Head head(1);
  const std::vector<float> scores = {0.5f, 4.25f, -1.0f, 2.0f, 3.5f};
  ClassifierHeadActivations<double> acts(head.config, 1, kBatch);
  const double loss = ClassifierHeadForward(
      head.config, head.offsets, head.params.data(), head.pooled.data(),
      {nullptr, scores.data()}, kBatch, kEval, &acts);
  double expected = 0;
  for (int64_t b = 0; b < kBatch; ++b) {
    const double error = acts.logits()[b] - scores[b];
    expected += error * error;
  }
  EXPECT_NEAR(loss, expected / kBatch, 1e-13);
}

// Training drops some pooled entries (scaled by 1 / (1 - p)); evaluation
// uses them all; prediction without targets gives logits and no loss.
TEST(ClassifierHeadTest, DropoutOnlyInTrainingAndPredictionOnly) {
  Head head(3);
  ClassifierHeadActivations<double> eval(head.config, 3, kBatch);
  ClassifierHeadActivations<double> train(head.config, 3, kBatch);
  EXPECT_EQ(ClassifierHeadForward(head.config, head.offsets, head.params.data(),
                                  head.pooled.data(), {}, kBatch, kEval, &eval),
            0.0);
  ClassifierHeadForward(head.config, head.offsets, head.params.data(),
                        head.pooled.data(), {}, kBatch, kTraining, &train);
  int differing = 0;
  for (int64_t i = 0; i < kBatch * 3; ++i) {
    differing += eval.logits()[i] != train.logits()[i];
  }
  EXPECT_GT(differing, 0);
  // The same stream again gives the same logits.
  ClassifierHeadActivations<double> again(head.config, 3, kBatch);
  ClassifierHeadForward(head.config, head.offsets, head.params.data(),
                        head.pooled.data(), {}, kBatch, kTraining, &again);
  for (int64_t i = 0; i < kBatch * 3; ++i) {
    EXPECT_EQ(again.logits()[i], train.logits()[i]);
  }
}

TEST(ClassifierHeadTest, FloatMatchesDouble) {
  Head head(3);
  const std::vector<int32_t> labels = {2, 0, 1, 1, 0};
  const std::vector<float> params(head.params.begin(), head.params.end());
  const std::vector<float> pooled(head.pooled.begin(), head.pooled.end());
  ClassifierHeadActivations<float> acts_f(head.config, 3, kBatch);
  ClassifierHeadActivations<double> acts_d(head.config, 3, kBatch);
  const float loss_f = ClassifierHeadForward(
      head.config, head.offsets, params.data(), pooled.data(),
      {labels.data(), nullptr}, kBatch, kTraining, &acts_f);
  const double loss_d = ClassifierHeadForward(
      head.config, head.offsets, head.params.data(), head.pooled.data(),
      {labels.data(), nullptr}, kBatch, kTraining, &acts_d);
  EXPECT_NEAR(loss_f, loss_d, 1e-5);
  std::vector<float> grads_f(head.layout.total_size(), 0.0f);
  std::vector<double> grads_d(head.layout.total_size(), 0.0);
  std::vector<float> d_pooled_f(kBatch * kHidden);
  std::vector<double> d_pooled_d(kBatch * kHidden);
  ClassifierHeadBackward(head.config, head.offsets, params.data(),
                         grads_f.data(), {labels.data(), nullptr}, kBatch,
                         kTraining, &acts_f, d_pooled_f.data());
  ClassifierHeadBackward(head.config, head.offsets, head.params.data(),
                         grads_d.data(), {labels.data(), nullptr}, kBatch,
                         kTraining, &acts_d, d_pooled_d.data());
  for (size_t i = 0; i < grads_d.size(); ++i) {
    EXPECT_NEAR(grads_f[i], grads_d[i], 1e-5) << i;
  }
  for (size_t i = 0; i < d_pooled_d.size(); ++i) {
    EXPECT_NEAR(d_pooled_f[i], d_pooled_d[i], 1e-5) << i;
  }
}

TEST(ClassifierHeadDeathTest, LabelOutOfRange) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Head head(3);
  const std::vector<int32_t> labels = {2, 0, 3, 1, 0};
  ClassifierHeadActivations<double> acts(head.config, 3, kBatch);
  EXPECT_DEATH(
      ClassifierHeadForward(head.config, head.offsets, head.params.data(),
                            head.pooled.data(), {labels.data(), nullptr},
                            kBatch, kEval, &acts),
      "label 3 of row 2 is outside \\[0, 3\\)");
}

}  // namespace
}  // namespace bertlab
