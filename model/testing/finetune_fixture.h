// The shared fixture of the fine-tuning model tests
// (model/bert_for_finetuning_test.cc, model/two_encoder_for_finetuning_test.cc
// and the Finetuner's): a tiny config, padded rows, the targets of each head,
// the whole-model gradient check, and tiny pre-training checkpoints.
#ifndef BERTLAB_MODEL_TESTING_FINETUNE_FIXTURE_H_
#define BERTLAB_MODEL_TESTING_FINETUNE_FIXTURE_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/finetune_heads.h"

namespace bertlab {
namespace testing {

// H = 6, 2 heads, 1 layer, vocab 13, 8 positions, dropout 0.2 / 0.25 and
// initializer_range 0.5 (large enough that every gradient is far from 0).
BertConfig TinyFinetuneConfig(
    AttentionMode mode = AttentionMode::kBidirectional);

// `rows` rows of kSeqLen tokens; row r has kSeqLen - (r % 3) real tokens,
// segment B from the middle on, and pools its last real token
// (last_token_pooling, for causal encoders) or [CLS].
struct FinetuneRows {
  FinetuneRows(int64_t rows, int64_t vocab, bool last_token_pooling);
  EncoderBatch View() const;
  static constexpr int64_t kSeqLen = 6;
  int64_t rows;
  std::vector<int32_t> ids, types, mask, pooled;
};

// `head` with num_labels classes (kClassifier) and 3 choices.
FinetuneModelOptions TinyFinetuneOptions(FinetuneHead head,
                                         int64_t num_labels = 3,
                                         bool bilstm = false);

// The rows of a gradient check: 3 sequences, or 2 examples of 3 choices.
int64_t GradientCheckRows(const FinetuneModelOptions& options);

// Targets of GradientCheckRows(options) rows for options' head.
class FinetuneTestTargets {
 public:
  explicit FinetuneTestTargets(const FinetuneModelOptions& options);
  FinetuneTestTargets(const FinetuneTestTargets&) = delete;
  FinetuneTestTargets& operator=(const FinetuneTestTargets&) = delete;
  const FinetuneTargets& targets() const { return targets_; }

 private:
  std::vector<int32_t> labels_ = {1, 0, 2};
  std::vector<float> scores_ = {0.5f, -1.25f, 2.0f};
  std::vector<int32_t> starts_ = {1, 0, 3}, ends_ = {2, 0, 3};
  FinetuneTargets targets_;
};

// The whole model's gradient check: parameters from `layout` (seed 5),
// forward_backward(params, grads) once into zeroed grads (its loss must be
// > 0), then every entry against central differences of forward(params),
// relative 1e-5 / absolute 1e-8 at step 1e-6 in double (the composed graph
// is deeper than one op's). Returns the analytic gradient.
std::vector<double> CheckFinetuneGradients(
    const std::string& name, const ParameterLayout& layout,
    const std::function<double(const double* params, double* grads)>&
        forward_backward,
    const std::function<double(const double* params)>& forward);

// The dropout of the gradient checks: on, fixed seed and step.
DropoutSettings GradientCheckDropout();

// $TEST_TMPDIR/name (or /tmp/name outside Bazel).
std::string TestDir(const std::string& name);

// Writes a pre-training checkpoint to `dir`: the encoder of `config` with
// attention_mode `mode` under "bert.*" plus "cls.predictions.bias", which a
// fine-tuning loader must ignore, initialised from `seed`. Returns the values
// in that layout's order (the encoder's first, in AddEncoderParameters'
// order). Fails the test when the write fails.
std::vector<float> SaveTinyPretrainingCheckpoint(const std::string& dir,
                                                 BertConfig config,
                                                 AttentionMode mode,
                                                 uint64_t seed);

}  // namespace testing
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TESTING_FINETUNE_FIXTURE_H_
