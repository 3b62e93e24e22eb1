// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The GPU training steps against the CPU's, on the same random parameters and
// padded batches (3 x 7, hidden 36, 3 heads, intermediate 40, 2 layers,
// vocabulary 53):
//
//   pre-training (bert_for_pretraining_cuda.h vs model/bert_for_pretraining.h):
//     masked LM + NSP with training dropout (one position predicted twice, an
//     ignored label, an ignored NSP label), masked LM without the NSP head
//     (eval), and the causal left-to-right LM with every position predicted;
//   SQuAD fine-tuning (bert_for_finetuning_cuda.h vs model/bert_for_
//     finetuning.h, span head): bidirectional with training dropout, causal
//     in eval, with an out-of-window and an ignored position.
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
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
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

using encoder_parity::kBatch;
using encoder_parity::kSeqLen;
using step_parity::HostView;
using step_parity::ReadScalar;
using step_parity::WaitForHostCopies;

constexpr ParityDtype kF32 = ParityDtype::kFloat32;
constexpr double kClipNorm = 1.0;
// Small enough that AdamW's first step amplifies a gradient difference by at
// most lr (1 - beta1) / eps = 10 (its steepest slope, at g near 0), which
// keeps the parameters' difference inside their own comparator bound.
constexpr double kLearningRate = 1e-4;

// The encoder parity tests' tiny odd shapes and FP32 weight scale, with a
// vocabulary of 53 for the masked-LM softmax.
BertConfig TinyConfig(AttentionMode mode) {
  return step_parity::TinyConfig(mode, encoder_parity::kFp32WeightScale);
}

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
int64_t PretrainingChain(const BertConfig& config, int64_t predictions) {
  return EncoderChain(config) +
         2 * (3 * config.hidden_size + config.vocab_size) + predictions;
}

// Span head: the linear (H) and the softmax over T, forward and backward,
// plus the column sums over the B*T tokens.
int64_t SpanChain(const BertConfig& config) {
  return EncoderChain(config) + 2 * (config.hidden_size + kSeqLen) +
         kBatch * kSeqLen;
}

void ExpectParity(const std::string& name, const std::vector<float>& gpu,
                  const std::vector<float>& cpu, int64_t reduction_length) {
  const ParityReport report =
      CompareParity(name, gpu, cpu, kF32, reduction_length);
  EXPECT_TRUE(report.ok) << report.message;
}

void ExpectBitIdentical(const std::string& name, const std::vector<float>& a,
                        const std::vector<float>& b) {
  EXPECT_EQ(encoder_parity::CountBitDifferences(a, b), 0)
      << name << ": not bit-identical";
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
                 reduction_length);
  }
}

// The FP32 encoder parity test's random weights, for the whole model.
std::vector<float> RandomParameters(const ParameterLayout& layout) {
  return encoder_parity::RandomParameters(layout,
                                          encoder_parity::kFp32WeightScale);
}

// One training step's forward + backward, CPU and GPU, over the same
// parameters (each run starts from them, so afterwards the runners' buffers
// hold the losses of these parameters).
struct StepRunners {
  // Accumulates into *grads and returns the loss.
  std::function<float(const float* params, float* grads)> cpu;
  // Enqueues the step accumulating into device grads; returns the device loss.
  std::function<const float*(const float* params, float* grads)> gpu;
};

