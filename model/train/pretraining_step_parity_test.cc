// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU training steps against the CPU's, on the same random parameters and
// padded batches (3 x 7, hidden 36, 3 heads, intermediate 40, 2 layers,
// vocabulary 53):
//
//   pre-training (bert_for_pretraining_cuda.h vs model/bert_for_pretraining.h):
//     masked LM + NSP with training dropout (one position predicted twice, an
//     ignored label, an ignored NSP label), masked LM without the NSP head
//     (eval), and the causal left-to-right LM with every position predicted;
//   fine-tuning (bert_for_finetuning_cuda.h vs model/bert_for_finetuning.h):
//     the span head bidirectional with training dropout and causal in eval,
//     with an out-of-window and an ignored position; a classifier of 3
//     labels (one ignored) with training dropout; STS-B regression on a
//     causal encoder pooling the last real token; multiple choice of 3;
//     the "+ BiLSTM" layer under the span head and under a classifier on a
//     causal encoder.
//
// For each: the losses and every named parameter gradient through the one
// comparator (parity_comparator.h; gradients by encoder_parity_fixture.h's
// rule, which checks the analytically zero attention key-bias gradients
// against the rounding noise of their layer); two GPU passes give bit-identical
// gradients; one whole optimizer step (clip to global norm 1.0, AdamW,
// train_step_cuda.h) matches the CPU's ClipByGlobalNorm + AdamW<float>::Step,
// is bit-identical to it when fed the CPU's own gradients, and is
// bit-identical between two GPU runs.
//
// Reduction lengths: as encoder_parity_test.cc, the rounding errors of the
// chained reductions are independent random walks whose variances add, so K
// is the summed length of the longest chain from the parameters through the
// loss and back to a gradient (EncoderChain + the head's chain below).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/bert/parameter_layout.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/train/train_step_cuda.h"
#include "model/train/training_step_parity_fixture.h"

