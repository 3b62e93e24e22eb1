// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The BF16 mixed-precision GPU training steps (T = __nv_bfloat16 in
// bert_for_pretraining_cuda.h / bert_for_finetuning_cuda.h, parameters in
// train_step_cuda.h's MixedPrecisionParams) against the CPU float steps on
// the bf16-rounded parameters, on the FP32 step test's tiny config, batch and
// targets (training_step_parity_fixture.h) with the encoder fixture's
// kBf16WeightScale weights (encoder_parity_fixture.h says why: with the FP32
// test's larger weights the saturated attention softmax turns bf16's
// rounding of q and k into errors of tens of percent that no tolerance can
// tell from a bug):
//
//   pre-training: masked LM + NSP with training dropout (a repeated and an
//     ignored position), masked LM without NSP in eval, and the causal
//     left-to-right LM with every position predicted;
//   fine-tuning: the span head bidirectional with training dropout and
//     causal in eval; a classifier, STS-B regression on a causal encoder and
//     multiple choice, each with training dropout; the "+ BiLSTM" layer
//     under a classifier on a causal encoder. (Not under the span head: at
//     these weights that case's gradient norm is 0.74, under the clip norm
//     every case here must exceed; the FP32 test runs it, and
//     bilstm_parity_test checks the BiLSTM in BF16.)
//
// For each:
//   - the working copy made on the device is the host's bf16 rounding of the
//     master, bit for bit, and the CPU reference runs on exactly those values;
//   - loss (and sub-losses) and every named parameter gradient (float master
//     gradients) through the one comparator with bf16's eps
//     (encoder_parity::ExpectGradientParity: the analytically zero attention
//     key biases against zero);
//   - two GPU passes give bit-identical loss and gradients;
//   - one whole mixed-precision step (forward + backward, clip to global norm
//     1.0, AdamW on the FP32 master, refresh of the bf16 copy) gives, bit for
//     bit, the FP32 master, m and v that the CPU's ClipByGlobalNorm +
//     AdamW<float>::Step produce from the same master and the GPU's own
//     gradients (the gradients themselves being checked against the CPU's
//     above), a working copy equal to the rounding of the new master, zeroed
//     gradients, and the same bits on a second run.
//
// Reduction length K, as encoder_bf16_parity_test.cc: every sum runs in FP32
// (float's eps, negligible next to bf16's); what differs from the float
// reference is the bf16 stores, each a relative rounding error of at most
// eps / 2 on a whole tensor, independent of the others, adding as the
// comparator's random walk with one term per store on the chain behind a
// value. So K = the bf16 stores on the longest chain (functions below): for
// the tiny config (2 layers) 34 to the pre-training loss and 68 to a
// gradient, 31 and 61 for the span step (32 and 63 for the pooled heads). The
// logits, softmax, losses and d_logits are float and add no store; the gather
// and, at distinct positions, the scatter of the masked-LM rows are copies.
//
// What to expect: the bound at these K is about (|expected| + rms), so it
// catches composition errors (a wrong buffer, type, order or stale weights),
// not a gradient off by less than 2x; each op's <op>_parity_test checks it
// tightly. UNMEASURED: unlike the encoder test's K, no emulation of the
// heads' rounding points was run; if a case fails by a small ratio, look at
// the report's worst element before widening anything.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/train/train_step_cuda.h"
#include "model/train/training_step_parity_fixture.h"