// The checks every training step shares: loss and gradient parity,
// run-to-run bit-identity, and the optimizer step (see the file comment).
void CheckTrainingStep(const ParameterLayout& layout,
                       const std::vector<float>& params,
                       int64_t reduction_length, const StepRunners& run,
                       const CudaContext& context) {
  const int64_t size = layout.total_size();
  std::vector<float> cpu_grads(size, 0.0f);
  const float cpu_loss = run.cpu(params.data(), cpu_grads.data());

  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", size);
  WaitForHostCopies();
  auto gpu_pass = [&](const float* device_params) {
    grads_d.Zero(context.stream());
    const float* loss = run.gpu(device_params, grads_d.data());
    context.Synchronize();
    return loss;
  };
  const float gpu_loss = ReadScalar(gpu_pass(params_d.data()), context);
  const std::vector<float> gpu_grads = grads_d.ToHost();
  ExpectParity("loss", {gpu_loss}, {cpu_loss}, reduction_length);
  encoder_parity::ExpectGradientParity(layout, gpu_grads, cpu_grads, kF32,
                                       reduction_length);

  // Same inputs, same buffers: the same bits (no float atomics anywhere).
  const float again_loss = ReadScalar(gpu_pass(params_d.data()), context);
  ExpectBitIdentical("loss (second run)", {again_loss}, {gpu_loss});
  ExpectBitIdentical("gradients (second run)", grads_d.ToHost(), gpu_grads);

  // The CPU's optimizer step: clip, then AdamW (pretrainer.cc's order).
  std::vector<float> cpu_clipped = cpu_grads;
  const ClipResult clip = ClipByGlobalNorm(kClipNorm, size, cpu_clipped.data());
  EXPECT_TRUE(clip.clipped())
      << "norm " << clip.global_norm << ": the case should exercise clipping";
  AdamW<float> cpu_adam(layout, AdamWOptions{});
  std::vector<float> cpu_stepped = params;
  cpu_adam.Step(kLearningRate, cpu_clipped.data(), cpu_stepped.data());

  // A whole GPU step from `params`: forward + backward, clip, AdamW.
  cuda::DeviceOptimizerOptions options;
  options.clip_norm = kClipNorm;
  struct GpuStep {
    std::vector<float> params, m, v;
    double norm;
  };
  auto gpu_step = [&] {
    DeviceBuffer<float> stepped_d("stepped_params", params);
    cuda::DeviceOptimizer optimizer(layout, options);
    WaitForHostCopies();
    const float* loss = gpu_pass(stepped_d.data());
    EXPECT_TRUE(optimizer.Step(kLearningRate, loss, grads_d.data(),
                               stepped_d.data(), context));
    EXPECT_EQ(optimizer.step(), 1);
    // ToHost copies on the legacy stream, which does not wait for ours.
    context.Synchronize();
    GpuStep result{stepped_d.ToHost(), optimizer.m().ToHost(),
                   optimizer.v().ToHost(), optimizer.LastGlobalNorm(context)};
    ExpectBitIdentical("gradients zeroed after the step", grads_d.ToHost(),
                       std::vector<float>(size, 0.0f));
    return result;
  };
  const GpuStep step = gpu_step();
  const ParityReport norm_report = CompareParity(
      "global norm", std::vector<double>{step.norm},
      std::vector<double>{clip.global_norm}, kF32, reduction_length);
  EXPECT_TRUE(norm_report.ok) << norm_report.message;
  // The update itself (about lr * 3 per element) is several times the
  // parameters' bound, so a missing or wrong update fails here.
  ExpectParityByName("stepped", layout, step.params, cpu_stepped,
                     reduction_length);
  // m and v are functions of each gradient element alone, so they are
  // compared as gradients are (the analytically zero key biases included).
  {
    SCOPED_TRACE("AdamW m (the gradient names below)");
    encoder_parity::ExpectGradientParity(layout, step.m, cpu_adam.m(), kF32,
                                         reduction_length);
  }
  {
    // v = (1 - beta2) g^2: up to 3x the gradient's error relative to
    // |v| + rms(v) (2|g| dg <= 3 (g^2 + rms(g)^2)), so K grows by 3^2.
    SCOPED_TRACE("AdamW v (the gradient names below)");
    encoder_parity::ExpectGradientParity(layout, step.v, cpu_adam.v(), kF32,
                                         9 * reduction_length);
  }
  const GpuStep again = gpu_step();
  ExpectBitIdentical("params after the step (second run)", again.params,
                     step.params);

  // The optimizer alone on the CPU's own gradients: the same float clip
  // factor (the norms differ only in the last bits of a double) and the same
  // AdamW arithmetic give the CPU's bits.
  DeviceBuffer<float> cpu_grads_d("cpu_grads", cpu_grads);
  DeviceBuffer<float> own_params_d("own_params", params);
  cuda::DeviceOptimizer optimizer(layout, options);
  WaitForHostCopies();
  EXPECT_TRUE(optimizer.Step(kLearningRate, nullptr, cpu_grads_d.data(),
                             own_params_d.data(), context));
  context.Synchronize();
  const double gpu_scale = ReadScalar(optimizer.clip_scale(), context);
  ASSERT_EQ(static_cast<float>(gpu_scale), static_cast<float>(clip.scale))
      << "clip factors " << gpu_scale << " vs " << clip.scale
      << " round to different floats (norms straddle a rounding boundary)";
  ExpectBitIdentical("params (optimizer on the CPU's gradients)",
                     own_params_d.ToHost(), cpu_stepped);
  ExpectBitIdentical("AdamW m (CPU's gradients)", optimizer.m().ToHost(),
                     cpu_adam.m());
  ExpectBitIdentical("AdamW v (CPU's gradients)", optimizer.v().ToHost(),
                     cpu_adam.v());
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
  const std::vector<float> params = RandomParameters(model.layout());
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
  cuda::PretrainingStepBuffers<float> gpu_buffers(config, kBatch, kSeqLen, m);

  StepRunners run;
  run.cpu = [&](const float* p, float* grads) {
    return PretrainingForwardBackward(model, p, grads, HostView(host),
                                      cpu_targets, dropout, &cpu_buffers);
  };
  run.gpu = [&](const float* p, float* grads) {
    return cuda::PretrainingForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  const int64_t k = PretrainingChain(config, m);
  CheckTrainingStep(model.layout(), params, k, run, context);

  const float gpu_lm = ReadScalar(gpu_buffers.heads.masked_lm_loss(), context);
  const float gpu_nsp =
      ReadScalar(gpu_buffers.heads.next_sentence_loss(), context);
  ExpectParity("masked-LM loss", {gpu_lm}, {cpu_buffers.heads.masked_lm_loss()},
               k);
  ExpectParity("next-sentence loss", {gpu_nsp},
               {cpu_buffers.heads.next_sentence_loss()}, k);
  if (!c.next_sentence) {
    EXPECT_EQ(gpu_nsp, 0.0f);
  }
}

TEST(PretrainingStepParityTest, MaskedLmAndNextSentenceTraining) {
  CheckPretrainingStep({"MLM + NSP, training dropout",
                        AttentionMode::kBidirectional, true, true});
}

TEST(PretrainingStepParityTest, MaskedLmWithoutNextSentenceEval) {
  CheckPretrainingStep(
      {"MLM, no NSP head, eval", AttentionMode::kBidirectional, false, false});
}

TEST(PretrainingStepParityTest, LeftToRightEveryPositionTraining) {
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
  const std::vector<float> params = RandomParameters(model.layout());
  const encoder_parity::HostBatch host = encoder_parity::MakeBatch(config);
  const step_parity::SpanPositions answers;
  const std::vector<int32_t>& start_positions = answers.start;
  const std::vector<int32_t>& end_positions = answers.end;
  const DropoutSettings dropout{c.training, /*seed=*/41, /*step=*/5};

  FinetuneStepBuffers<float> cpu_buffers(model, kBatch, kSeqLen);
  FinetuneTargets cpu_targets;
  cpu_targets.start_positions = start_positions.data();
  cpu_targets.end_positions = end_positions.data();
  CudaContext context;
  cuda::DeviceSpanBatch device_batch(kBatch, kSeqLen);
  const absl::Status uploaded = device_batch.Upload(
      config, HostView(host),
      SpanTargets{start_positions.data(), end_positions.data()}, context);
  ASSERT_TRUE(uploaded.ok()) << uploaded.ToString();
  cuda::SpanFinetuneStepBuffers<float> gpu_buffers(model, kBatch, kSeqLen);

  StepRunners run;
  run.cpu = [&](const float* p, float* grads) {
    return FinetuneForwardBackward(model, p, grads, HostView(host), cpu_targets,
                                   dropout, &cpu_buffers);
  };
  run.gpu = [&](const float* p, float* grads) {
    return cuda::SpanFinetuneForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  const int64_t k = SpanChain(config);
  CheckTrainingStep(model.layout(), params, k, run, context);

  ExpectParity("start loss",
               {ReadScalar(gpu_buffers.span.start_loss(), context)},
               {cpu_buffers.span->start_loss()}, k);
  ExpectParity("end loss", {ReadScalar(gpu_buffers.span.end_loss(), context)},
               {cpu_buffers.span->end_loss()}, k);
  const int64_t tokens = kBatch * kSeqLen;
  std::vector<float> start_logits(tokens);
  BERTLAB_CUDA_CHECK(
      cudaMemcpy(start_logits.data(), gpu_buffers.span.start_logits(),
                 sizeof(float) * tokens, cudaMemcpyDeviceToHost));
  ExpectParity("start logits", start_logits,
               std::vector<float>(cpu_buffers.span->start_logits(),
                                  cpu_buffers.span->start_logits() + tokens),
               EncoderForwardChain(config) + config.hidden_size);
}

TEST(SpanFinetuneStepParityTest, BidirectionalTraining) {
  CheckSpanStep({"span, bidirectional, training dropout",
                 AttentionMode::kBidirectional, true});
}

TEST(SpanFinetuneStepParityTest, CausalEval) {
  CheckSpanStep({"span, causal, eval", AttentionMode::kCausal, false});
}

// kSkipStep: a non-finite gradient norm applies nothing (params, m, v and
// the step count unchanged), still zeroes the gradients, and says so.
TEST(DeviceOptimizerTest, NonFiniteGradientSkipsTheUpdate) {
  ParameterLayout layout;
  layout.Add("encoder.dense.weight", {7, 5}, Initializer::Constant(0));
  layout.Add("encoder.dense.bias", {5}, Initializer::Constant(0));
  const int64_t size = layout.total_size();
  const std::vector<float> params =
      encoder_parity::RandomVector(size, 3, -1.0f, 1.0f);
  std::vector<float> grads = encoder_parity::RandomVector(size, 4, -1.0f, 1.0f);
  grads[11] = std::numeric_limits<float>::quiet_NaN();
  CudaContext context;
  DeviceBuffer<float> params_d("params", params);
  DeviceBuffer<float> grads_d("grads", grads);
  cuda::DeviceOptimizer optimizer(layout, cuda::DeviceOptimizerOptions{});
  WaitForHostCopies();
  EXPECT_FALSE(
      optimizer.Step(1e-3, nullptr, grads_d.data(), params_d.data(), context));
  context.Synchronize();
  EXPECT_EQ(optimizer.step(), 0);
  EXPECT_TRUE(std::isnan(optimizer.LastGlobalNorm(context)));
  ExpectBitIdentical("params", params_d.ToHost(), params);
  ExpectBitIdentical("m", optimizer.m().ToHost(), std::vector<float>(size, 0));
  ExpectBitIdentical("grads", grads_d.ToHost(), std::vector<float>(size, 0));

  // A finite step afterwards is the first update.
  grads_d.CopyFromHost(encoder_parity::RandomVector(size, 5, -1.0f, 1.0f));
  WaitForHostCopies();
  EXPECT_TRUE(
      optimizer.Step(1e-3, nullptr, grads_d.data(), params_d.data(), context));
  EXPECT_EQ(optimizer.step(), 1);
}

}  // namespace
}  // namespace bertlab
