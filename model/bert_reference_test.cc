// The whole model against the independent PyTorch reference
// (tools/reference/bert_reference.py, float64): the fixtures hold a tiny
// BertForPreTraining's parameters, a batch with padding, and the reference's
// logits, hidden states, losses and every parameter gradient, for each
// attention mode (bidirectional, causal, reverse causal). The C++ model runs
// in float32 and must match
//   outputs and losses     to 1e-5 relative,
//   parameter gradients    to 1e-4 relative,
// with the comparator of model/testing/reference_fixture.h (padded positions
// of the reverse-causal encoder: see FullyMaskedRowTolerance).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/config.h"
#include "model/bert_for_pretraining.h"
#include "model/testing/reference_fixture.h"

namespace bertlab {
namespace {

using testing::kReferenceGradientTolerance;
using testing::kReferenceOutputTolerance;
using testing::Matches;
using testing::ReferenceFixture;
using testing::Rms;

// A reverse-causal encoder's padded query (right padding) sees only keys that
// are padding or before it, so every score of its row carries the -10000
// mask, and float32 rounds s - 10000 to ulp(10000) = 2^-10: each score is off
// by up to 2^-11 absolute, which moves its softmax by up to 2^-10 relative
// per layer. The reference adds the mask in float64. Those positions are in
// no loss and no real position reads them (their keys get probability 0),
// so they are compared to that bound, L * 2^-10, and every real position to
// kReferenceOutputTolerance as usual.
double FullyMaskedRowTolerance(const BertConfig& config) {
  return static_cast<double>(config.num_hidden_layers) * std::ldexp(1.0, -10);
}

// Compares the (B*T, width) output `ours` with the reference tensor `name`:
// rows of real tokens to kReferenceOutputTolerance, padded rows to
// padded_tolerance; both relative to the whole tensor's rms.
void ExpectRowsMatch(const std::string& name, const float* ours,
                     const std::vector<float>& reference,
                     const std::vector<int32_t>& mask,
                     double padded_tolerance) {
  const size_t width = reference.size() / mask.size();
  const double scale = Rms(reference);
  std::vector<float> real_ours, real_reference, padded_ours, padded_reference;
  for (size_t row = 0; row < mask.size(); ++row) {
    const bool real = mask[row] != 0;
    std::vector<float>& to_ours = real ? real_ours : padded_ours;
    std::vector<float>& to_reference = real ? real_reference : padded_reference;
    to_ours.insert(to_ours.end(), ours + row * width, ours + (row + 1) * width);
    to_reference.insert(to_reference.end(), reference.begin() + row * width,
                        reference.begin() + (row + 1) * width);
  }
  EXPECT_TRUE(Matches(name + " (real positions)", real_ours.data(),
                      real_reference, kReferenceOutputTolerance, scale));
  if (!padded_ours.empty()) {
    EXPECT_TRUE(Matches(name + " (padded positions)", padded_ours.data(),
                        padded_reference, padded_tolerance, scale));
  }
}

void CheckAgainstReference(const std::string& fixture_name) {
  const ReferenceFixture fixture(fixture_name);
  const BertConfig& config = fixture.config();
  const BertForPretraining model(config, /*next_sentence=*/true);
  std::vector<float> params(model.layout().total_size(), 0.0f);
  CheckpointLoadOptions options;
  options.ignore_unexpected_prefixes = {"input.", "output.", "grad."};
  options.ignore_unexpected_prefixes.push_back("grad_masked_lm.");
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(fixture.file(), model.layout(), options, params.data());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->left_initialised.empty());

  const std::vector<int32_t> input_ids = fixture.Ints("input.input_ids");
  const std::vector<int32_t> token_types = fixture.Ints("input.token_type_ids");
  const std::vector<int32_t> mask = fixture.Ints("input.attention_mask");
  const std::vector<int32_t> labels = fixture.Ints("input.masked_lm_labels");
  const std::vector<int32_t> next_sentence =
      fixture.Ints("input.next_sentence_label");
  const int64_t batch = next_sentence.size();
  const int64_t seq_len = input_ids.size() / batch;
  // Every position is predicted, as the reference's prediction_logits are.
  std::vector<int32_t> positions(batch * seq_len);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = i;
  const EncoderBatch encoder_batch{input_ids.data(), token_types.data(),
                                   mask.data(), batch, seq_len};
  PretrainingTargets targets{positions.data(), labels.data(), batch * seq_len,
                             next_sentence.data()};

