// Gradient checks of the whole encoder in double precision, in each attention
// mode, with padding and with dropout on (a fixed Philox stream makes the
// dropped function deterministic, hence differentiable), plus determinism.
#include "model/bert/encoder.h"

#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::RandomVector;

// Central differences at h = 1e-6 on a loss of order 10 carry about 1e-9 of
// rounding error, hence the absolute term.
constexpr GradientTolerance kEncoderTolerance{/*step=*/1e-6, /*relative=*/1e-6,
                                              /*absolute=*/1e-8};

// Odd, tiny shapes: V 11, H 6, A 2 (head_dim 3), I 10, L 2, P 7, B 2, T 5.
BertConfig TinyConfig(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 11;
  config.hidden_size = 6;
  config.num_attention_heads = 2;
  config.intermediate_size = 10;
  config.num_hidden_layers = 2;
  config.max_position_embeddings = 7;
  config.type_vocab_size = 2;
  config.hidden_dropout_prob = 0.2;
  config.attention_probs_dropout_prob = 0.3;
  config.attention_mode = mode;
  config.initializer_range = 0.5;  // weights large enough to carry signal
  return config;
}

struct TinyBatch {
  std::vector<int32_t> input_ids = {1, 4, 9, 4, 2, 1, 7, 10, 0, 0};
  std::vector<int32_t> token_type_ids = {0, 0, 0, 1, 1, 0, 0, 1, 1, 1};
  std::vector<int32_t> attention_mask = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
  EncoderBatch View() const {
    return {input_ids.data(), token_type_ids.data(), attention_mask.data(), 2,
            5};
  }
};

// Weights from the initializer, then every entry (biases and LayerNorm
// parameters too) jittered so that no gradient path is trivially zero.
std::vector<double> RandomParameters(const ParameterLayout& layout) {
  std::vector<double> params(layout.total_size());
  InitializeParameters(layout, 7, params.data());
  const std::vector<double> jitter =
      RandomVector(layout.total_size(), 8, -0.2, 0.2);
  for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
  return params;
}

void CheckEncoderGradients(AttentionMode mode, bool training) {
  const BertConfig config = TinyConfig(mode);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  std::vector<double> params = RandomParameters(layout);
  const TinyBatch batch;
  const DropoutSettings dropout{training, /*seed=*/99, /*step=*/3};
  const int64_t n = 2 * 5 * config.hidden_size;
  std::vector<double> sequence_projection = RandomVector(n, 11);
  if (mode == AttentionMode::kReverseCausal) {
    // A padded query of the reverse-causal mask sees only keys that are
    // padding or before it: its whole row is masked, its scores sit at
    // -10000, and double's rounding there (ulp 1.8e-12) over 2h = 2e-6 is
    // ~1e-6 in the central differences, a hundred times the tolerance. So the
    // loss reads the real positions only, as the right-to-left LM's does;
    // padded outputs reach no real position (their keys get probability
    // exp(-10000) = 0), and the op's own check covers such rows
    // (model/ops/attention_test.cc).
    for (int64_t row = 0; row < 2 * 5; ++row) {
      if (batch.attention_mask[row] != 0) continue;
      for (int64_t h = 0; h < config.hidden_size; ++h) {
        sequence_projection[row * config.hidden_size + h] = 0.0;
      }
    }
  }
  const std::vector<double> pooled_projection =
      RandomVector(2 * config.hidden_size, 12);
  EncoderActivations<double> acts(config, 2, 5);

  auto loss = [&] {
    EncoderForward(config, offsets, params.data(), batch.View(), dropout,
                   &acts);
    const std::vector<double> sequence(acts.sequence_output(),
                                       acts.sequence_output() + n);
    const std::vector<double> pooled(
        acts.pooled_output(), acts.pooled_output() + 2 * config.hidden_size);
    return Dot(sequence, sequence_projection) + Dot(pooled, pooled_projection);
  };
  loss();
  std::vector<double> grads(layout.total_size(), 0.0);
  EncoderBackward(config, offsets, params.data(), grads.data(), batch.View(),
                  dropout, sequence_projection.data(), pooled_projection.data(),
                  &acts);
  EXPECT_TRUE(
      GradientMatches("encoder", loss, &params, grads, kEncoderTolerance));

  // Position 4 of sequence 1 is padding and position 5+ does not exist:
  // their rows of the position table get gradient only from sequence 0.
  // Token id 3, 5, 6 and 8 never occur: their embedding rows stay zero.
  const ParameterInfo* word =
      layout.Find("bert.embeddings.word_embeddings.weight");
  for (int id : {3, 5, 6, 8}) {
    for (int h = 0; h < config.hidden_size; ++h) {
      EXPECT_EQ(grads[word->offset + id * config.hidden_size + h], 0.0);
    }
  }
}