namespace bertlab {
namespace {

using encoder_parity::kBatch;
using encoder_parity::kSeqLen;
using step_parity::ReadScalar;
using step_parity::WaitForHostCopies;
using PretrainingStep = step_parity::PretrainingStep<float>;
using FinetuneStep = step_parity::FinetuneStep<float>;

// Small enough that AdamW's first step amplifies a gradient difference by at
// most lr (1 - beta1) / eps = 10 (its steepest slope, at g near 0), which
// keeps the parameters' difference inside their own comparator bound.
constexpr double kLearningRate = 1e-4;

// The encoder's forward chain: embedding LayerNorm and the pooler, then per
// layer QKV, scores, probs v, attention output, LayerNorm, Dense1, Dense2,
// LayerNorm (as encoder_parity_test.cc).
int64_t EncoderForwardChain(const BertConfig& config) {
  const int64_t hidden = config.hidden_size;
  const int64_t per_layer = 7 * hidden + kSeqLen + config.intermediate_size;
  return 2 * hidden + config.num_hidden_layers * per_layer;
}

// Forward and backward, plus the column sums over the B*T rows.
int64_t EncoderChain(const BertConfig& config) {
  return 2 * EncoderForwardChain(config) + kBatch * kSeqLen;
}

// Masked LM: transform dense, LayerNorm and decoder (H each) and the softmax
// (V), forward and backward, plus the column sums over the M predictions.
int64_t Chain(const PretrainingStep& step) {
  const BertConfig& config = step.config;
  return EncoderChain(config) +
         2 * (3 * config.hidden_size + config.vocab_size) +
         step.num_predictions();
}

// The BiLSTM (Hd = H / 2), as bilstm_parity_test.cc: forward, the input
// projection's H and every earlier step's recurrent Hd; backward, the carry
// GEMM's 4Hd at each step and the input gradient's 4Hd.
int64_t BiLstmForwardChain(const FinetuneStep& step) {
  if (!step.model.options().bilstm) return 0;
  const int64_t hidden = step.config.hidden_size;
  return hidden + kSeqLen * (hidden / 2);
}
int64_t BiLstmChain(const FinetuneStep& step) {
  if (!step.model.options().bilstm) return 0;
  return BiLstmForwardChain(step) + (kSeqLen + 1) * 2 * step.config.hidden_size;
}

// Span head: the linear (H) and the softmax over T, forward and backward,
// plus the column sums over the B*T tokens. The pooled heads: the linear (H)
// and the softmax over the classes (or the regression's sum over the rows),
// forward and backward, plus the column sums over the rows. The BiLSTM's
// chain between the encoder and the head where there is one.
int64_t Chain(const FinetuneStep& step) {
  const int64_t hidden = step.config.hidden_size;
  const int64_t below_head = EncoderChain(step.config) + BiLstmChain(step);
  if (step.head == FinetuneHead::kSpan) {
    return below_head + 2 * (hidden + kSeqLen) + kBatch * kSeqLen;
  }
  return below_head + 2 * (hidden + kBatch) + kBatch;
}

// Every named parameter's slice of two flat buffers (gradients, parameters
// or moments), each against its own tensor's rms.
void ExpectParityByName(const std::string& what, const ParameterLayout& layout,
                        const std::vector<float>& gpu,
                        const std::vector<float>& cpu,
                        int64_t reduction_length) {
  for (const ParameterInfo& info : layout.parameters()) {
    const auto begin = info.offset;
    const auto end = info.offset + info.size;
    ExpectParity(what + " " + info.name,
                 std::vector<float>(gpu.begin() + begin, gpu.begin() + end),
                 std::vector<float>(cpu.begin() + begin, cpu.begin() + end),
                 kF32, reduction_length);
  }
}

// The checks every training step shares: loss and gradient parity,
// run-to-run bit-identity, and the optimizer step (see the file comment).
void CheckTrainingStep(const ParameterLayout& layout,
                       const std::vector<float>& params,
                       int64_t reduction_length,
                       const step_parity::StepRunners<float>& run,
                       const CudaContext& context) {
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", layout.total_size());
  WaitForHostCopies();
  const step_parity::PassGradients grads = step_parity::CheckForwardBackward(
      layout, run, params, params_d.data(), &grads_d, kF32, reduction_length,
      reduction_length, context);

  // The CPU's optimizer step on its own gradients.
  const step_parity::CpuOptimizerStep cpu(layout, params, grads.cpu,
                                          kLearningRate);

  // A whole GPU step from `params`: forward + backward, clip, AdamW.
  const step_parity::GpuStepResult step = step_parity::RunGpuStep(
      layout, params, run, kLearningRate, &grads_d, context);
  ExpectParity("global norm", std::vector<double>{step.global_norm},
               std::vector<double>{cpu.clip.global_norm}, kF32,
               reduction_length);
  // The update itself (about lr * 3 per element) is several times the
  // parameters' bound, so a missing or wrong update fails here.
  ExpectParityByName("stepped", layout, step.params, cpu.params,
                     reduction_length);
  // m and v are functions of each gradient element alone, so they are
  // compared as gradients are (the analytically zero key biases included).
  {
    SCOPED_TRACE("AdamW m (the gradient names below)");
    encoder_parity::ExpectGradientParity(layout, step.m, cpu.adam.m(), kF32,
                                         reduction_length,
                                         run.analytically_zero);
  }
  {
    // v = (1 - beta2) g^2: up to 3x the gradient's error relative to
    // |v| + rms(v) (2|g| dg <= 3 (g^2 + rms(g)^2)), so K grows by 3^2.
    SCOPED_TRACE("AdamW v (the gradient names below)");
    encoder_parity::ExpectGradientParity(layout, step.v, cpu.adam.v(), kF32,
                                         9 * reduction_length,
                                         run.analytically_zero);
  }
  const step_parity::GpuStepResult again = step_parity::RunGpuStep(
      layout, params, run, kLearningRate, &grads_d, context);
  ExpectBitIdentical("params after the step (second run)", again.params,
                     step.params);

  // The optimizer alone on the CPU's own gradients: the same float clip
  // factor and the same AdamW arithmetic give the CPU's bits.
  DeviceBuffer<float> cpu_grads_d("cpu_grads", grads.cpu);
  DeviceBuffer<float> own_params_d("own_params", params);
  cuda::DeviceOptimizer optimizer(layout,
                                  step_parity::ClippingOptimizerOptions());
  WaitForHostCopies();
  EXPECT_TRUE(optimizer.Step(kLearningRate, nullptr, cpu_grads_d.data(),
                             own_params_d.data(), context));
  context.Synchronize();
  const double gpu_scale = ReadScalar(optimizer.clip_scale(), context);
  ASSERT_TRUE(step_parity::SameClipFactor(gpu_scale, cpu.clip.scale));
  ExpectBitIdentical("params (optimizer on the CPU's gradients)",
                     own_params_d.ToHost(), cpu.params);
  ExpectBitIdentical("AdamW m (CPU's gradients)", optimizer.m().ToHost(),
                     cpu.adam.m());
  ExpectBitIdentical("AdamW v (CPU's gradients)", optimizer.v().ToHost(),
                     cpu.adam.v());
}

// The head's logits (float in both precisions: the span head's start
// logits, the others' class or choice logits), after the encoder's forward
// chain and the head's linear.
void ExpectHeadLogits(const FinetuneStep& step) {
  ExpectParity("head logits", step.GpuLogits(), step.CpuLogits(), kF32,
               EncoderForwardChain(step.config) + BiLstmForwardChain(step) +
                   step.config.hidden_size);
}

// One case of either step, K its Chain (a fine-tuning step also checks its
// head's logits).
template <typename Step, typename Case>
void CheckStep(const Case& c) {
  step_parity::CheckStepCase<Step>(
      c, encoder_parity::kFp32WeightScale, kF32, [](Step& step) {
        const int64_t k = Chain(step);
        CheckTrainingStep(step.model.layout(), step.params, k, step.Runners(),
                          step.context);
        if constexpr (std::is_same<Step, FinetuneStep>::value) {
          ExpectHeadLogits(step);
        }
        return k;
      });
}

TEST(PretrainingStepParityTest, MaskedLmAndNextSentenceTraining) {
  CheckStep<PretrainingStep>(step_parity::kMaskedLmAndNextSentenceTraining);
}

TEST(PretrainingStepParityTest, MaskedLmWithoutNextSentenceEval) {
  CheckStep<PretrainingStep>(step_parity::kMaskedLmWithoutNextSentenceEval);
}

TEST(PretrainingStepParityTest, LeftToRightEveryPositionTraining) {
  CheckStep<PretrainingStep>(step_parity::kLeftToRightEveryPositionTraining);
}

TEST(FinetuneStepParityTest, SpanBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kSpanBidirectionalTraining);
}

TEST(FinetuneStepParityTest, SpanCausalEval) {
  CheckStep<FinetuneStep>(step_parity::kSpanCausalEval);
}

TEST(FinetuneStepParityTest, ClassifierBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kClassifierBidirectionalTraining);
}