  PretrainingStepBuffers<float> buffers(config, batch, seq_len,
                                        batch * seq_len);
  std::vector<float> grads(model.layout().total_size(), 0.0f);
  const float loss = PretrainingForwardBackward(
      model, params.data(), grads.data(), encoder_batch, targets,
      DropoutSettings{}, &buffers);

  EXPECT_TRUE(Matches("loss", &loss, fixture.Floats("output.loss"),
                      kReferenceOutputTolerance));
  const float mlm_loss = buffers.heads.masked_lm_loss();
  EXPECT_TRUE(Matches("masked_lm_loss", &mlm_loss,
                      fixture.Floats("output.masked_lm_loss"),
                      kReferenceOutputTolerance));
  const float nsp_loss = buffers.heads.next_sentence_loss();
  EXPECT_TRUE(Matches("next_sentence_loss", &nsp_loss,
                      fixture.Floats("output.next_sentence_loss"),
                      kReferenceOutputTolerance));
  const double padded_tolerance =
      config.attention_mode == AttentionMode::kReverseCausal
          ? FullyMaskedRowTolerance(config)
          : kReferenceOutputTolerance;
  ExpectRowsMatch("prediction_logits", buffers.heads.prediction_logits(),
                  fixture.Floats("output.prediction_logits"), mask,
                  padded_tolerance);
  EXPECT_TRUE(Matches("seq_relationship_logits",
                      buffers.heads.next_sentence_logits(),
                      fixture.Floats("output.seq_relationship_logits"),
                      kReferenceOutputTolerance));
  ExpectRowsMatch("last_hidden_state", buffers.encoder.sequence_output(),
                  fixture.Floats("output.last_hidden_state"), mask,
                  padded_tolerance);
  EXPECT_TRUE(Matches("pooled_output", buffers.encoder.pooled_output(),
                      fixture.Floats("output.pooled_output"),
                      kReferenceOutputTolerance));
  std::vector<float> all_gradients;
  for (const ParameterInfo& info : model.layout().parameters()) {
    const std::vector<float> g = fixture.Floats("grad." + info.name);
    all_gradients.insert(all_gradients.end(), g.begin(), g.end());
  }
  const double gradient_scale = Rms(all_gradients);
  for (const ParameterInfo& info : model.layout().parameters()) {
    EXPECT_TRUE(Matches("grad." + info.name, grads.data() + info.offset,
                        fixture.Floats("grad." + info.name),
                        kReferenceGradientTolerance, gradient_scale));
  }

  // The masked-LM loss alone (the No NSP, LTR and RTL objectives), where the
  // fixture has it.
  if (fixture.file().Find("grad_masked_lm.cls.predictions.bias") != nullptr) {
    const BertForPretraining mlm_only(config, /*next_sentence=*/false);
    std::vector<float> mlm_grads(mlm_only.layout().total_size(), 0.0f);
    targets.next_sentence_labels = nullptr;
    // The NSP-less layout is a prefix of the full one: same offsets.
    PretrainingForwardBackward(mlm_only, params.data(), mlm_grads.data(),
                               encoder_batch, targets, DropoutSettings{},
                               &buffers);
    for (const ParameterInfo& info : mlm_only.layout().parameters()) {
      EXPECT_TRUE(Matches("grad_masked_lm." + info.name,
                          mlm_grads.data() + info.offset,
                          fixture.Floats("grad_masked_lm." + info.name),
                          kReferenceGradientTolerance, gradient_scale));
    }
  }
}

TEST(BertReferenceTest, BidirectionalMatchesPyTorch) {
  CheckAgainstReference("bert_reference_bidirectional.safetensors");
}

TEST(BertReferenceTest, CausalMatchesPyTorch) {
  CheckAgainstReference("bert_reference_causal.safetensors");
}

// The right-to-left LM's encoder (each position sees itself and what
// follows) with its labels, every position predicting the previous token.
TEST(BertReferenceTest, ReverseCausalMatchesPyTorch) {
  const ReferenceFixture fixture("bert_reference_reverse_causal.safetensors");
  ASSERT_EQ(fixture.config().attention_mode, AttentionMode::kReverseCausal);
  CheckAgainstReference("bert_reference_reverse_causal.safetensors");
}

}  // namespace
}  // namespace bertlab
