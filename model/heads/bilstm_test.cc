// Tests of the "+ BiLSTM" layer: its parameters, a naive scalar reference of
// both directions over each sequence's real tokens, padding that changes no
// real output, the pooled summary, and gradient checks in double at odd, tiny
// shapes (B 3, T 5, H 6, Hd 3) of the BiLSTM alone, under a pooled
// classifier (dropout on) and under the span head, and of the whole
// encoder + BiLSTM + classifier.
#include "model/heads/bilstm.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/encoder.h"
#include "model/bert/initialize.h"
#include "model/heads/classifier_head.h"
#include "model/heads/span_head.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace {

using testing::Dot;
using testing::GradientMatches;
using testing::GradientTolerance;
using testing::kInputGradientGarbage;
using testing::kParameterGradientPrefill;
using testing::MinusPrefill;
using testing::Prefilled;
using testing::RandomVector;

constexpr GradientTolerance kTolerance{/*step=*/1e-6, /*relative=*/1e-6,
                                       /*absolute=*/1e-9};
constexpr int64_t kBatch = 3;
constexpr int64_t kSeqLen = 5;
constexpr int64_t kHidden = 6;  // H; Hd = 3
// Sequence lengths 5, 3 and 1.
const std::vector<int32_t> kMask = {1, 1, 1, 1, 1,  //
                                    1, 1, 1, 0, 0,  //
                                    1, 0, 0, 0, 0};
const std::vector<int32_t> kLengths = {5, 3, 1};

BertConfig TinyConfig() {
  BertConfig config;
  config.vocab_size = 11;
  config.hidden_size = kHidden;
  config.num_attention_heads = 2;
  config.intermediate_size = 10;
  config.num_hidden_layers = 1;
  config.max_position_embeddings = 7;
  config.type_vocab_size = 2;
  config.hidden_dropout_prob = 0.2;
  config.attention_probs_dropout_prob = 0.2;
  config.initializer_range = 0.5;
  return config;
}

// The BiLSTM's parameters (and optionally a classifier or span head after
// them) in one layout, initialised then jittered.
struct Model {
  Model() : config(TinyConfig()) {
    bilstm = AddBiLstmParameters(config, {}, &layout);
    classifier = AddClassifierHeadParameters(config, 3, &layout);
    span = AddSpanHeadParameters(config, &layout);
    params.resize(layout.total_size());
    InitializeParameters(layout, 41, params.data());
    const std::vector<double> jitter =
        RandomVector(layout.total_size(), 42, -0.2, 0.2);
    for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];
    input = RandomVector(kBatch * kSeqLen * kHidden, 43, -1.5, 1.5);
  }
  BertConfig config;
  ParameterLayout layout;
  BiLstmOffsets bilstm;
  ClassifierHeadOffsets classifier;
  SpanHeadOffsets span;
  std::vector<double> params;
  std::vector<double> input;  // (B*T, H) what the encoder would give
};

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// One LSTM direction, scalar and straight from the PyTorch formulas, over
// the steps x[order[0]], x[order[1]], ...; writes h at each visited step.
void NaiveLstm(const double* x,  // (T, H)
               const std::vector<int64_t>& order, const double* params,
               const LstmDirectionOffsets& offsets, int64_t input_size,
               int64_t hidden, double* out) {  // (T, Hd)
  std::vector<double> h(hidden, 0.0), c(hidden, 0.0), gates(4 * hidden);
  const double* w_ih = params + offsets.weight_ih;
  const double* w_hh = params + offsets.weight_hh;
  for (int64_t t : order) {
    for (int64_t k = 0; k < 4 * hidden; ++k) {
      double sum = params[offsets.bias_ih + k] + params[offsets.bias_hh + k];
      for (int64_t j = 0; j < input_size; ++j) {
        sum += w_ih[k * input_size + j] * x[t * input_size + j];
      }
      for (int64_t j = 0; j < hidden; ++j) sum += w_hh[k * hidden + j] * h[j];
      gates[k] = sum;
    }
    for (int64_t k = 0; k < hidden; ++k) {
      const double i = Sigmoid(gates[k]), f = Sigmoid(gates[hidden + k]);
      const double g = std::tanh(gates[2 * hidden + k]);
      const double o = Sigmoid(gates[3 * hidden + k]);
      c[k] = f * c[k] + i * g;
      h[k] = o * std::tanh(c[k]);
      out[t * hidden + k] = h[k];
    }
  }
}