TEST(EncoderGradientTest, BidirectionalWithPadding) {
  CheckEncoderGradients(AttentionMode::kBidirectional, /*training=*/false);
}

TEST(EncoderGradientTest, CausalWithPadding) {
  CheckEncoderGradients(AttentionMode::kCausal, /*training=*/false);
}

TEST(EncoderGradientTest, BidirectionalWithDropout) {
  CheckEncoderGradients(AttentionMode::kBidirectional, /*training=*/true);
}

TEST(EncoderGradientTest, CausalWithDropout) {
  CheckEncoderGradients(AttentionMode::kCausal, /*training=*/true);
}

// Changes token 3 of sequence 0 and checks which outputs move: those of
// the positions that may read it (causal: 3 and after; reverse-causal: 3
// and before), no others, and nothing of sequence 1. Returns whether the
// pooled output ([CLS], t = 0) moved.
bool ChangeMovesOnlyTheReaders(AttentionMode mode) {
  const BertConfig config = TinyConfig(mode);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const std::vector<double> params = RandomParameters(layout);
  TinyBatch batch;
  EncoderActivations<double> acts(config, 2, 5);
  EncoderForward(config, offsets, params.data(), batch.View(), {}, &acts);
  const std::vector<double> before(acts.sequence_output(),
                                   acts.sequence_output() + 60);
  const std::vector<double> pooled_before(acts.pooled_output(),
                                          acts.pooled_output() + 12);
  batch.input_ids[3] = 8;  // sequence 0, position 3
  EncoderForward(config, offsets, params.data(), batch.View(), {}, &acts);
  for (int t = 0; t < 5; ++t) {
    const bool reads = mode == AttentionMode::kCausal ? t >= 3 : t <= 3;
    for (int h = 0; h < 6; ++h) {
      const int i = t * 6 + h;
      if (reads) {
        EXPECT_NE(acts.sequence_output()[i], before[i]) << t;
      } else {
        EXPECT_EQ(acts.sequence_output()[i], before[i]) << t;
      }
    }
  }
  for (int i = 30; i < 60; ++i) EXPECT_EQ(acts.sequence_output()[i], before[i]);
  bool pooled_moved = true;
  for (int h = 0; h < 6; ++h) {
    pooled_moved = pooled_moved && acts.pooled_output()[h] != pooled_before[h];
  }
  return pooled_moved;
}

TEST(EncoderTest, CausalOutputsIgnoreLaterTokens) {
  ChangeMovesOnlyTheReaders(AttentionMode::kCausal);
}

TEST(EncoderGradientTest, ReverseCausalWithPadding) {
  CheckEncoderGradients(AttentionMode::kReverseCausal, /*training=*/false);
}

TEST(EncoderGradientTest, ReverseCausalWithDropout) {
  CheckEncoderGradients(AttentionMode::kReverseCausal, /*training=*/true);
}

// The mirror: position t reads tokens t and after only, so [CLS] (t = 0)
// reads them all and the pooled output moves.
TEST(EncoderTest, ReverseCausalOutputsIgnoreEarlierTokens) {
  EXPECT_TRUE(ChangeMovesOnlyTheReaders(AttentionMode::kReverseCausal));
}

TEST(EncoderTest, FloatIsBitIdenticalRunToRunAndCloseToDouble) {
  const BertConfig config = TinyConfig(AttentionMode::kBidirectional);
  ParameterLayout layout;
  const EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const std::vector<double> params = RandomParameters(layout);
  const std::vector<float> params_float(params.begin(), params.end());
  const TinyBatch batch;
  const DropoutSettings dropout{true, 5, 1};
  const std::vector<float> d_sequence(60, 0.5f), d_pooled(12, -0.25f);
  std::vector<float> first_grads, first_outputs;
  for (int run = 0; run < 2; ++run) {
    EncoderActivations<float> acts(config, 2, 5);
    std::vector<float> grads(layout.total_size(), 0.0f);
    EncoderForward(config, offsets, params_float.data(), batch.View(), dropout,
                   &acts);
    EncoderBackward(config, offsets, params_float.data(), grads.data(),
                    batch.View(), dropout, d_sequence.data(), d_pooled.data(),
                    &acts);
    std::vector<float> outputs(acts.sequence_output(),
                               acts.sequence_output() + 60);
    if (run == 0) {
      first_grads = grads;
      first_outputs = outputs;
    } else {
      EXPECT_EQ(grads, first_grads);
      EXPECT_EQ(outputs, first_outputs);
    }
  }
  EncoderActivations<double> acts(config, 2, 5);
  EncoderForward(config, offsets, params.data(), batch.View(), dropout, &acts);
  for (int i = 0; i < 60; ++i) {
    EXPECT_NEAR(first_outputs[i], acts.sequence_output()[i], 1e-5);
  }
}

}  // namespace
}  // namespace bertlab
