// The whole pre-training step (forward and backward of masked LM + NSP, with
// training dropout, a padded row and an ignored label) in BF16 precision
// (model/ops/cpu_gemm_engine.h's scope: every float product's inputs rounded
// to bfloat16, FP32 sums; everything else FP32) against the same step in
// double on the same parameters: the double model is the one
// bert_reference_test proves against PyTorch, so this ties BF16 to the
// reference. Parameters are drawn as BERT initialises them (normal 0.02), as
// in training; the reference fixtures' larger weights saturate the attention
// softmax, where bf16's rounding of q and k moves probabilities by tens of
// percent (model/bert/encoder_parity_fixture.h found the same on the GPU).
//
// Tolerance: the parity comparator with bf16's eps, K = the rounded GEMM
// operands on the longest chain behind a value (ops_bf16_test.cc says why
// rounded operands, not inner dimensions, are the count): six products per
// layer (q/k/v, scores, probs v, attention output, the two FFN layers), two
// operands each, then the MLM transform and decoder, so the loss has
// K = 12 L + 4; a gradient adds the backward chain back to its tensor, at
// most as long again plus its own weight-gradient product, K = 24 L + 10.
// At L = 2 that is a bound of 0.66 (loss) and 0.95 (gradients) times
// (|expected| + rms), and the key biases' analytically zero gradients are
// held to zero at their query biases' scale (model/parity/
// gradient_parity.h): a composition check (a wrong buffer, a product left in
// float, a stale rounding), not a fine one; ops_bf16_test checks each op
// with K of 2 to 6.
//
// oneDNN 2.6 has a bf16 matmul only with AVX-512: on an AVX2-only CPU this
// test says so and skips.
#include <cstdint>
#include <string>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/ops/cpu_gemm_engine.h"
#include "model/ops/gemm_onednn.h"
#include "model/parity/gradient_parity.h"
#include "model/parity/parity_comparator.h"

namespace bertlab {
namespace {

constexpr int64_t kBatch = 2, kSeqLen = 24;

BertConfig SmallConfig() {
  BertConfig config;
  config.vocab_size = 300;
  config.hidden_size = 64;
  config.num_hidden_layers = 2;
  config.num_attention_heads = 2;
  config.intermediate_size = 256;
  config.max_position_embeddings = 64;
  return config;
}

// One step of `T` with dropout; returns the loss and fills `grads`.
template <typename T>
T Step(const BertForPretraining& model, const std::vector<T>& params,
       std::vector<T>* grads) {
  std::vector<int32_t> ids(kBatch * kSeqLen), types(kBatch * kSeqLen, 0),
      mask(kBatch * kSeqLen, 1);
  for (int64_t i = 0; i < kBatch * kSeqLen; ++i) {
    ids[i] = static_cast<int32_t>(5 + (i * 37) % 290);
    if (i % kSeqLen >= kSeqLen / 2) types[i] = 1;
  }
  for (int64_t t = 18; t < kSeqLen; ++t) mask[kSeqLen + t] = 0;  // padding
  const std::vector<int32_t> positions = {
      1, 4, 9, 13, 20, kSeqLen + 2, kSeqLen + 7, kSeqLen + 11};
  const std::vector<int32_t> labels = {17, 250, 3, kIgnoreLabel,
                                       99, 42,  7, 280};
  const std::vector<int32_t> next_sentence = {0, 1};
  EncoderBatch batch{ids.data(), types.data(), mask.data(), kBatch, kSeqLen};
  PretrainingTargets targets{positions.data(), labels.data(),
                             static_cast<int64_t>(positions.size()),
                             next_sentence.data()};
  PretrainingStepBuffers<T> buffers(model.config(), kBatch, kSeqLen,
                                    static_cast<int64_t>(positions.size()));
  grads->assign(params.size(), T(0));
  return PretrainingForwardBackward(model, params.data(), grads->data(), batch,
                                    targets, DropoutSettings{true, 21, 3},
                                    &buffers);
}

TEST(BertForPretrainingBf16Test, StepMatchesTheDoubleModel) {
  if (!OneDnnBf16MatmulAvailable()) {
    GTEST_SKIP() << "oneDNN has no bf16 matmul on this CPU (needs AVX-512)";
  }
  SetNumThreads(2);
  const BertForPretraining model(SmallConfig(), /*next_sentence=*/true);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 5, params.data());
  const std::vector<double> params_double(params.begin(), params.end());

  std::vector<double> grads_double;
  const double loss_double = Step(model, params_double, &grads_double);
  std::vector<float> grads, grads_again;
  float loss = 0.0f, loss_again = 0.0f;
  {
    const ScopedCpuGemmPrecision bf16(Precision::kBfloat16Mixed);
    loss = Step(model, params, &grads);
    loss_again = Step(model, params, &grads_again);
  }

  const int64_t layers = model.config().num_hidden_layers;
  const ParityReport loss_report = CompareParity(
      "loss", std::vector<float>{loss}, std::vector<double>{loss_double},
      ParityDtype::kBFloat16, 12 * layers + 4);
  EXPECT_TRUE(loss_report.ok) << loss_report.message;
  // The double reference rounded to float: exact to far below bf16's eps.
  ExpectGradientParity(
      model.layout(), grads,
      std::vector<float>(grads_double.begin(), grads_double.end()),
      ParityDtype::kBFloat16, 24 * layers + 10);
  // Run to run, the same bits.
  EXPECT_EQ(loss, loss_again);
  EXPECT_TRUE(grads == grads_again);
  // And not the float step: BF16 really rounded.
  std::vector<float> grads_float;
  EXPECT_NE(Step(model, params, &grads_float), loss);
}

}  // namespace
}  // namespace bertlab