TEST(BiLstmTest, ParametersUnderPyTorchNames) {
  const BertConfig config = TinyConfig();
  ParameterLayout layout;
  const BiLstmOffsets offsets = AddBiLstmParameters(config, {}, &layout);
  EXPECT_EQ(offsets.input_size, kHidden);
  EXPECT_EQ(offsets.hidden_size, kHidden / 2);
  EXPECT_EQ(offsets.output_size(), kHidden);
  const int64_t hd = kHidden / 2;
  for (const char* suffix : {"", "_reverse"}) {
    const std::string s = suffix;
    const ParameterInfo* w_ih = layout.Find("bilstm.weight_ih_l0" + s);
    const ParameterInfo* w_hh = layout.Find("bilstm.weight_hh_l0" + s);
    const ParameterInfo* b_ih = layout.Find("bilstm.bias_ih_l0" + s);
    const ParameterInfo* b_hh = layout.Find("bilstm.bias_hh_l0" + s);
    ASSERT_NE(w_ih, nullptr) << s;
    ASSERT_NE(w_hh, nullptr) << s;
    ASSERT_NE(b_ih, nullptr) << s;
    ASSERT_NE(b_hh, nullptr) << s;
    EXPECT_EQ(w_ih->shape, (std::vector<int64_t>{4 * hd, kHidden}));
    EXPECT_EQ(w_hh->shape, (std::vector<int64_t>{4 * hd, hd}));
    EXPECT_EQ(b_ih->shape, (std::vector<int64_t>{4 * hd}));
    EXPECT_EQ(b_hh->shape, (std::vector<int64_t>{4 * hd}));
    for (const ParameterInfo* p : {w_ih, w_hh, b_ih, b_hh}) {
      EXPECT_EQ(p->initializer.kind, Initializer::Kind::kUniform) << p->name;
      EXPECT_DOUBLE_EQ(p->initializer.scale, 1 / std::sqrt(3.0)) << p->name;
    }
  }
  EXPECT_EQ(layout.Find("bilstm.weight_ih_l0")->offset,
            offsets.forward.weight_ih);
  EXPECT_EQ(layout.Find("bilstm.bias_hh_l0_reverse")->offset,
            offsets.reverse.bias_hh);
  EXPECT_EQ(layout.total_size(), BiLstmParameterCount(kHidden, hd));
  EXPECT_EQ(BiLstmParameterCount(kHidden, hd), 2 * 4 * 3 * (6 + 3 + 2));
  EXPECT_EQ(BiLstmParameterCount(768, 384), 3545088);
}

TEST(BiLstmTest, ExplicitHiddenSize) {
  BertConfig config = TinyConfig();
  config.hidden_size = 7;
  ParameterLayout layout;
  const BiLstmOffsets offsets = AddBiLstmParameters(config, {5}, &layout);
  EXPECT_EQ(offsets.hidden_size, 5);
  EXPECT_EQ(offsets.output_size(), 10);
  EXPECT_EQ(layout.Find("bilstm.weight_hh_l0_reverse")->shape,
            (std::vector<int64_t>{20, 5}));
  EXPECT_EQ(layout.total_size(), BiLstmParameterCount(7, 5));
}

TEST(BiLstmDeathTest, DefaultWidthNeedsEvenHidden) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  BertConfig config = TinyConfig();
  config.hidden_size = 7;
  ParameterLayout layout;
  EXPECT_DEATH(AddBiLstmParameters(config, {}, &layout), "needs an even H");
}

