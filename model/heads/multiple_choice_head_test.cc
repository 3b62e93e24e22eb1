// Gradient checks of the multiple-choice head in double at odd, tiny shapes
// (B 3 examples of C 3 choices, H 5), with dropout off and on, for both
// parameters and d_pooled_output under the op contract; plus the score layout
// and the loss by hand.
#include "model/heads/multiple_choice_head.h"

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
constexpr int64_t kBatch = 3;
constexpr int64_t kChoices = 3;
constexpr int64_t kHidden = 5;

const DropoutSettings kEval{false, 0, 0};
const DropoutSettings kTraining{true, 29, 4};

struct Head {
  Head() {
    config.hidden_size = kHidden;
    config.hidden_dropout_prob = 0.3;
    config.initializer_range = 0.5;
    offsets = AddMultipleChoiceHeadParameters(config, &layout);
    params.resize(layout.total_size());
    InitializeParameters(layout, 31, params.data());
    const std::vector<double> jitter =
        RandomVector(layout.total_size(), 32, -0.3, 0.3);
    for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
    pooled = RandomVector(kBatch * kChoices * kHidden, 33, -2.0, 2.0);
  }
  double Forward(const int32_t* labels, const DropoutSettings& dropout,
                 MultipleChoiceHeadActivations<double>* acts) {
    return MultipleChoiceHeadForward(config, offsets, params.data(),
                                     pooled.data(), labels, kBatch, kChoices,
                                     dropout, acts);
  }
  BertConfig config;
  ParameterLayout layout;
  MultipleChoiceHeadOffsets offsets;
  std::vector<double> params;
  std::vector<double> pooled;  // (B*C, H)
};

void CheckGradients(Head* head, const std::vector<int32_t>& labels,
                    const DropoutSettings& dropout) {
  MultipleChoiceHeadActivations<double> acts(head->config, kBatch, kChoices);
  auto loss = [&] { return head->Forward(labels.data(), dropout, &acts); };
  const double value = loss();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.0);
  std::vector<double> grads =
      Prefilled(head->layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_pooled =
      Prefilled(kBatch * kChoices * kHidden, kInputGradientGarbage);
  MultipleChoiceHeadBackward(head->config, head->offsets, head->params.data(),
                             grads.data(), labels.data(), kBatch, kChoices,
                             dropout, &acts, d_pooled.data());
  EXPECT_TRUE(GradientMatches("multiple-choice parameters", loss, &head->params,
                              MinusPrefill(grads), kHeadTolerance));
  EXPECT_TRUE(GradientMatches("multiple-choice d_pooled_output", loss,
                              &head->pooled, d_pooled, kHeadTolerance));
}

TEST(MultipleChoiceHeadTest, ParametersUnderHuggingFaceNames) {
  Head head;
  const ParameterInfo* weight = head.layout.Find("classifier.weight");
  const ParameterInfo* bias = head.layout.Find("classifier.bias");
  ASSERT_NE(weight, nullptr);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(weight->shape, (std::vector<int64_t>{1, kHidden}));
  EXPECT_EQ(bias->shape, (std::vector<int64_t>{1}));
}

TEST(MultipleChoiceHeadGradientTest, WithoutDropout) {
  Head head;
  CheckGradients(&head, {2, 0, 1}, kEval);
}

TEST(MultipleChoiceHeadGradientTest, WithDropoutAndAnIgnoredExample) {
  Head head;
  CheckGradients(&head, {1, kIgnoreLabel, 2}, kTraining);
}

// scores[b, c] = pooled[b * C + c] . w + b; loss = mean CE over examples.
TEST(MultipleChoiceHeadTest, ScoresAndLossByHand) {
  Head head;
  const std::vector<int32_t> labels = {2, kIgnoreLabel, 0};
  MultipleChoiceHeadActivations<double> acts(head.config, kBatch, kChoices);
  const double loss = head.Forward(labels.data(), kEval, &acts);
  double expected = 0;
  for (int64_t b = 0; b < kBatch; ++b) {
    double scores[kChoices];
    for (int64_t c = 0; c < kChoices; ++c) {
      scores[c] = head.params[head.offsets.bias];
      for (int64_t h = 0; h < kHidden; ++h) {
        scores[c] += head.pooled[(b * kChoices + c) * kHidden + h] *
                     head.params[head.offsets.weight + h];
      }
      EXPECT_NEAR(acts.scores()[b * kChoices + c], scores[c], 1e-13);
    }
    if (labels[b] == kIgnoreLabel) continue;
    double sum = 0;
    for (double score : scores) sum += std::exp(score);
    expected += std::log(sum) - scores[labels[b]];
  }
  EXPECT_NEAR(loss, expected / 2, 1e-13);
  EXPECT_DOUBLE_EQ(loss, acts.loss());
}

// The head's dropout mask is not the classifier's: a different tensor id.
TEST(MultipleChoiceHeadTest, DropoutStreamIsItsOwn) {
  EXPECT_NE(kMultipleChoiceDropoutTensorId, kFirstHeadDropoutTensorId);
  Head head;
  MultipleChoiceHeadActivations<double> eval(head.config, kBatch, kChoices);
  MultipleChoiceHeadActivations<double> train(head.config, kBatch, kChoices);
  EXPECT_EQ(head.Forward(nullptr, kEval, &eval), 0.0);
  head.Forward(nullptr, kTraining, &train);
  int differing = 0;
  for (int64_t i = 0; i < kBatch * kChoices; ++i) {
    differing += eval.scores()[i] != train.scores()[i];
  }
  EXPECT_GT(differing, 0);
}

}  // namespace
}  // namespace bertlab
