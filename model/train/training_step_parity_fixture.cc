// Shared setup of the training-step parity tests; see
// training_step_parity_fixture.h.
#include "model/train/training_step_parity_fixture.h"

#include <limits>
#include <random>
#include <utility>

#include "common/check.h"
#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/parity_test_util.h"

namespace bertlab {
namespace step_parity {

using encoder_parity::kBatch;
using encoder_parity::kSeqLen;

BertConfig TinyConfig(AttentionMode mode,
                      const encoder_parity::WeightScale& scale) {
  BertConfig config = encoder_parity::TinyConfig(mode, scale);
  config.vocab_size = 53;
  return config;
}

EncoderBatch HostView(const encoder_parity::HostBatch& batch) {
  return encoder_parity::HostEncoderBatch(batch, /*pooled_positions=*/false);
}

PretrainingTargets HostTargets::View(bool next_sentence) const {
  return PretrainingTargets{
      positions.data(), labels.data(), static_cast<int64_t>(positions.size()),
      next_sentence ? next_sentence_labels.data() : nullptr};
}

HostTargets MakeTargets(const BertConfig& config,
                        const encoder_parity::HostBatch& batch) {
  HostTargets targets;
  if (config.attention_mode == AttentionMode::kCausal) {
    for (int64_t b = 0; b < kBatch; ++b) {
      for (int64_t t = 0; t < kSeqLen; ++t) {
        targets.positions.push_back(static_cast<int32_t>(b * kSeqLen + t));
        // pooled_positions[b] is the row's last real token.
        targets.labels.push_back(t < batch.pooled_positions[b]
                                     ? batch.input_ids[b * kSeqLen + t + 1]
                                     : kIgnoreLabel);
      }
    }
    return targets;
  }
  std::mt19937 engine(17);
  std::uniform_int_distribution<int32_t> label(0, config.vocab_size - 1);
  for (const auto& [b, t] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 1}, {0, 3}, {0, 5}, {1, 2}, {1, 4}, {2, 1}, {1, 2}}) {
    targets.positions.push_back(static_cast<int32_t>(b * kSeqLen + t));
    targets.labels.push_back(label(engine));
  }
  targets.labels[4] = kIgnoreLabel;
  targets.next_sentence_labels = {1, 0, kIgnoreLabel};
  return targets;
}

template <typename T>
PretrainingStep<T>::PretrainingStep(const PretrainingCase& c,
                                    const encoder_parity::WeightScale& scale)
    : next_sentence(c.next_sentence),
      config(step_parity::TinyConfig(c.mode, scale)),
      model(config, c.next_sentence),
      params(encoder_parity::RandomParameters(model.layout(), scale)),
      host(encoder_parity::MakeBatch(config)),
      host_targets(MakeTargets(config, host)),
      cpu_targets(host_targets.View(c.next_sentence)),
      dropout{c.training, /*seed=*/99, /*step=*/3},
      cpu_buffers(config, kBatch, kSeqLen, cpu_targets.num_predictions),
      device_batch(kBatch, kSeqLen, cpu_targets.num_predictions),
      uploaded(device_batch.Upload(config, model.has_next_sentence_head(),
                                   HostView(host), cpu_targets, context)),
      gpu_buffers(config, kBatch, kSeqLen, cpu_targets.num_predictions) {}