TEST(BiLstmDeathTest, PaddingMustBeAtTheEnd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::vector<int32_t> lengths(2);
  const std::vector<int32_t> holes = {1, 0, 1, 1, 1, 0};
  EXPECT_DEATH(SequenceLengthsFromMask(lengths.data(), holes.data(), 2, 3),
               "needs padding at the end");
  const std::vector<int32_t> empty = {1, 1, 1, 0, 0, 0};
  EXPECT_DEATH(SequenceLengthsFromMask(lengths.data(), empty.data(), 2, 3),
               "sequence 1 has no real token");
}

TEST(BiLstmTest, MatchesNaiveReferenceOverRealTokens) {
  Model model;
  BiLstmActivations<double> acts(model.bilstm, kBatch, kSeqLen);
  BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                kMask.data(), kBatch, kSeqLen, &acts);
  const int64_t hd = model.bilstm.hidden_size;
  for (int64_t b = 0; b < kBatch; ++b) {
    EXPECT_EQ(acts.lengths()[b], kLengths[b]);
    const int64_t length = kLengths[b];
    std::vector<int64_t> forward_order, reverse_order;
    for (int64_t t = 0; t < length; ++t) forward_order.push_back(t);
    for (int64_t t = length - 1; t >= 0; --t) reverse_order.push_back(t);
    std::vector<double> forward_h(kSeqLen * hd), reverse_h(kSeqLen * hd);
    const double* x = model.input.data() + b * kSeqLen * kHidden;
    NaiveLstm(x, forward_order, model.params.data(), model.bilstm.forward,
              kHidden, hd, forward_h.data());
    NaiveLstm(x, reverse_order, model.params.data(), model.bilstm.reverse,
              kHidden, hd, reverse_h.data());
    for (int64_t t = 0; t < kSeqLen; ++t) {
      const double* out = acts.output() + (b * kSeqLen + t) * 2 * hd;
      for (int64_t k = 0; k < hd; ++k) {
        if (t < length) {
          EXPECT_NEAR(out[k], forward_h[t * hd + k], 1e-13) << b << "," << t;
          EXPECT_NEAR(out[hd + k], reverse_h[t * hd + k], 1e-13)
              << b << "," << t;
        } else {
          EXPECT_EQ(out[k], 0.0) << b << "," << t;
          EXPECT_EQ(out[hd + k], 0.0) << b << "," << t;
        }
      }
    }
  }
}

// A sequence's real outputs are the same padded or alone, and whatever the
// padded positions hold.
TEST(BiLstmTest, PaddingDoesNotChangeRealPositions) {
  Model model;
  const int64_t width = model.bilstm.output_size();
  BiLstmActivations<double> padded(model.bilstm, kBatch, kSeqLen);
  BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                kMask.data(), kBatch, kSeqLen, &padded);

  // Sequence 1 (3 real tokens) alone, without padding or mask.
  const int64_t length = kLengths[1];
  const std::vector<double> alone_input(
      model.input.begin() + 1 * kSeqLen * kHidden,
      model.input.begin() + (1 * kSeqLen + length) * kHidden);
  BiLstmActivations<double> alone(model.bilstm, 1, length);
  BiLstmForward(model.bilstm, model.params.data(), alone_input.data(),
                static_cast<const int32_t*>(nullptr), 1, length, &alone);
  for (int64_t i = 0; i < length * width; ++i) {
    EXPECT_NEAR(padded.output()[1 * kSeqLen * width + i], alone.output()[i],
                1e-14)
        << i;
  }

  // New values at every padded position change nothing.
  std::vector<double> other_padding = model.input;
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t t = kLengths[b]; t < kSeqLen; ++t) {
      for (int64_t h = 0; h < kHidden; ++h) {
        other_padding[(b * kSeqLen + t) * kHidden + h] = 100.0 + h;
      }
    }
  }
  BiLstmActivations<double> repadded(model.bilstm, kBatch, kSeqLen);
  BiLstmForward(model.bilstm, model.params.data(), other_padding.data(),
                kMask.data(), kBatch, kSeqLen, &repadded);
  for (int64_t i = 0; i < kBatch * kSeqLen * width; ++i) {
    EXPECT_NEAR(repadded.output()[i], padded.output()[i], 1e-14) << i;
  }
}

