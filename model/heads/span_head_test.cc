// Gradient checks of the SQuAD span head in double at odd, tiny shapes (B 3,
// T 5, H 7) for both parameters and d_sequence_output under the op contract,
// with ignored and out-of-window positions; plus the loss formula and the
// position rules of span_head.h.
#include "model/heads/span_head.h"

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
constexpr int64_t kSeqLen = 5;
constexpr int64_t kHidden = 7;

struct Head {
  Head() {
    config.hidden_size = kHidden;
    config.initializer_range = 0.5;
    offsets = AddSpanHeadParameters(config, &layout);
    params.resize(layout.total_size());
    InitializeParameters(layout, 21, params.data());
    const std::vector<double> jitter =
        RandomVector(layout.total_size(), 22, -0.3, 0.3);
    for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
    sequence = RandomVector(kBatch * kSeqLen * kHidden, 23);
  }
  double Forward(const SpanTargets& targets,
                 SpanHeadActivations<double>* acts) {
    return SpanHeadForward(config, offsets, params.data(), sequence.data(),
                           targets, kBatch, kSeqLen, acts);
  }
  BertConfig config;
  ParameterLayout layout;
  SpanHeadOffsets offsets;
  std::vector<double> params;
  std::vector<double> sequence;  // (B*T, H)
};

void CheckGradients(Head* head, const SpanTargets& targets) {
  SpanHeadActivations<double> acts(head->config, kBatch, kSeqLen);
  auto loss = [&] { return head->Forward(targets, &acts); };
  const double value = loss();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.0);
  std::vector<double> grads =
      Prefilled(head->layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_sequence =
      Prefilled(kBatch * kSeqLen * kHidden, kInputGradientGarbage);
  SpanHeadBackward(head->config, head->offsets, head->params.data(),
                   grads.data(), head->sequence.data(), targets, kBatch,
                   kSeqLen, &acts, d_sequence.data());
  EXPECT_TRUE(GradientMatches("qa_outputs parameters", loss, &head->params,
                              MinusPrefill(grads), kHeadTolerance));
  EXPECT_TRUE(GradientMatches("span d_sequence_output", loss, &head->sequence,
                              d_sequence, kHeadTolerance));
}

// -log softmax(row)[label] over T entries.
double CrossEntropy(const double* row, int32_t label) {
  double sum = 0;
  for (int64_t t = 0; t < kSeqLen; ++t) sum += std::exp(row[t]);
  return std::log(sum) - row[label];
}