namespace bertlab {
namespace {

using encoder_parity::CountBitDifferences;
using encoder_parity::kSeqLen;
using step_parity::WaitForHostCopies;
using PretrainingStep = step_parity::PretrainingStep<__nv_bfloat16>;
using FinetuneStep = step_parity::FinetuneStep<__nv_bfloat16>;

// AdamW's first step moves a parameter by about 3.2 lr (lr (1 - beta1) /
// sqrt(1 - beta2)); at 1e-3 that is several bf16 spacings of the ~0.1
// weights (2^-11 ~ 4.9e-4 near 0.1), so a working copy that is not refreshed
// differs from the new master's rounding almost everywhere.
constexpr double kLearningRate = 1e-3;

// bf16 stores of the encoder (encoder_bf16_parity_test.cc lists them):
// forward to the sequence output (embedding sum, LayerNorm, dropout; 14 per
// layer), and backward from d_sequence_output to the embeddings (13 per
// layer; embedding dropout, LayerNorm).
int64_t EncoderForwardStores(const BertConfig& config) {
  return 3 + 14 * config.num_hidden_layers;
}
int64_t EncoderBackwardStores(const BertConfig& config) {
  return 13 * config.num_hidden_layers + 2;
}

// The bf16 stores on the longest chain to a step's loss and to a gradient.
struct Stores {
  int64_t loss;
  int64_t gradient;
};

// Masked LM, the longest chain (NSP's, through the pooler, is shorter by 2):
// forward + the transform's Dense, GELU, LayerNorm; backward + d_logits'
// rounding, decoder d_in, LayerNorm, GELU, transform d_in, the scatter's sum
// at a repeated position.
Stores ChainStores(const PretrainingStep& step) {
  const int64_t loss = EncoderForwardStores(step.config) + 3;
  return {loss, loss + 6 + EncoderBackwardStores(step.config)};
}

// Span head: the logits come straight from the sequence output; backward +
// d_logits' rounding and the head's d_in. The pooled heads add the dropout's
// store before the logits, and in the backward d_logits' rounding, d_pooled
// and the dropout's backward. The BiLSTM (bilstm_parity_test.cc) adds its
// output h at each of the T steps forward, and backward its gate gradients
// at each step and its d_input (its pool and the pool's gradient are
// copies).
Stores ChainStores(const FinetuneStep& step) {
  const bool bilstm = step.model.options().bilstm;
  const int64_t bilstm_forward = bilstm ? kSeqLen : 0;
  const int64_t bilstm_backward = bilstm ? kSeqLen + 1 : 0;
  const int64_t loss = EncoderForwardStores(step.config) + bilstm_forward;
  const int64_t backward = bilstm_backward + EncoderBackwardStores(step.config);
  if (step.head == FinetuneHead::kSpan) return {loss, loss + 2 + backward};
  return {loss + 1, loss + 1 + 3 + backward};
}

std::vector<float> Working(const cuda::MixedPrecisionParams& params) {
  return FromBf16(params.WorkingToHost());
}

// The checks every mixed-precision step shares (see the file comment).
void CheckBf16TrainingStep(const ParameterLayout& layout,
                           const std::vector<float>& master, int64_t loss_k,
                           int64_t gradient_k,
                           const step_parity::StepRunners<__nv_bfloat16>& run,
                           const CudaContext& context) {
  const std::vector<float> rounded = RoundToBf16(master);
  cuda::MixedPrecisionParams params(master, context);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  WaitForHostCopies();
  ExpectBitIdentical("working copy vs the host rounding", Working(params),
                     rounded);
  const step_parity::PassGradients grads = step_parity::CheckForwardBackward(
      layout, run, rounded, params.working(), &grads_d, kBF16, loss_k,
      gradient_k, context);

  // The CPU's optimizer on the same master and the GPU's own gradients: the
  // FP32 update the GPU must reproduce exactly.
  const step_parity::CpuOptimizerStep cpu(layout, master, grads.gpu,
                                          kLearningRate);

  const step_parity::GpuStepResult step = step_parity::RunGpuStep(
      layout, master, run, kLearningRate, &grads_d, context);
  ASSERT_TRUE(step_parity::SameClipFactor(step.clip_scale, cpu.clip.scale));
  ExpectBitIdentical("FP32 master after the step", step.params, cpu.params);
  ExpectBitIdentical("AdamW m", step.m, cpu.adam.m());
  ExpectBitIdentical("AdamW v", step.v, cpu.adam.v());
  ExpectBitIdentical("working copy after the step (refreshed)", step.working,
                     RoundToBf16(cpu.params));
  EXPECT_GT(CountBitDifferences(step.working, rounded), 0)
      << "the step left every bf16 working value unchanged";

  const step_parity::GpuStepResult again = step_parity::RunGpuStep(
      layout, master, run, kLearningRate, &grads_d, context);
  ExpectBitIdentical("master after the step (second run)", again.params,
                     step.params);
  ExpectBitIdentical("working copy after the step (second run)", again.working,
                     step.working);
}

// One case of either step, K its ChainStores. The runners' buffers hold the
// last pass, on the same parameters, when CheckStepCase compares the head
// losses.
template <typename Step, typename Case>
void CheckStep(const Case& c) {
  step_parity::CheckStepCase<Step>(
      c, encoder_parity::kBf16WeightScale, kBF16, [](Step& step) {
        const Stores k = ChainStores(step);
        CheckBf16TrainingStep(step.model.layout(), step.params, k.loss,
                              k.gradient, step.Runners(), step.context);
        return k.loss;
      });
}

TEST(PretrainingStepBf16ParityTest, MaskedLmAndNextSentenceTraining) {
  CheckStep<PretrainingStep>(step_parity::kMaskedLmAndNextSentenceTraining);
}

TEST(PretrainingStepBf16ParityTest, MaskedLmWithoutNextSentenceEval) {
  CheckStep<PretrainingStep>(step_parity::kMaskedLmWithoutNextSentenceEval);
}

TEST(PretrainingStepBf16ParityTest, LeftToRightEveryPositionTraining) {
  CheckStep<PretrainingStep>(step_parity::kLeftToRightEveryPositionTraining);
}

TEST(FinetuneStepBf16ParityTest, SpanBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kSpanBidirectionalTraining);
}

TEST(FinetuneStepBf16ParityTest, SpanCausalEval) {
  CheckStep<FinetuneStep>(step_parity::kSpanCausalEval);
}

TEST(FinetuneStepBf16ParityTest, ClassifierBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kClassifierBidirectionalTraining);
}