TEST(BiLstmTest, PooledIsLastForwardAndFirstReverseState) {
  Model model;
  const int64_t hd = model.bilstm.hidden_size;
  BiLstmActivations<double> acts(model.bilstm, kBatch, kSeqLen);
  BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                kMask.data(), kBatch, kSeqLen, &acts);
  std::vector<double> pooled(kBatch * 2 * hd);
  BiLstmPoolForward(pooled.data(), acts.output(), acts.lengths(), kBatch,
                    kSeqLen, hd);
  for (int64_t b = 0; b < kBatch; ++b) {
    const double* last =
        acts.output() + (b * kSeqLen + kLengths[b] - 1) * 2 * hd;
    const double* first = acts.output() + b * kSeqLen * 2 * hd;
    for (int64_t k = 0; k < hd; ++k) {
      EXPECT_EQ(pooled[b * 2 * hd + k], last[k]);
      EXPECT_EQ(pooled[b * 2 * hd + hd + k], first[hd + k]);
    }
  }
  // Its backward puts d_pooled back there and zeros elsewhere.
  const std::vector<double> d_pooled = RandomVector(kBatch * 2 * hd, 44);
  std::vector<double> d_output(kBatch * kSeqLen * 2 * hd,
                               kInputGradientGarbage);
  BiLstmPoolBackward(d_output.data(), d_pooled.data(), acts.lengths(), kBatch,
                     kSeqLen, hd);
  std::vector<double> check(kBatch * 2 * hd);
  BiLstmPoolForward(check.data(), d_output.data(), acts.lengths(), kBatch,
                    kSeqLen, hd);
  EXPECT_EQ(check, d_pooled);
  EXPECT_DOUBLE_EQ(Dot(d_output, d_output), Dot(d_pooled, d_pooled));
}

// loss = output . projection, with padding: every parameter and the input.
TEST(BiLstmGradientTest, SequenceOutput) {
  Model model;
  const int64_t width = model.bilstm.output_size();
  const std::vector<double> projection =
      RandomVector(kBatch * kSeqLen * width, 45);
  BiLstmActivations<double> acts(model.bilstm, kBatch, kSeqLen);
  auto loss = [&] {
    BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                  kMask.data(), kBatch, kSeqLen, &acts);
    const std::vector<double> output(acts.output(),
                                     acts.output() + projection.size());
    return Dot(output, projection);
  };
  loss();
  std::vector<double> grads =
      Prefilled(model.layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_input =
      Prefilled(kBatch * kSeqLen * kHidden, kInputGradientGarbage);
  BiLstmBackward(model.bilstm, model.params.data(), grads.data(),
                 model.input.data(), projection.data(), kBatch, kSeqLen, &acts,
                 d_input.data());
  EXPECT_TRUE(GradientMatches("bilstm parameters", loss, &model.params,
                              MinusPrefill(grads), kTolerance));
  EXPECT_TRUE(GradientMatches("bilstm d_input", loss, &model.input, d_input,
                              kTolerance));
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t t = kLengths[b]; t < kSeqLen; ++t) {
      for (int64_t h = 0; h < kHidden; ++h) {
        EXPECT_EQ(d_input[(b * kSeqLen + t) * kHidden + h], 0.0);
      }
    }
  }
  // Without d_input the parameter gradients are the same.
  std::vector<double> grads_again =
      Prefilled(model.layout.total_size(), kParameterGradientPrefill);
  BiLstmBackward(model.bilstm, model.params.data(), grads_again.data(),
                 model.input.data(), projection.data(), kBatch, kSeqLen, &acts,
                 static_cast<double*>(nullptr));
  for (size_t i = 0; i < grads.size(); ++i) {
    EXPECT_NEAR(grads_again[i], grads[i], 1e-14) << i;
  }
}

