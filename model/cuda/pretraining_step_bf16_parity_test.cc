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
//   SQuAD span fine-tuning: bidirectional with training dropout, causal eval.
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
// gradient, 31 and 61 for the span step. The logits, softmax, losses and
// d_logits are float and add no store; the gather and, at distinct
// positions, the scatter of the masked-LM rows are copies.
//
// What to expect: the bound at these K is about (|expected| + rms), so it
// catches composition errors (a wrong buffer, type, order or stale weights),
// not a gradient off by less than 2x; ops_bf16_parity_test checks each op
// tightly. UNMEASURED: unlike the encoder test's K, no emulation of the
// heads' rounding points was run; if a case fails by a small ratio, look at
// the report's worst element before widening anything.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/parameter_layout.h"
#include "model/bert_for_finetuning.h"
#include "model/bert_for_pretraining.h"
#include "model/cuda/bert_for_finetuning_cuda.h"
#include "model/cuda/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/device_batch.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/encoder_parity_fixture.h"
#include "model/cuda/parity_comparator.h"
#include "model/cuda/train_step_cuda.h"
#include "model/cuda/training_step_parity_fixture.h"
#include "model/heads/pretraining_heads.h"
#include "model/heads/span_head.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_clipping.h"

namespace bertlab {
namespace {

using encoder_parity::CountBitDifferences;
using encoder_parity::kBatch;
using encoder_parity::kSeqLen;
using step_parity::HostView;
using step_parity::ReadScalar;
using step_parity::WaitForHostCopies;

constexpr ParityDtype kBF16 = ParityDtype::kBFloat16;
constexpr double kClipNorm = 1.0;
// AdamW's first step moves a parameter by about 3.2 lr (lr (1 - beta1) /
// sqrt(1 - beta2)); at 1e-3 that is several bf16 spacings of the ~0.1
// weights (2^-11 ~ 4.9e-4 near 0.1), so a working copy that is not refreshed
// differs from the new master's rounding almost everywhere.
constexpr double kLearningRate = 1e-3;

BertConfig TinyConfig(AttentionMode mode) {
  return step_parity::TinyConfig(mode, encoder_parity::kBf16WeightScale);
}

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

// Masked LM, the longest chain (NSP's, through the pooler, is shorter by 2):
// forward + the transform's Dense, GELU, LayerNorm; backward + d_logits'
// rounding, decoder d_in, LayerNorm, GELU, transform d_in, the scatter's sum
// at a repeated position.
int64_t PretrainingLossStores(const BertConfig& config) {
  return EncoderForwardStores(config) + 3;
}
int64_t PretrainingGradientStores(const BertConfig& config) {
  return PretrainingLossStores(config) + 6 + EncoderBackwardStores(config);
}

// Span head: the logits come straight from the sequence output; backward +
// d_logits' rounding and the head's d_in.
int64_t SpanLossStores(const BertConfig& config) {
  return EncoderForwardStores(config);
}
int64_t SpanGradientStores(const BertConfig& config) {
  return SpanLossStores(config) + 2 + EncoderBackwardStores(config);
}

void ExpectParity(const std::string& name, float gpu, float cpu,
                  int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, std::vector<float>{gpu}, std::vector<float>{cpu},
                    kBF16, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

void ExpectBitIdentical(const std::string& name, const std::vector<float>& a,
                        const std::vector<float>& b) {
  EXPECT_EQ(CountBitDifferences(a, b), 0) << name << ": not bit-identical";
}

std::vector<float> Working(const cuda::MixedPrecisionParams& params) {
  return FromBf16(params.WorkingToHost());
}

// One forward + backward, CPU (float) and GPU (bf16).
struct StepRunners {
  // Accumulates into *grads and returns the loss.
  std::function<float(const float* params, float* grads)> cpu;
  // Enqueues the step on the bf16 working copy, accumulating into the device
  // float grads; returns the device loss.
  std::function<const float*(const __nv_bfloat16* params, float* grads)> gpu;
};

// The checks every mixed-precision step shares (see the file comment).
void CheckBf16TrainingStep(const ParameterLayout& layout,
                           const std::vector<float>& master, int64_t loss_k,
                           int64_t gradient_k, const StepRunners& run,
                           const CudaContext& context) {
  const int64_t size = layout.total_size();
  const std::vector<float> rounded = RoundToBf16(master);
  std::vector<float> cpu_grads(size, 0.0f);
  const float cpu_loss = run.cpu(rounded.data(), cpu_grads.data());

  cuda::MixedPrecisionParams params(master, context);
  DeviceBuffer<float> grads_d("grads", size);
  WaitForHostCopies();
  ExpectBitIdentical("working copy vs the host rounding", Working(params),
                     rounded);
  auto gpu_pass = [&](const cuda::MixedPrecisionParams& p) {
    grads_d.Zero(context.stream());
    const float* loss = run.gpu(p.working(), grads_d.data());
    context.Synchronize();
    return loss;
  };
  const float gpu_loss = ReadScalar(gpu_pass(params), context);
  const std::vector<float> gpu_grads = grads_d.ToHost();
  ExpectParity("loss", gpu_loss, cpu_loss, loss_k);
  encoder_parity::ExpectGradientParity(layout, gpu_grads, cpu_grads, kBF16,
                                       gradient_k);

  // Same inputs, same buffers: the same bits (no float atomics anywhere).
  const float again_loss = ReadScalar(gpu_pass(params), context);
  ExpectBitIdentical("loss (second run)", {again_loss}, {gpu_loss});
  ExpectBitIdentical("gradients (second run)", grads_d.ToHost(), gpu_grads);

  // The CPU's optimizer on the same master and the GPU's own gradients
  // (pretrainer.cc's order: clip, then AdamW): the FP32 update the GPU must
  // reproduce exactly.
  std::vector<float> clipped = gpu_grads;
  const ClipResult clip = ClipByGlobalNorm(kClipNorm, size, clipped.data());
  EXPECT_TRUE(clip.clipped())
      << "norm " << clip.global_norm << ": the case should exercise clipping";
  AdamW<float> cpu_adam(layout, AdamWOptions{});
  std::vector<float> cpu_stepped = master;
  cpu_adam.Step(kLearningRate, clipped.data(), cpu_stepped.data());

  cuda::DeviceOptimizerOptions options;
  options.clip_norm = kClipNorm;
  struct GpuStep {
    std::vector<float> master, working, m, v;
    double clip_scale;
  };
  auto gpu_step = [&] {
    cuda::MixedPrecisionParams stepped(master, context);
    cuda::DeviceOptimizer optimizer(layout, options);
    WaitForHostCopies();
    const float* loss = gpu_pass(stepped);
    EXPECT_TRUE(
        optimizer.Step(kLearningRate, loss, grads_d.data(), &stepped, context));
    EXPECT_EQ(optimizer.step(), 1);
    // The host copies below run on the legacy stream.
    context.Synchronize();
    GpuStep result{stepped.MasterToHost(), Working(stepped),
                   optimizer.m().ToHost(), optimizer.v().ToHost(),
                   ReadScalar(optimizer.clip_scale(), context)};
    ExpectBitIdentical("gradients zeroed after the step", grads_d.ToHost(),
                       std::vector<float>(size, 0.0f));
    return result;
  };
  const GpuStep step = gpu_step();
  // The norms differ only in the last bits of a double (reduction order).
  ASSERT_EQ(static_cast<float>(step.clip_scale), static_cast<float>(clip.scale))
      << "clip factors " << step.clip_scale << " vs " << clip.scale
      << " round to different floats (norms straddle a rounding boundary)";
  ExpectBitIdentical("FP32 master after the step", step.master, cpu_stepped);
  ExpectBitIdentical("AdamW m", step.m, cpu_adam.m());
  ExpectBitIdentical("AdamW v", step.v, cpu_adam.v());
  ExpectBitIdentical("working copy after the step (refreshed)", step.working,
                     RoundToBf16(cpu_stepped));
  EXPECT_GT(CountBitDifferences(step.working, rounded), 0)
      << "the step left every bf16 working value unchanged";

  const GpuStep again = gpu_step();
  ExpectBitIdentical("master after the step (second run)", again.master,
                     step.master);
  ExpectBitIdentical("working copy after the step (second run)", again.working,
                     step.working);
}

struct PretrainingCase {
  const char* name;
  AttentionMode mode;
  bool next_sentence;
  bool training;
};

void CheckPretrainingStep(const PretrainingCase& c) {
  SCOPED_TRACE(c.name);
  const BertConfig config = TinyConfig(c.mode);
  const BertForPretraining model(config, c.next_sentence);
  const std::vector<float> master = encoder_parity::RandomParameters(
      model.layout(), encoder_parity::kBf16WeightScale);
  const encoder_parity::HostBatch host = encoder_parity::MakeBatch(config);
  const step_parity::HostTargets host_targets =
      step_parity::MakeTargets(config, host);
  const PretrainingTargets cpu_targets = host_targets.View(c.next_sentence);
  const int64_t m = cpu_targets.num_predictions;
  const DropoutSettings dropout{c.training, /*seed=*/99, /*step=*/3};

  PretrainingStepBuffers<float> cpu_buffers(config, kBatch, kSeqLen, m);
  CudaContext context;
  cuda::DevicePretrainingBatch device_batch(kBatch, kSeqLen, m);
  const absl::Status uploaded =
      device_batch.Upload(config, model.has_next_sentence_head(),
                          HostView(host), cpu_targets, context);
  ASSERT_TRUE(uploaded.ok()) << uploaded.ToString();
  cuda::PretrainingStepBuffers<__nv_bfloat16> gpu_buffers(config, kBatch,
                                                          kSeqLen, m);

  StepRunners run;
  run.cpu = [&](const float* p, float* grads) {
    return PretrainingForwardBackward(model, p, grads, HostView(host),
                                      cpu_targets, dropout, &cpu_buffers);
  };
  run.gpu = [&](const __nv_bfloat16* p, float* grads) {
    return cuda::PretrainingForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  const int64_t loss_k = PretrainingLossStores(config);
  CheckBf16TrainingStep(model.layout(), master, loss_k,
                        PretrainingGradientStores(config), run, context);

  // The runners' buffers now hold the last pass, on the same parameters.
  ExpectParity("masked-LM loss",
               ReadScalar(gpu_buffers.heads.masked_lm_loss(), context),
               cpu_buffers.heads.masked_lm_loss(), loss_k);
  const float gpu_nsp =
      ReadScalar(gpu_buffers.heads.next_sentence_loss(), context);
  ExpectParity("next-sentence loss", gpu_nsp,
               cpu_buffers.heads.next_sentence_loss(), loss_k);
  if (!c.next_sentence) {
    EXPECT_EQ(gpu_nsp, 0.0f);
  }
}

TEST(PretrainingStepBf16ParityTest, MaskedLmAndNextSentenceTraining) {
  CheckPretrainingStep({"MLM + NSP, training dropout",
                        AttentionMode::kBidirectional, true, true});
}

TEST(PretrainingStepBf16ParityTest, MaskedLmWithoutNextSentenceEval) {
  CheckPretrainingStep(
      {"MLM, no NSP head, eval", AttentionMode::kBidirectional, false, false});
}

TEST(PretrainingStepBf16ParityTest, LeftToRightEveryPositionTraining) {
  CheckPretrainingStep({"LTR, every position, training dropout",
                        AttentionMode::kCausal, false, true});
}

struct SpanCase {
  const char* name;
  AttentionMode mode;
  bool training;
};

void CheckSpanStep(const SpanCase& c) {
  SCOPED_TRACE(c.name);
  const BertConfig config = TinyConfig(c.mode);
  FinetuneModelOptions options;
  options.head = FinetuneHead::kSpan;
  const BertForFinetuning model(config, options);
  const std::vector<float> master = encoder_parity::RandomParameters(
      model.layout(), encoder_parity::kBf16WeightScale);
  const encoder_parity::HostBatch host = encoder_parity::MakeBatch(config);
  const step_parity::SpanPositions answers;
  const DropoutSettings dropout{c.training, /*seed=*/41, /*step=*/5};

  FinetuneStepBuffers<float> cpu_buffers(model, kBatch, kSeqLen);
  FinetuneTargets cpu_targets;
  cpu_targets.start_positions = answers.start.data();
  cpu_targets.end_positions = answers.end.data();
  CudaContext context;
  cuda::DeviceSpanBatch device_batch(kBatch, kSeqLen);
  const absl::Status uploaded = device_batch.Upload(
      config, HostView(host),
      SpanTargets{answers.start.data(), answers.end.data()}, context);
  ASSERT_TRUE(uploaded.ok()) << uploaded.ToString();
  cuda::SpanFinetuneStepBuffers<__nv_bfloat16> gpu_buffers(model, kBatch,
                                                           kSeqLen);

  StepRunners run;
  run.cpu = [&](const float* p, float* grads) {
    return FinetuneForwardBackward(model, p, grads, HostView(host), cpu_targets,
                                   dropout, &cpu_buffers);
  };
  run.gpu = [&](const __nv_bfloat16* p, float* grads) {
    return cuda::SpanFinetuneForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  const int64_t loss_k = SpanLossStores(config);
  CheckBf16TrainingStep(model.layout(), master, loss_k,
                        SpanGradientStores(config), run, context);

  ExpectParity("start loss", ReadScalar(gpu_buffers.span.start_loss(), context),
               cpu_buffers.span->start_loss(), loss_k);
  ExpectParity("end loss", ReadScalar(gpu_buffers.span.end_loss(), context),
               cpu_buffers.span->end_loss(), loss_k);
}

TEST(SpanFinetuneStepBf16ParityTest, BidirectionalTraining) {
  CheckSpanStep({"span, bidirectional, training dropout",
                 AttentionMode::kBidirectional, true});
}

TEST(SpanFinetuneStepBf16ParityTest, CausalEval) {
  CheckSpanStep({"span, causal, eval", AttentionMode::kCausal, false});
}

// The working copy follows the master wherever the master changes: a skipped
// (non-finite) step changes neither, an applied one refreshes it, and so
// does replacing the master from the host.
TEST(MixedPrecisionParamsTest, WorkingCopyFollowsTheMaster) {
  ParameterLayout layout;
  layout.Add("encoder.dense.weight", {7, 5}, Initializer::Constant(0));
  layout.Add("encoder.dense.bias", {5}, Initializer::Constant(0));
  const int64_t size = layout.total_size();
  const std::vector<float> master =
      encoder_parity::RandomVector(size, 3, -1.0f, 1.0f);
  std::vector<float> grads = encoder_parity::RandomVector(size, 4, -1.0f, 1.0f);
  grads[11] = std::numeric_limits<float>::quiet_NaN();
  CudaContext context;
  cuda::MixedPrecisionParams params(master, context);
  DeviceBuffer<float> grads_d("grads", grads);
  cuda::DeviceOptimizer optimizer(layout, cuda::DeviceOptimizerOptions{});
  WaitForHostCopies();
  EXPECT_FALSE(optimizer.Step(1e-2, nullptr, grads_d.data(), &params, context));
  context.Synchronize();
  ExpectBitIdentical("master after a skipped step", params.MasterToHost(),
                     master);
  ExpectBitIdentical("working copy after a skipped step", Working(params),
                     RoundToBf16(master));

  grads_d.CopyFromHost(encoder_parity::RandomVector(size, 5, -1.0f, 1.0f));
  WaitForHostCopies();
  EXPECT_TRUE(optimizer.Step(1e-2, nullptr, grads_d.data(), &params, context));
  context.Synchronize();
  const std::vector<float> stepped = params.MasterToHost();
  EXPECT_GT(CountBitDifferences(stepped, master), 0);
  ExpectBitIdentical("working copy after an applied step", Working(params),
                     RoundToBf16(stepped));

  const std::vector<float> loaded =
      encoder_parity::RandomVector(size, 6, -2.0f, 2.0f);
  params.CopyMasterFromHost(loaded, context);
  context.Synchronize();
  ExpectBitIdentical("master after CopyMasterFromHost", params.MasterToHost(),
                     loaded);
  ExpectBitIdentical("working copy after CopyMasterFromHost", Working(params),
                     RoundToBf16(loaded));
}

}  // namespace
}  // namespace bertlab