TEST(FinetuneStepBf16ParityTest, RegressionCausalTraining) {
  CheckStep<FinetuneStep>(step_parity::kRegressionCausalTraining);
}

TEST(FinetuneStepBf16ParityTest, MultipleChoiceBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kMultipleChoiceBidirectionalTraining);
}

TEST(FinetuneStepBf16ParityTest, ClassifierBiLstmCausalTraining) {
  CheckStep<FinetuneStep>(step_parity::kClassifierBiLstmCausalTraining);
}

// The working copy follows the master wherever the master changes: a skipped
// (non-finite) step changes neither, an applied one refreshes it, and so
// does replacing the master from the host.
TEST(MixedPrecisionParamsTest, WorkingCopyFollowsTheMaster) {
  const step_parity::NonFiniteStepInputs in =
      step_parity::MakeNonFiniteStepInputs();
  const int64_t size = in.layout.total_size();
  const std::vector<float>& master = in.params;
  CudaContext context;
  cuda::MixedPrecisionParams params(master, context);
  DeviceBuffer<float> grads_d("grads", in.grads);
  cuda::DeviceOptimizer optimizer(in.layout, cuda::DeviceOptimizerOptions{});
  WaitForHostCopies();
  EXPECT_FALSE(optimizer.Step(1e-2, nullptr, grads_d.data(), &params, context));
  context.Synchronize();
  ExpectBitIdentical("master after a skipped step", params.MasterToHost(),
                     master);
  ExpectBitIdentical("working copy after a skipped step", Working(params),
                     RoundToBf16(master));

  grads_d.CopyFromHost(step_parity::FiniteGradients(size));
  WaitForHostCopies();
  EXPECT_TRUE(optimizer.Step(1e-2, nullptr, grads_d.data(), &params, context));
  context.Synchronize();
  const std::vector<float> stepped = params.MasterToHost();
  EXPECT_GT(CountBitDifferences(stepped, master), 0);
  ExpectBitIdentical("working copy after an applied step", Working(params),
                     RoundToBf16(stepped));

  const std::vector<float> loaded = RandomUniform(size, 6, -2.0f, 2.0f);
  params.CopyMasterFromHost(loaded, context);
  context.Synchronize();
  ExpectBitIdentical("master after CopyMasterFromHost", params.MasterToHost(),
                     loaded);
  ExpectBitIdentical("working copy after CopyMasterFromHost", Working(params),
                     RoundToBf16(loaded));
}

}  // namespace
}  // namespace bertlab