// BiLSTM -> pooled summary -> classifier with dropout on.
TEST(BiLstmGradientTest, UnderPooledClassifier) {
  Model model;
  const int64_t width = model.bilstm.output_size();
  const std::vector<int32_t> labels = {2, 0, 1};
  const ClassifierTargets targets{labels.data(), nullptr};
  const DropoutSettings dropout{true, 51, 6};
  BiLstmActivations<double> acts(model.bilstm, kBatch, kSeqLen);
  ClassifierHeadActivations<double> head_acts(model.config, 3, kBatch);
  std::vector<double> pooled(kBatch * width);
  auto loss = [&] {
    BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                  kMask.data(), kBatch, kSeqLen, &acts);
    BiLstmPoolForward(pooled.data(), acts.output(), acts.lengths(), kBatch,
                      kSeqLen, model.bilstm.hidden_size);
    return ClassifierHeadForward(model.config, model.classifier,
                                 model.params.data(), pooled.data(), targets,
                                 kBatch, dropout, &head_acts);
  };
  EXPECT_GT(loss(), 0.0);
  std::vector<double> grads =
      Prefilled(model.layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_pooled(kBatch * width, kInputGradientGarbage);
  std::vector<double> d_output(kBatch * kSeqLen * width, kInputGradientGarbage);
  std::vector<double> d_input(kBatch * kSeqLen * kHidden,
                              kInputGradientGarbage);
  ClassifierHeadBackward(model.config, model.classifier, model.params.data(),
                         grads.data(), targets, kBatch, dropout, &head_acts,
                         d_pooled.data());
  BiLstmPoolBackward(d_output.data(), d_pooled.data(), acts.lengths(), kBatch,
                     kSeqLen, model.bilstm.hidden_size);
  BiLstmBackward(model.bilstm, model.params.data(), grads.data(),
                 model.input.data(), d_output.data(), kBatch, kSeqLen, &acts,
                 d_input.data());
  EXPECT_TRUE(GradientMatches("bilstm + classifier parameters", loss,
                              &model.params, MinusPrefill(grads), kTolerance));
  EXPECT_TRUE(GradientMatches("bilstm + classifier d_input", loss, &model.input,
                              d_input, kTolerance));
}

// BiLSTM -> span head on the sequence output.
TEST(BiLstmGradientTest, UnderSpanHead) {
  Model model;
  const int64_t width = model.bilstm.output_size();
  const std::vector<int32_t> start = {3, 1, 0}, end = {4, 2, kIgnoreLabel};
  const SpanTargets targets{start.data(), end.data()};
  BiLstmActivations<double> acts(model.bilstm, kBatch, kSeqLen);
  SpanHeadActivations<double> head_acts(model.config, kBatch, kSeqLen);
  auto loss = [&] {
    BiLstmForward(model.bilstm, model.params.data(), model.input.data(),
                  kMask.data(), kBatch, kSeqLen, &acts);
    return SpanHeadForward(model.config, model.span, model.params.data(),
                           acts.output(), targets, kBatch, kSeqLen, &head_acts);
  };
  EXPECT_GT(loss(), 0.0);
  std::vector<double> grads =
      Prefilled(model.layout.total_size(), kParameterGradientPrefill);
  std::vector<double> d_output(kBatch * kSeqLen * width, kInputGradientGarbage);
  std::vector<double> d_input(kBatch * kSeqLen * kHidden,
                              kInputGradientGarbage);
  SpanHeadBackward(model.config, model.span, model.params.data(), grads.data(),
                   acts.output(), targets, kBatch, kSeqLen, &head_acts,
                   d_output.data());
  BiLstmBackward(model.bilstm, model.params.data(), grads.data(),
                 model.input.data(), d_output.data(), kBatch, kSeqLen, &acts,
                 d_input.data());
  EXPECT_TRUE(GradientMatches("bilstm + span parameters", loss, &model.params,
                              MinusPrefill(grads), kTolerance));
  EXPECT_TRUE(GradientMatches("bilstm + span d_input", loss, &model.input,
                              d_input, kTolerance));
}