TEST(SpanHeadTest, ParametersUnderHuggingFaceNames) {
  Head head;
  const ParameterInfo* weight = head.layout.Find("qa_outputs.weight");
  const ParameterInfo* bias = head.layout.Find("qa_outputs.bias");
  ASSERT_NE(weight, nullptr);
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(weight->shape, (std::vector<int64_t>{2, kHidden}));
  EXPECT_EQ(bias->shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(head.layout.total_size(), 2 * kHidden + 2);
}

TEST(SpanHeadGradientTest, EveryPositionCounts) {
  Head head;
  const std::vector<int32_t> start = {1, 0, 4}, end = {3, 0, 4};
  CheckGradients(&head, {start.data(), end.data()});
}

TEST(SpanHeadGradientTest, IgnoredAndOutOfWindowPositions) {
  Head head;
  // Sequence 1's start is ignored, sequence 2's end lies past the window.
  const std::vector<int32_t> start = {2, kIgnoreLabel, 3};
  const std::vector<int32_t> end = {4, 1, kSeqLen + 2};
  CheckGradients(&head, {start.data(), end.data()});
}

// Row 0 of W makes the start logits, row 1 the end logits; the loss is the
// mean of the two mean cross-entropies.
TEST(SpanHeadTest, LogitsAndLossByHand) {
  Head head;
  const std::vector<int32_t> start = {2, kIgnoreLabel, 3};
  const std::vector<int32_t> end = {4, 1, 0};
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  const double loss = head.Forward({start.data(), end.data()}, &acts);
  for (int64_t i = 0; i < kBatch * kSeqLen; ++i) {
    for (int which = 0; which < 2; ++which) {
      double logit = head.params[head.offsets.bias + which];
      for (int64_t h = 0; h < kHidden; ++h) {
        logit += head.sequence[i * kHidden + h] *
                 head.params[head.offsets.weight + which * kHidden + h];
      }
      const double* logits =
          which == 0 ? acts.start_logits() : acts.end_logits();
      EXPECT_NEAR(logits[i], logit, 1e-13);
    }
  }
  const double start_loss =
      (CrossEntropy(acts.start_logits() + 0 * kSeqLen, 2) +
       CrossEntropy(acts.start_logits() + 2 * kSeqLen, 3)) /
      2;
  double end_loss = 0;
  for (int64_t b = 0; b < kBatch; ++b) {
    end_loss += CrossEntropy(acts.end_logits() + b * kSeqLen, end[b]);
  }
  end_loss /= kBatch;
  EXPECT_NEAR(acts.start_loss(), start_loss, 1e-13);
  EXPECT_NEAR(acts.end_loss(), end_loss, 1e-13);
  EXPECT_NEAR(loss, (start_loss + end_loss) / 2, 1e-13);
  EXPECT_DOUBLE_EQ(loss, acts.loss());
}

// HF clamps positions >= T to T and ignores T: the same as kIgnoreLabel.
TEST(SpanHeadTest, PositionPastTheWindowIsIgnored) {
  Head head;
  const std::vector<int32_t> start = {1, 2, 3};
  const std::vector<int32_t> past = {4, kSeqLen, 1000};
  const std::vector<int32_t> ignored = {4, kIgnoreLabel, kIgnoreLabel};
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  const double with_past = head.Forward({start.data(), past.data()}, &acts);
  const double with_ignored =
      head.Forward({start.data(), ignored.data()}, &acts);
  EXPECT_EQ(with_past, with_ignored);
}

TEST(SpanHeadTest, EveryPositionIgnoredGivesZeroLoss) {
  Head head;
  const std::vector<int32_t> none(kBatch, kIgnoreLabel);
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  EXPECT_EQ(head.Forward({none.data(), none.data()}, &acts), 0.0);
  std::vector<double> grads =
      Prefilled(head.layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_sequence(kBatch * kSeqLen * kHidden,
                                 kInputGradientGarbage);
  SpanHeadBackward(head.config, head.offsets, head.params.data(), grads.data(),
                   head.sequence.data(), {none.data(), none.data()}, kBatch,
                   kSeqLen, &acts, d_sequence.data());
  for (double g : grads) EXPECT_EQ(g, kParameterGradientPrefill);
  for (double d : d_sequence) EXPECT_EQ(d, 0.0);
}

TEST(SpanHeadTest, PredictionOnly) {
  Head head;
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  EXPECT_EQ(head.Forward({}, &acts), 0.0);
  EXPECT_TRUE(std::isfinite(acts.start_logits()[kBatch * kSeqLen - 1]));
}

TEST(SpanHeadDeathTest, NegativePositionOtherThanIgnore) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Head head;
  const std::vector<int32_t> start = {1, -1, 3}, end = {1, 2, 3};
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  EXPECT_DEATH(head.Forward({start.data(), end.data()}, &acts),
               "span position -1 of sequence 1 is negative");
}

TEST(SpanHeadDeathTest, StartWithoutEnd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Head head;
  const std::vector<int32_t> start = {1, 2, 3};
  SpanHeadActivations<double> acts(head.config, kBatch, kSeqLen);
  EXPECT_DEATH(head.Forward({start.data(), nullptr}, &acts),
               "both start and end positions");
}

}  // namespace
}  // namespace bertlab