TEST(FinetuneStepParityTest, RegressionCausalTraining) {
  CheckStep<FinetuneStep>(step_parity::kRegressionCausalTraining);
}

TEST(FinetuneStepParityTest, MultipleChoiceBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kMultipleChoiceBidirectionalTraining);
}

TEST(FinetuneStepParityTest, SpanBiLstmBidirectionalTraining) {
  CheckStep<FinetuneStep>(step_parity::kSpanBiLstmBidirectionalTraining);
}

TEST(FinetuneStepParityTest, ClassifierBiLstmCausalTraining) {
  CheckStep<FinetuneStep>(step_parity::kClassifierBiLstmCausalTraining);
}

// skip_non_finite: a non-finite gradient norm applies nothing (params, m, v and
// the step count unchanged), still zeroes the gradients, and says so.
TEST(DeviceOptimizerTest, NonFiniteGradientSkipsTheUpdate) {
  const step_parity::NonFiniteStepInputs in =
      step_parity::MakeNonFiniteStepInputs();
  const int64_t size = in.layout.total_size();
  CudaContext context;
  DeviceBuffer<float> params_d("params", in.params);
  DeviceBuffer<float> grads_d("grads", in.grads);
  cuda::DeviceOptimizer optimizer(in.layout, cuda::DeviceOptimizerOptions{});
  WaitForHostCopies();
  EXPECT_FALSE(
      optimizer.Step(1e-3, nullptr, grads_d.data(), params_d.data(), context));
  context.Synchronize();
  EXPECT_EQ(optimizer.step(), 0);
  EXPECT_TRUE(std::isnan(optimizer.LastGlobalNorm(context)));
  ExpectBitIdentical("params", params_d.ToHost(), in.params);
  ExpectBitIdentical("m", optimizer.m().ToHost(), std::vector<float>(size, 0));
  ExpectBitIdentical("grads", grads_d.ToHost(), std::vector<float>(size, 0));

  // A finite step afterwards is the first update.
  grads_d.CopyFromHost(step_parity::FiniteGradients(size));
  WaitForHostCopies();
  EXPECT_TRUE(
      optimizer.Step(1e-3, nullptr, grads_d.data(), params_d.data(), context));
  EXPECT_EQ(optimizer.step(), 1);
}

}  // namespace
}  // namespace bertlab
