// Gradient checks of BertForPreTraining as a whole (encoder + masked-LM head
// with the tied decoder + next-sentence head) in double precision, for the
// pre-training variants: full (MLM + NSP), No NSP, LTR (causal encoder,
// every position predicted) and its mirror RTL (reverse-causal encoder).
#include "model/heads/pretraining_heads.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/encoder.h"
#include "model/bert/initialize.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::GradientMatches;
using testing::GradientTolerance;
using testing::RandomVector;

// Central differences at h = 1e-6 on a loss of order 10 carry about 1e-9 of
// rounding error, hence the absolute term.
constexpr GradientTolerance kModelTolerance{/*step=*/1e-6, /*relative=*/1e-6,
                                            /*absolute=*/1e-8};

BertConfig TinyConfig(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 13;
  config.hidden_size = 6;
  config.num_attention_heads = 2;
  config.intermediate_size = 10;
  config.num_hidden_layers = 1;
  config.max_position_embeddings = 7;
  config.type_vocab_size = 2;
  config.hidden_dropout_prob = 0.1;
  config.attention_probs_dropout_prob = 0.1;
  config.initializer_range = 0.5;
  config.attention_mode = mode;
  return config;
}

struct Model {
  explicit Model(const BertConfig& c, bool next_sentence) : config(c) {
    encoder = AddEncoderParameters(config, &layout);
    head = AddPretrainingHeadParameters(config, next_sentence, &layout);
    params.resize(layout.total_size());
    InitializeParameters(layout, 3, params.data());
    const std::vector<double> jitter =
        RandomVector(layout.total_size(), 4, -0.2, 0.2);
    for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
  }
  BertConfig config;
  ParameterLayout layout;
  EncoderOffsets encoder;
  PretrainingHeadOffsets head;
  std::vector<double> params;
};

struct Batch {
  std::vector<int32_t> input_ids = {2, 5, 12, 5, 3, 2, 7, 11, 0, 0};
  std::vector<int32_t> token_type_ids = {0, 0, 0, 1, 1, 0, 0, 1, 1, 1};
  std::vector<int32_t> attention_mask = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
  EncoderBatch View() const {
    return {input_ids.data(), token_type_ids.data(), attention_mask.data(), 2,
            5};
  }
};

void CheckModelGradients(Model* model, const PretrainingTargets& targets,
                         bool training) {
  const Batch batch;
  const int64_t hidden = model->config.hidden_size;
  const DropoutSettings dropout{training, 17, 2};
  EncoderActivations<double> encoder_acts(model->config, 2, 5);
  PretrainingHeadActivations<double> head_acts(model->config, 10, 2);
  auto loss = [&] {
    EncoderForward(model->config, model->encoder, model->params.data(),
                   batch.View(), dropout, &encoder_acts);
    return PretrainingHeadsForward(
        model->config, model->encoder, model->head, model->params.data(),
        encoder_acts.sequence_output(), encoder_acts.pooled_output(), targets,
        2, 5, &head_acts);
  };
  const double value = loss();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.0);
  std::vector<double> grads(model->layout.total_size(), 0.0);
  std::vector<double> d_sequence(2 * 5 * hidden), d_pooled(2 * hidden);
  PretrainingHeadsBackward(model->config, model->encoder, model->head,
                           model->params.data(), grads.data(), targets, 2, 5,
                           &head_acts, d_sequence.data(), d_pooled.data());
  EncoderBackward(model->config, model->encoder, model->params.data(),
                  grads.data(), batch.View(), dropout, d_sequence.data(),
                  d_pooled.data(), &encoder_acts);
  EXPECT_TRUE(GradientMatches("BertForPreTraining", loss, &model->params, grads,
                              kModelTolerance));
}

TEST(PretrainingHeadsGradientTest, MaskedLmAndNextSentence) {
  Model model(TinyConfig(AttentionMode::kBidirectional), true);
  // Position 6 is predicted twice; one position is ignored.
  const std::vector<int32_t> positions = {1, 3, 6, 6, 7};
  const std::vector<int32_t> labels = {4, 9, 1, 12, kIgnoreLabel};
  const std::vector<int32_t> next_sentence = {0, 1};
  PretrainingTargets targets{positions.data(), labels.data(), 5,
                             next_sentence.data()};
  CheckModelGradients(&model, targets, /*training=*/false);
  CheckModelGradients(&model, targets, /*training=*/true);
}