// The whole "+ BiLSTM" classifier: encoder (dropout on) -> BiLSTM -> pooled
// summary -> classifier, every parameter of the layout.
TEST(BiLstmGradientTest, EncoderBiLstmClassifier) {
  const BertConfig config = TinyConfig();
  ParameterLayout layout;
  const EncoderOffsets encoder = AddEncoderParameters(config, &layout);
  const BiLstmOffsets bilstm = AddBiLstmParameters(config, {}, &layout);
  const ClassifierHeadOffsets classifier =
      AddClassifierHeadParameters(config, 2, &layout);
  std::vector<double> params(layout.total_size());
  InitializeParameters(layout, 61, params.data());
  const std::vector<double> jitter =
      RandomVector(layout.total_size(), 62, -0.2, 0.2);
  for (size_t i = 0; i < params.size(); ++i) params[i] += jitter[i];

  const std::vector<int32_t> input_ids = {2, 5, 10, 5, 3, 2, 7, 9,
                                          0, 0, 2,  4, 0, 0, 0};
  const std::vector<int32_t> token_types = {0, 0, 0, 1, 1, 0, 0, 1,
                                            1, 1, 0, 0, 0, 0, 0};
  const EncoderBatch batch{input_ids.data(), token_types.data(), kMask.data(),
                           kBatch, kSeqLen};
  const std::vector<int32_t> labels = {1, 0, 1};
  const ClassifierTargets targets{labels.data(), nullptr};
  const DropoutSettings dropout{true, 71, 8};
  const int64_t width = bilstm.output_size();

  EncoderActivations<double> encoder_acts(config, kBatch, kSeqLen);
  BiLstmActivations<double> bilstm_acts(bilstm, kBatch, kSeqLen);
  ClassifierHeadActivations<double> head_acts(config, 2, kBatch);
  std::vector<double> pooled(kBatch * width);
  auto loss = [&] {
    EncoderForward(config, encoder, params.data(), batch, dropout,
                   &encoder_acts);
    BiLstmForward(bilstm, params.data(), encoder_acts.sequence_output(),
                  kMask.data(), kBatch, kSeqLen, &bilstm_acts);
    BiLstmPoolForward(pooled.data(), bilstm_acts.output(),
                      bilstm_acts.lengths(), kBatch, kSeqLen,
                      bilstm.hidden_size);
    return ClassifierHeadForward(config, classifier, params.data(),
                                 pooled.data(), targets, kBatch, dropout,
                                 &head_acts);
  };
  const double value = loss();
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_GT(value, 0.0);
  std::vector<double> grads(layout.total_size(), 0.0);
  std::vector<double> d_pooled(kBatch * width);
  std::vector<double> d_bilstm(kBatch * kSeqLen * width);
  std::vector<double> d_sequence(kBatch * kSeqLen * kHidden);
  ClassifierHeadBackward(config, classifier, params.data(), grads.data(),
                         targets, kBatch, dropout, &head_acts, d_pooled.data());
  BiLstmPoolBackward(d_bilstm.data(), d_pooled.data(), bilstm_acts.lengths(),
                     kBatch, kSeqLen, bilstm.hidden_size);
  BiLstmBackward(bilstm, params.data(), grads.data(),
                 encoder_acts.sequence_output(), d_bilstm.data(), kBatch,
                 kSeqLen, &bilstm_acts, d_sequence.data());
  EncoderBackward(config, encoder, params.data(), grads.data(), batch, dropout,
                  d_sequence.data(), static_cast<const double*>(nullptr),
                  &encoder_acts);
  EXPECT_TRUE(GradientMatches("encoder + BiLSTM + classifier", loss, &params,
                              grads, kTolerance));
}

}  // namespace
}  // namespace bertlab