template <typename T>
StepRunners<T> PretrainingStep<T>::Runners() {
  StepRunners<T> run;
  run.cpu = [this](const float* p, float* grads) {
    return PretrainingForwardBackward(model, p, grads, HostView(host),
                                      cpu_targets, dropout, &cpu_buffers);
  };
  run.gpu = [this](const T* p, float* grads) {
    return cuda::PretrainingForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  return run;
}

template <typename T>
void PretrainingStep<T>::ExpectHeadLosses(ParityDtype dtype,
                                          int64_t reduction_length) {
  ExpectParity("masked-LM loss",
               ReadScalar(gpu_buffers.heads.masked_lm_loss(), context),
               cpu_buffers.heads.masked_lm_loss(), dtype, reduction_length);
  const float gpu_nsp =
      ReadScalar(gpu_buffers.heads.next_sentence_loss(), context);
  ExpectParity("next-sentence loss", gpu_nsp,
               cpu_buffers.heads.next_sentence_loss(), dtype, reduction_length);
  if (!next_sentence) {
    EXPECT_EQ(gpu_nsp, 0.0f);
  }
}

namespace {

FinetuneModelOptions HeadOptions(const FinetuneCase& c) {
  FinetuneModelOptions options;
  options.head = c.head;
  options.num_labels = c.num_labels;
  options.num_choices = c.num_choices;
  options.bilstm = c.bilstm;
  return options;
}

// Waits for the step's stream first (cudaMemcpy runs on the legacy stream).
std::vector<float> CopyToHost(const float* device, int64_t count,
                              const CudaContext& context) {
  context.Synchronize();
  std::vector<float> host(static_cast<size_t>(count));
  BERTLAB_CUDA_CHECK(cudaMemcpy(host.data(), device, sizeof(float) * count,
                                cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

FinetuneTargets HostFinetuneTargets::View(FinetuneHead head) const {
  FinetuneTargets targets;
  if (head == FinetuneHead::kSpan) {
    targets.start_positions = answers.start.data();
    targets.end_positions = answers.end.data();
  } else if (!scores.empty()) {
    targets.scores = scores.data();
  } else {
    targets.labels = labels.data();
  }
  return targets;
}

HostFinetuneTargets MakeFinetuneTargets(const FinetuneCase& c) {
  HostFinetuneTargets targets;
  if (c.head == FinetuneHead::kMultipleChoice) {
    CHECK_EQ(kBatch, c.num_choices) << "one example of kBatch choices";
    targets.labels = {1};
  } else if (c.head == FinetuneHead::kClassifier && c.num_labels == 1) {
    targets.scores = {0.5f, -1.25f, 2.0f};
  } else if (c.head == FinetuneHead::kClassifier) {
    CHECK_EQ(c.num_labels, 3);
    targets.labels = {2, kIgnoreLabel, 0};
  }
  return targets;
}

template <typename T>
FinetuneStep<T>::FinetuneStep(const FinetuneCase& c,
                              const encoder_parity::WeightScale& scale)
    : head(c.head),
      config(step_parity::TinyConfig(c.mode, scale)),
      model(config, HeadOptions(c)),
      params(encoder_parity::RandomParameters(model.layout(), scale)),
      host(encoder_parity::MakeBatch(config)),
      host_view(encoder_parity::HostEncoderBatch(
          host, /*pooled_positions=*/c.mode == AttentionMode::kCausal)),
      host_targets(MakeFinetuneTargets(c)),
      cpu_targets(host_targets.View(c.head)),
      dropout{c.training, /*seed=*/41, /*step=*/5},
      cpu_buffers(model, kBatch, kSeqLen),
      device_batch(HeadOptions(c), kBatch, kSeqLen),
      uploaded(device_batch.Upload(config, host_view, cpu_targets, context)),
      gpu_buffers(model, kBatch, kSeqLen) {}

template <typename T>
StepRunners<T> FinetuneStep<T>::Runners() {
  StepRunners<T> run;
  run.cpu = [this](const float* p, float* grads) {
    return FinetuneForwardBackward(model, p, grads, host_view, cpu_targets,
                                   dropout, &cpu_buffers);
  };
  run.gpu = [this](const T* p, float* grads) {
    return cuda::FinetuneForwardBackward(
        model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
        dropout, &gpu_buffers, context);
  };
  if (head == FinetuneHead::kMultipleChoice) {
    run.analytically_zero = {{"classifier.bias", "classifier.weight"}};
  }
  return run;
}

template <typename T>
std::vector<float> FinetuneStep<T>::GpuLogits() const {
  if (head == FinetuneHead::kSpan) {
    return CopyToHost(gpu_buffers.span->start_logits(), kBatch * kSeqLen,
                      context);
  }
  return CopyToHost(gpu_buffers.pooled->logits(),
                    static_cast<int64_t>(CpuLogits().size()), context);
}

template <typename T>
std::vector<float> FinetuneStep<T>::CpuLogits() const {
  const float* logits = nullptr;
  int64_t count = 0;
  switch (head) {
    case FinetuneHead::kSpan:
      logits = cpu_buffers.span->start_logits();
      count = kBatch * kSeqLen;
      break;
    case FinetuneHead::kClassifier:
      logits = cpu_buffers.classifier->logits();
      count = kBatch * model.options().num_labels;
      break;
    case FinetuneHead::kMultipleChoice:
      logits = cpu_buffers.multiple_choice->scores();
      count = kBatch;
      break;
  }
  return std::vector<float>(logits, logits + count);
}

template <typename T>
void FinetuneStep<T>::ExpectHeadLosses(ParityDtype dtype,
                                       int64_t reduction_length) {
  if (head != FinetuneHead::kSpan) {
    ExpectParity("logits", GpuLogits(), CpuLogits(), dtype, reduction_length);
    return;
  }
  ExpectParity("start loss",
               ReadScalar(gpu_buffers.span->start_loss(), context),
               cpu_buffers.span->start_loss(), dtype, reduction_length);
  ExpectParity("end loss", ReadScalar(gpu_buffers.span->end_loss(), context),
               cpu_buffers.span->end_loss(), dtype, reduction_length);
}

template <typename T>
PassGradients CheckForwardBackward(
    const ParameterLayout& layout, const StepRunners<T>& run,
    const std::vector<float>& cpu_params, const T* gpu_params,
    DeviceBuffer<float>* grads, ParityDtype dtype, int64_t loss_length,
    int64_t gradient_length, const CudaContext& context) {
  PassGradients result;
  result.cpu.assign(layout.total_size(), 0.0f);
  const float cpu_loss = run.cpu(cpu_params.data(), result.cpu.data());
  const float gpu_loss =
      ReadScalar(RunGpuPass(run, gpu_params, grads, context), context);
  result.gpu = grads->ToHost();
  ExpectParity("loss", gpu_loss, cpu_loss, dtype, loss_length);
  encoder_parity::ExpectGradientParity(layout, result.gpu, result.cpu, dtype,
                                       gradient_length, run.analytically_zero);

  const float again_loss =
      ReadScalar(RunGpuPass(run, gpu_params, grads, context), context);
  ExpectBitIdentical("loss (second run)", {again_loss}, {gpu_loss});
  ExpectBitIdentical("gradients (second run)", grads->ToHost(), result.gpu);
  return result;
}

cuda::DeviceOptimizerOptions ClippingOptimizerOptions() {
  cuda::DeviceOptimizerOptions options;
  options.clip_norm = kClipNorm;
  return options;
}

namespace {

// The device parameters of one precision: a float buffer, or the FP32
// master with its bf16 working copy.
struct DeviceFloatParams {
  using Type = float;
  DeviceFloatParams(const std::vector<float>& host,
                    const CudaContext& /*unused*/)
      : buffer("stepped_params", host) {}
  const float* forward() const { return buffer.data(); }
  float* step_target() { return buffer.data(); }
  std::vector<float> ToHost() const { return buffer.ToHost(); }
  std::vector<float> WorkingToHost() const { return {}; }
  DeviceBuffer<float> buffer;
};

struct DeviceMixedParams {
  using Type = __nv_bfloat16;
  DeviceMixedParams(const std::vector<float>& host, const CudaContext& context)
      : params(host, context) {}
  const __nv_bfloat16* forward() const { return params.working(); }
  cuda::MixedPrecisionParams* step_target() { return &params; }
  std::vector<float> ToHost() const { return params.MasterToHost(); }
  std::vector<float> WorkingToHost() const {
    return FromBf16(params.WorkingToHost());
  }
  cuda::MixedPrecisionParams params;
};

template <typename Params>
GpuStepResult RunGpuStepOn(const ParameterLayout& layout,
                           const std::vector<float>& start,
                           const StepRunners<typename Params::Type>& run,
                           double learning_rate, DeviceBuffer<float>* grads,
                           const CudaContext& context) {
  Params params(start, context);
  cuda::DeviceOptimizer optimizer(layout, ClippingOptimizerOptions());
  WaitForHostCopies();
  const float* loss = RunGpuPass(run, params.forward(), grads, context);
  EXPECT_TRUE(optimizer.Step(learning_rate, loss, grads->data(),
                             params.step_target(), context));
  EXPECT_EQ(optimizer.step(), 1);
  // The host copies below run on the legacy stream, which does not wait for
  // ours.
  context.Synchronize();
  GpuStepResult result{params.ToHost(),
                       params.WorkingToHost(),
                       optimizer.m().ToHost(),
                       optimizer.v().ToHost(),
                       optimizer.LastGlobalNorm(context),
                       ReadScalar(optimizer.clip_scale(), context)};
  ExpectBitIdentical("gradients zeroed after the step", grads->ToHost(),
                     std::vector<float>(layout.total_size(), 0.0f));
  return result;
}

}  // namespace

GpuStepResult RunGpuStep(const ParameterLayout& layout,
                         const std::vector<float>& start,
                         const StepRunners<float>& run, double learning_rate,
                         DeviceBuffer<float>* grads,
                         const CudaContext& context) {
  return RunGpuStepOn<DeviceFloatParams>(layout, start, run, learning_rate,
                                         grads, context);
}

GpuStepResult RunGpuStep(const ParameterLayout& layout,
                         const std::vector<float>& start,
                         const StepRunners<__nv_bfloat16>& run,
                         double learning_rate, DeviceBuffer<float>* grads,
                         const CudaContext& context) {
  return RunGpuStepOn<DeviceMixedParams>(layout, start, run, learning_rate,
                                         grads, context);
}

CpuOptimizerStep::CpuOptimizerStep(const ParameterLayout& layout,
                                   const std::vector<float>& params,
                                   const std::vector<float>& grads,
                                   double learning_rate)
    : adam(layout, AdamWOptions{}), params(params) {
  std::vector<float> clipped = grads;
  clip = ClipByGlobalNorm(kClipNorm, layout.total_size(), clipped.data());
  EXPECT_TRUE(clip.clipped())
      << "norm " << clip.global_norm << ": the case should exercise clipping";
  adam.Step(learning_rate, clipped.data(), this->params.data());
}

::testing::AssertionResult SameClipFactor(double gpu_scale, double cpu_scale) {
  if (static_cast<float>(gpu_scale) == static_cast<float>(cpu_scale)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "clip factors " << gpu_scale << " vs " << cpu_scale
         << " round to different floats (norms straddle a rounding boundary)";
}

NonFiniteStepInputs MakeNonFiniteStepInputs() {
  NonFiniteStepInputs inputs;
  inputs.layout.Add("encoder.dense.weight", {7, 5}, Initializer::Constant(0));
  inputs.layout.Add("encoder.dense.bias", {5}, Initializer::Constant(0));
  const int64_t size = inputs.layout.total_size();
  inputs.params = RandomUniform(size, 3, -1.0f, 1.0f);
  inputs.grads = RandomUniform(size, 4, -1.0f, 1.0f);
  inputs.grads[11] = std::numeric_limits<float>::quiet_NaN();
  return inputs;
}

std::vector<float> FiniteGradients(int64_t size) {
  return RandomUniform(size, 5, -1.0f, 1.0f);
}

#define BERTLAB_INSTANTIATE_STEP_PARITY(T)                                    \
  template struct PretrainingStep<T>;                                         \
  template struct FinetuneStep<T>;                                            \
  template PassGradients CheckForwardBackward<T>(                             \
      const ParameterLayout&, const StepRunners<T>&,                          \
      const std::vector<float>&, const T*, DeviceBuffer<float>*, ParityDtype, \
      int64_t, int64_t, const CudaContext&);
BERTLAB_INSTANTIATE_STEP_PARITY(float)
BERTLAB_INSTANTIATE_STEP_PARITY(__nv_bfloat16)
#undef BERTLAB_INSTANTIATE_STEP_PARITY

}  // namespace step_parity
}  // namespace bertlab