TEST(PretrainingHeadsGradientTest, MaskedLmOnlyHasNoNextSentenceHead) {
  Model model(TinyConfig(AttentionMode::kBidirectional), false);
  EXPECT_EQ(model.layout.Find("cls.seq_relationship.weight"), nullptr);
  const std::vector<int32_t> positions = {0, 2, 8};
  const std::vector<int32_t> labels = {3, 3, 10};
  PretrainingTargets targets{positions.data(), labels.data(), 3, nullptr};
  CheckModelGradients(&model, targets, /*training=*/true);
}

TEST(PretrainingHeadsGradientTest, LeftToRightEveryPosition) {
  Model model(TinyConfig(AttentionMode::kCausal), false);
  const Batch batch;
  // Every position predicts the next token; the last real one predicts none.
  std::vector<int32_t> positions, labels;
  for (int b = 0; b < 2; ++b) {
    const int length = b == 0 ? 5 : 3;
    for (int t = 0; t < 5; ++t) {
      positions.push_back(b * 5 + t);
      labels.push_back(t + 1 < length ? batch.input_ids[b * 5 + t + 1]
                                      : kIgnoreLabel);
    }
  }
  PretrainingTargets targets{positions.data(), labels.data(), 10, nullptr};
  CheckModelGradients(&model, targets, /*training=*/false);
}

// The mirror: a reverse-causal encoder, every position predicting the
// previous token; [CLS] predicts none.
TEST(PretrainingHeadsGradientTest, RightToLeftEveryPosition) {
  Model model(TinyConfig(AttentionMode::kReverseCausal), false);
  const Batch batch;
  std::vector<int32_t> positions, labels;
  for (int b = 0; b < 2; ++b) {
    const int length = b == 0 ? 5 : 3;
    for (int t = 0; t < 5; ++t) {
      positions.push_back(b * 5 + t);
      labels.push_back(t >= 1 && t < length ? batch.input_ids[b * 5 + t - 1]
                                            : kIgnoreLabel);
    }
  }
  PretrainingTargets targets{positions.data(), labels.data(), 10, nullptr};
  CheckModelGradients(&model, targets, /*training=*/false);
  CheckModelGradients(&model, targets, /*training=*/true);
}

TEST(PretrainingHeadsTest, LossIsTheSumOfItsParts) {
  Model model(TinyConfig(AttentionMode::kBidirectional), true);
  const Batch batch;
  const std::vector<int32_t> positions = {1, 3}, labels = {4, 9};
  const std::vector<int32_t> next_sentence = {1, 1};
  PretrainingTargets targets{positions.data(), labels.data(), 2,
                             next_sentence.data()};
  EncoderActivations<double> encoder_acts(model.config, 2, 5);
  PretrainingHeadActivations<double> head_acts(model.config, 2, 2);
  EncoderForward(model.config, model.encoder, model.params.data(), batch.View(),
                 {}, &encoder_acts);
  const double loss = PretrainingHeadsForward(
      model.config, model.encoder, model.head, model.params.data(),
      encoder_acts.sequence_output(), encoder_acts.pooled_output(), targets, 2,
      5, &head_acts);
  EXPECT_DOUBLE_EQ(loss,
                   head_acts.masked_lm_loss() + head_acts.next_sentence_loss());
  // The masked-LM loss is the mean of -log softmax at the two positions.
  double expected = 0;
  for (int i = 0; i < 2; ++i) {
    const double* row = head_acts.prediction_logits() + i * 13;
    double max = row[0], sum = 0;
    for (int v = 1; v < 13; ++v) max = std::max(max, row[v]);
    for (int v = 0; v < 13; ++v) sum += std::exp(row[v] - max);
    expected += -(row[labels[i]] - max - std::log(sum));
  }
  EXPECT_NEAR(head_acts.masked_lm_loss(), expected / 2, 1e-12);
}

}  // namespace
}  // namespace bertlab
