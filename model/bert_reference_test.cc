// The whole model against the independent PyTorch reference
// (tools/reference/bert_reference.py, float64): the fixtures hold a tiny
// BertForPreTraining's parameters, a batch with padding, and the reference's
// logits, hidden states, losses and every parameter gradient. The C++ model
// runs in float32 and must match
//   outputs and losses     to 1e-5 relative,
//   parameter gradients    to 1e-4 relative,
// where "relative" for an entry r of a reference tensor R means
// |ours - r| <= tolerance * (|r| + scale), with scale = rms(R) for outputs and
// the rms of all the model's reference gradients for gradients: the scale
// keeps entries that sit near zero from demanding absolute precision beyond
// float's. (The key biases' gradients are exactly zero in exact arithmetic,
// softmax being blind to a shift shared by a row's scores; float leaves
// ~1e-9 there.)
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/check.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/config.h"
#include "model/bert_for_pretraining.h"
#include "model/safetensors.h"

namespace bertlab {
namespace {

constexpr double kOutputTolerance = 1e-5;
constexpr double kGradientTolerance = 1e-4;

struct Fixture {
  explicit Fixture(const std::string& name) {
    const std::string path = "model/testdata/" + name;
    absl::StatusOr<SafetensorsFile> opened = SafetensorsFile::Open(path);
    CHECK_OK(opened.status());
    file = std::make_unique<SafetensorsFile>(std::move(*opened));
    auto it = file->metadata().find("config");
    CHECK(it != file->metadata().end()) << path << " has no config";
    config = ParseConfigJson(it->second, path).value();
  }
  std::vector<float> Floats(const std::string& name) const {
    absl::StatusOr<std::vector<float>> values = file->ReadFloat32(name);
    CHECK_OK(values.status());
    return *values;
  }
  std::vector<int32_t> Ints(const std::string& name) const {
    absl::StatusOr<std::vector<int64_t>> values = file->ReadInt64(name);
    CHECK_OK(values.status());
    return std::vector<int32_t>(values->begin(), values->end());
  }
  std::unique_ptr<SafetensorsFile> file;
  BertConfig config;
};

double Rms(const std::vector<float>& values) {
  double sum_squares = 0;
  for (float v : values) sum_squares += double(v) * v;
  return std::sqrt(sum_squares / std::max<size_t>(1, values.size()));
}

// scale < 0: use rms(reference).
::testing::AssertionResult Matches(const std::string& what, const float* ours,
                                   const std::vector<float>& reference,
                                   double tolerance, double scale = -1) {
  const double rms = scale >= 0 ? scale : Rms(reference);
  size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double allowed = tolerance * (std::abs(reference[i]) + rms);
    const double error = std::abs(double(ours[i]) - reference[i]);
    const double ratio = allowed > 0 ? error / allowed : (error > 0 ? 1e9 : 0);
    if (!(ratio <= 1)) ++bad;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << bad << " of " << reference.size()
         << " entries off; worst [" << worst << "] ours=" << ours[worst]
         << " reference=" << reference[worst] << " (" << worst_ratio
         << "x the allowed error)";
}

void CheckAgainstReference(const std::string& fixture_name) {
  const Fixture fixture(fixture_name);
  const BertConfig& config = fixture.config;
  const BertForPretraining model(config, /*next_sentence=*/true);
  std::vector<float> params(model.layout().total_size(), 0.0f);
  CheckpointLoadOptions options;
  options.ignore_unexpected_prefixes = {"input.", "output.", "grad."};
  options.ignore_unexpected_prefixes.push_back("grad_masked_lm.");
  absl::StatusOr<CheckpointLoadReport> report =
      LoadParameters(*fixture.file, model.layout(), options, params.data());
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

  EXPECT_TRUE(
      Matches("loss", &loss, fixture.Floats("output.loss"), kOutputTolerance));
  const float mlm_loss = buffers.heads.masked_lm_loss();
  EXPECT_TRUE(Matches("masked_lm_loss", &mlm_loss,
                      fixture.Floats("output.masked_lm_loss"),
                      kOutputTolerance));
  const float nsp_loss = buffers.heads.next_sentence_loss();
  EXPECT_TRUE(Matches("next_sentence_loss", &nsp_loss,
                      fixture.Floats("output.next_sentence_loss"),
                      kOutputTolerance));
  EXPECT_TRUE(Matches("prediction_logits", buffers.heads.prediction_logits(),
                      fixture.Floats("output.prediction_logits"),
                      kOutputTolerance));
  EXPECT_TRUE(Matches(
      "seq_relationship_logits", buffers.heads.next_sentence_logits(),
      fixture.Floats("output.seq_relationship_logits"), kOutputTolerance));
  EXPECT_TRUE(Matches("last_hidden_state", buffers.encoder.sequence_output(),
                      fixture.Floats("output.last_hidden_state"),
                      kOutputTolerance));
  EXPECT_TRUE(Matches("pooled_output", buffers.encoder.pooled_output(),
                      fixture.Floats("output.pooled_output"),
                      kOutputTolerance));
  std::vector<float> all_gradients;
  for (const ParameterInfo& info : model.layout().parameters()) {
    const std::vector<float> g = fixture.Floats("grad." + info.name);
    all_gradients.insert(all_gradients.end(), g.begin(), g.end());
  }
  const double gradient_scale = Rms(all_gradients);
  for (const ParameterInfo& info : model.layout().parameters()) {
    EXPECT_TRUE(Matches("grad." + info.name, grads.data() + info.offset,
                        fixture.Floats("grad." + info.name), kGradientTolerance,
                        gradient_scale));
  }

  // The masked-LM loss alone (the No NSP and LTR objectives), where the
  // fixture has it.
  if (fixture.file->Find("grad_masked_lm.cls.predictions.bias") != nullptr) {
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
                          kGradientTolerance, gradient_scale));
    }
  }
}

TEST(BertReferenceTest, BidirectionalMatchesPyTorch) {
  CheckAgainstReference("bert_reference_bidirectional.safetensors");
}

TEST(BertReferenceTest, CausalMatchesPyTorch) {
  CheckAgainstReference("bert_reference_causal.safetensors");
}

}  // namespace
}  // namespace bertlab
