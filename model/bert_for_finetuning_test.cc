// The fine-tuning model end to end in double: every parameter gradient of
// encoder (+ BiLSTM) + head against central differences, for each head, with
// and without the BiLSTM, bidirectional and causal (the pooler on the last
// real token), with dropout on and padded rows. Tolerances: relative 1e-5 at
// step 1e-6 in double (the composed graph is deeper than one op's).
#include "model/bert_for_finetuning.h"

#include <stdint.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using ::bertlab::testing::GradientMatches;
using ::bertlab::testing::GradientTolerance;
using ::bertlab::testing::Prefilled;
using ::bertlab::testing::RandomVector;

BertConfig TinyConfig(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 13;
  config.hidden_size = 6;
  config.num_attention_heads = 2;
  config.intermediate_size = 10;
  config.num_hidden_layers = 1;
  config.max_position_embeddings = 8;
  config.type_vocab_size = 2;
  config.hidden_dropout_prob = 0.2;
  config.attention_probs_dropout_prob = 0.25;
  config.attention_mode = mode;
  config.initializer_range = 0.5;
  return config;
}

// `rows` rows of T = 6 tokens; row r has 6 - (r % 3) real tokens.
struct Rows {
  Rows(int64_t rows, int64_t vocab, bool last_token_pooling) : rows(rows) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = kSeqLen - r % 3;
      for (int64_t t = 0; t < kSeqLen; ++t) {
        const bool real = t < length;
        ids.push_back(real ? static_cast<int32_t>((r * 7 + t * 3) % vocab) : 0);
        types.push_back(real && t >= length / 2 ? 1 : 0);
        mask.push_back(real ? 1 : 0);
      }
      pooled.push_back(last_token_pooling ? static_cast<int32_t>(length - 1)
                                          : 0);
    }
  }
  EncoderBatch View() const {
    EncoderBatch batch;
    batch.input_ids = ids.data();
    batch.token_type_ids = types.data();
    batch.attention_mask = mask.data();
    batch.pooled_positions = pooled.data();
    batch.batch = rows;
    batch.seq_len = kSeqLen;
    return batch;
  }
  static constexpr int64_t kSeqLen = 6;
  int64_t rows;
  std::vector<int32_t> ids, types, mask, pooled;
};

struct Case {
  std::string name;
  FinetuneModelOptions options;
  AttentionMode mode = AttentionMode::kBidirectional;
};

void CheckGradients(const Case& c) {
  SCOPED_TRACE(c.name);
  const BertConfig config = TinyConfig(c.mode);
  const BertForFinetuning model(config, c.options);
  std::vector<double> params(model.layout().total_size());
  InitializeParameters(model.layout(), 5, params.data());

  const int64_t rows =
      c.options.head == FinetuneHead::kMultipleChoice ? 2 * 3 : 3;
  const Rows batch(rows, config.vocab_size, c.mode == AttentionMode::kCausal);
  std::vector<int32_t> labels = {1, 0, 2};
  std::vector<float> scores = {0.5f, -1.25f, 2.0f};
  std::vector<int32_t> starts = {1, 0, 3}, ends = {2, 0, 3};
  FinetuneTargets targets;
  if (c.options.head == FinetuneHead::kSpan) {
    targets.start_positions = starts.data();
    targets.end_positions = ends.data();
  } else if (c.options.head == FinetuneHead::kClassifier &&
             c.options.num_labels == 1) {
    targets.scores = scores.data();
  } else {
    labels.resize(c.options.head == FinetuneHead::kMultipleChoice ? 2 : 3);
    targets.labels = labels.data();
  }
  const DropoutSettings dropout{true, 31, 2};
  FinetuneStepBuffers<double> buffers(model, rows, Rows::kSeqLen);

  std::vector<double> grads = Prefilled(params.size(), 0.0);
  const double loss =
      FinetuneForwardBackward(model, params.data(), grads.data(), batch.View(),
                              targets, dropout, &buffers);
  EXPECT_GT(loss, 0.0);
  auto recompute = [&] {
    return FinetuneForward(model, params.data(), batch.View(), targets, dropout,
                           &buffers);
  };
  GradientTolerance tolerance;
  tolerance.relative = 1e-5;
  tolerance.absolute = 1e-8;
  EXPECT_TRUE(GradientMatches(c.name, recompute, &params, grads, tolerance));
}

FinetuneModelOptions Options(FinetuneHead head, int64_t num_labels,
                             bool bilstm) {
  FinetuneModelOptions options;
  options.head = head;
  options.num_labels = num_labels;
  options.num_choices = 3;
  options.bilstm = bilstm;
  return options;
}

TEST(BertForFinetuningTest, ClassifierGradients) {
  CheckGradients({"classifier", Options(FinetuneHead::kClassifier, 3, false)});
}

TEST(BertForFinetuningTest, RegressionGradients) {
  CheckGradients({"regression", Options(FinetuneHead::kClassifier, 1, false)});
}

TEST(BertForFinetuningTest, SpanGradients) {
  CheckGradients({"span", Options(FinetuneHead::kSpan, 0, false)});
}

TEST(BertForFinetuningTest, MultipleChoiceGradients) {
  CheckGradients(
      {"multiple choice", Options(FinetuneHead::kMultipleChoice, 0, false)});
}

TEST(BertForFinetuningTest, CausalClassifierOnLastTokenGradients) {
  CheckGradients({"causal classifier",
                  Options(FinetuneHead::kClassifier, 3, false),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmClassifierGradients) {
  CheckGradients({"bilstm classifier",
                  Options(FinetuneHead::kClassifier, 3, true),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmSpanGradients) {
  CheckGradients({"bilstm span", Options(FinetuneHead::kSpan, 0, true),
                  AttentionMode::kCausal});
}

TEST(BertForFinetuningTest, BiLstmMultipleChoiceGradients) {
  CheckGradients({"bilstm multiple choice",
                  Options(FinetuneHead::kMultipleChoice, 0, true)});
}

// A causal encoder's [CLS] sees only itself, so pooling it gives the same
// vector for different inputs; the last real token does not.
TEST(BertForFinetuningTest, CausalPoolingOnLastTokenSeesTheInput) {
  const BertConfig config = TinyConfig(AttentionMode::kCausal);
  const BertForFinetuning model(config,
                                Options(FinetuneHead::kClassifier, 2, false));
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 5, params.data());
  for (const bool last_token : {false, true}) {
    Rows batch(2, config.vocab_size, last_token);
    // Same first token, different rest.
    for (int64_t t = 1; t < Rows::kSeqLen; ++t) {
      batch.ids[Rows::kSeqLen + t] = (batch.ids[t] + 1) % config.vocab_size;
    }
    batch.ids[Rows::kSeqLen] = batch.ids[0];
    std::fill(batch.mask.begin(), batch.mask.end(), 1);
    std::fill(batch.types.begin(), batch.types.end(), 0);
    if (last_token) batch.pooled = {5, 5};
    FinetuneStepBuffers<float> buffers(model, 2, Rows::kSeqLen);
    FinetuneForward(model, params.data(), batch.View(), FinetuneTargets{},
                    DropoutSettings{}, &buffers);
    const float* logits = buffers.classifier->logits();
    if (last_token) {
      EXPECT_NE(logits[0], logits[2]);
    } else {
      EXPECT_EQ(logits[0], logits[2]);
      EXPECT_EQ(logits[1], logits[3]);
    }
  }
}

}  // namespace
}  // namespace bertlab
