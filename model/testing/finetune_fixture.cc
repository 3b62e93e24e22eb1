#include "model/testing/finetune_fixture.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/testing/gradient_check.h"

namespace bertlab {
namespace testing {

BertConfig TinyFinetuneConfig(AttentionMode mode) {
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

FinetuneRows::FinetuneRows(int64_t rows, int64_t vocab, bool last_token_pooling)
    : rows(rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t length = kSeqLen - r % 3;
    for (int64_t t = 0; t < kSeqLen; ++t) {
      const bool real = t < length;
      ids.push_back(real ? static_cast<int32_t>((r * 7 + t * 3) % vocab) : 0);
      types.push_back(real && t >= length / 2 ? 1 : 0);
      mask.push_back(real ? 1 : 0);
    }
    pooled.push_back(last_token_pooling ? static_cast<int32_t>(length - 1) : 0);
  }
}

EncoderBatch FinetuneRows::View() const {
  EncoderBatch batch;
  batch.input_ids = ids.data();
  batch.token_type_ids = types.data();
  batch.attention_mask = mask.data();
  batch.pooled_positions = pooled.data();
  batch.batch = rows;
  batch.seq_len = kSeqLen;
  return batch;
}

FinetuneModelOptions TinyFinetuneOptions(FinetuneHead head, int64_t num_labels,
                                         bool bilstm) {
  FinetuneModelOptions options;
  options.head = head;
  options.num_labels = num_labels;
  options.num_choices = 3;
  options.bilstm = bilstm;
  return options;
}

int64_t GradientCheckRows(const FinetuneModelOptions& options) {
  return options.head == FinetuneHead::kMultipleChoice ? 2 * 3 : 3;
}

FinetuneTestTargets::FinetuneTestTargets(const FinetuneModelOptions& options) {
  if (options.head == FinetuneHead::kSpan) {
    targets_.start_positions = starts_.data();
    targets_.end_positions = ends_.data();
  } else if (options.head == FinetuneHead::kClassifier &&
             options.num_labels == 1) {
    targets_.scores = scores_.data();
  } else {
    labels_.resize(options.head == FinetuneHead::kMultipleChoice ? 2 : 3);
    targets_.labels = labels_.data();
  }
}

std::vector<double> CheckFinetuneGradients(
    const std::string& name, const ParameterLayout& layout,
    const std::function<double(const double* params, double* grads)>&
        forward_backward,
    const std::function<double(const double* params)>& forward) {
  std::vector<double> params(layout.total_size());
  InitializeParameters(layout, 5, params.data());
  std::vector<double> grads = Prefilled(params.size(), 0.0);
  const double loss = forward_backward(params.data(), grads.data());
  EXPECT_GT(loss, 0.0) << name;
  auto recompute = [&] { return forward(params.data()); };
  GradientTolerance tolerance;
  tolerance.relative = 1e-5;
  tolerance.absolute = 1e-8;
  EXPECT_TRUE(GradientMatches(name, recompute, &params, grads, tolerance));
  return grads;
}

DropoutSettings GradientCheckDropout() { return DropoutSettings{true, 31, 2}; }

std::string TestDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
}

std::vector<float> SaveTinyPretrainingCheckpoint(const std::string& dir,
                                                 BertConfig config,
                                                 AttentionMode mode,
                                                 uint64_t seed) {
  config.attention_mode = mode;
  ParameterLayout layout;
  AddEncoderParameters(config, &layout);
  layout.Add("cls.predictions.bias", {config.vocab_size}, ZerosInitializer());
  std::vector<float> values(layout.total_size());
  InitializeParameters(layout, seed, values.data());
  const absl::Status saved =
      SaveCheckpointDirectory(dir, config, layout, values.data());
  EXPECT_TRUE(saved.ok()) << saved;
  return values;
}

}  // namespace testing
}  // namespace bertlab
