// Shared setup of the GPU training-step parity tests (pretraining_step_
// parity_test.cc, FP32, and pretraining_step_bf16_parity_test.cc, BF16 mixed
// precision): the encoder fixture's tiny config with a vocabulary of 53 for
// the masked-LM softmax, the masked-LM / left-to-right targets and the
// fine-tuning heads' targets of the padded 3 x 7 batch, the cases, each case's
// models, buffers and CPU / GPU runners, the CPU optimizer step, and small
// device helpers. Test-only.
#ifndef BERTLAB_MODEL_TRAIN_TRAINING_STEP_PARITY_FIXTURE_H_
#define BERTLAB_MODEL_TRAIN_TRAINING_STEP_PARITY_FIXTURE_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/bert/parameter_layout.h"
#include "model/bert_for_finetuning.h"
#include "model/bert_for_finetuning_cuda.h"
#include "model/bert_for_pretraining.h"
#include "model/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/heads/pretraining_heads.h"
#include "model/optim/adamw.h"
#include "model/optim/gradient_clipping.h"
#include "model/parity/parity_comparator.h"
#include "model/train/device_batch.h"
#include "model/train/train_step_cuda.h"

namespace bertlab {
namespace step_parity {

// The optimizer step clips to this global norm, then runs AdamW.
inline constexpr double kClipNorm = 1.0;

// encoder_parity::TinyConfig with a vocabulary of 53.
BertConfig TinyConfig(AttentionMode mode,
                      const encoder_parity::WeightScale& scale);

// The batch's host pointers, [CLS] pooling.
EncoderBatch HostView(const encoder_parity::HostBatch& batch);

struct HostTargets {
  std::vector<int32_t> positions;
  std::vector<int32_t> labels;
  std::vector<int32_t> next_sentence_labels;

  PretrainingTargets View(bool next_sentence) const;
};

// Masked LM (bidirectional config): a few real positions per row with random
// labels, one label ignored and one position (row 1, t = 2) predicted twice
// with real labels (the CPU adds both rows' gradients, in order); NSP labels
// 1, 0, ignored. Left-to-right (causal config): every position, label = the
// next real token or ignored.
HostTargets MakeTargets(const BertConfig& config,
                        const encoder_parity::HostBatch& batch);

// SQuAD answers: row 1's start is past the window (ignored), row 2's end is
// ignored, row 2 starts at [CLS] (no answer).
struct SpanPositions {
  std::vector<int32_t> start = {2, 9, 0};
  std::vector<int32_t> end = {4, 3, kIgnoreLabel};
};

// The pre-training cases of both tests.
struct PretrainingCase {
  const char* name;
  AttentionMode mode;
  bool next_sentence;
  bool training;
};
inline constexpr PretrainingCase kMaskedLmAndNextSentenceTraining{
    "MLM + NSP, training dropout", AttentionMode::kBidirectional, true, true};
inline constexpr PretrainingCase kMaskedLmWithoutNextSentenceEval{
    "MLM, no NSP head, eval", AttentionMode::kBidirectional, false, false};
inline constexpr PretrainingCase kLeftToRightEveryPositionTraining{
    "LTR, every position, training dropout", AttentionMode::kCausal, false,
    true};

// The fine-tuning cases of both tests: the head (and its size), the
// encoder's attention and whether the "+ BiLSTM" layer sits between them. A
// causal encoder pools the last real token (EncoderBatch::pooled_positions),
// as FinetuneBatch does; with the BiLSTM the pooled heads read its summary.
struct FinetuneCase {
  const char* name;
  AttentionMode mode;
  bool training;
  FinetuneHead head;
  int64_t num_labels = 2;   // kClassifier (1: regression)
  int64_t num_choices = 3;  // kMultipleChoice: one example of kBatch rows
  bool bilstm = false;
};
inline constexpr FinetuneCase kSpanBidirectionalTraining{
    "span, bidirectional, training dropout", AttentionMode::kBidirectional,
    true, FinetuneHead::kSpan};
inline constexpr FinetuneCase kSpanCausalEval{
    "span, causal, eval", AttentionMode::kCausal, false, FinetuneHead::kSpan};
inline constexpr FinetuneCase kClassifierBidirectionalTraining{
    "classifier of 3 labels (one ignored), bidirectional, training dropout",
    AttentionMode::kBidirectional, true, FinetuneHead::kClassifier, 3};
inline constexpr FinetuneCase kRegressionCausalTraining{
    "regression (STS-B), causal, training dropout", AttentionMode::kCausal,
    true, FinetuneHead::kClassifier, 1};
inline constexpr FinetuneCase kMultipleChoiceBidirectionalTraining{
    "multiple choice of 3, bidirectional, training dropout",
    AttentionMode::kBidirectional, true, FinetuneHead::kMultipleChoice};
// The BiLSTM (Hd = H / 2) over the batch's lengths 7, 5 and 3.
inline constexpr FinetuneCase kSpanBiLstmBidirectionalTraining{
    "span + BiLSTM, bidirectional, training dropout",
    AttentionMode::kBidirectional,
    true,
    FinetuneHead::kSpan,
    2,
    3,
    /*bilstm=*/true};
inline constexpr FinetuneCase kClassifierBiLstmCausalTraining{
    "classifier of 3 labels (one ignored) + BiLSTM, causal, training dropout",
    AttentionMode::kCausal,
    true,
    FinetuneHead::kClassifier,
    3,
    3,
    /*bilstm=*/true};

// The case's targets on the host: SpanPositions' answers, classifier labels
// {2, ignored, 0}, regression scores {0.5, -1.25, 2}, or the one example's
// choice 1.
struct HostFinetuneTargets {
  SpanPositions answers;
  std::vector<int32_t> labels;
  std::vector<float> scores;
  FinetuneTargets View(FinetuneHead head) const;
};
HostFinetuneTargets MakeFinetuneTargets(const FinetuneCase& c);

// One training step's forward + backward, CPU (float) and GPU (parameters of
// type T: float, or the bf16 working copy), over the same parameters. Each
// run starts from them, so afterwards the runners' buffers hold the losses
// of these parameters.
template <typename T>
struct StepRunners {
  // Accumulates into *grads and returns the loss.
  std::function<float(const float* params, float* grads)> cpu;
  // Enqueues the step accumulating into device float grads; returns the
  // device loss.
  std::function<const float*(const T* params, float* grads)> gpu;
  // The step's analytically zero gradients the layout cannot tell
  // (ExpectGradientParity's also_zero).
  std::map<std::string, std::string> analytically_zero;
};

// One pre-training case on both sides: BertForPretraining on
// TinyConfig(c.mode, scale), random parameters at `scale` (the BF16 test's
// FP32 master), the padded batch and MakeTargets' targets, dropout (seed 99,
// step 3), the CPU float buffers, and on the GPU the uploaded batch (check
// `uploaded`) and the step buffers of activation type T.
template <typename T>
struct PretrainingStep {
  PretrainingStep(const PretrainingCase& c,
                  const encoder_parity::WeightScale& scale);
  PretrainingStep(const PretrainingStep&) = delete;
  PretrainingStep& operator=(const PretrainingStep&) = delete;

  int64_t num_predictions() const { return cpu_targets.num_predictions; }
  StepRunners<T> Runners();
  // The masked-LM and next-sentence losses of the last pass, GPU against
  // CPU through CompareParity(dtype, reduction_length); without the NSP head
  // the GPU's NSP loss is 0.
  void ExpectHeadLosses(ParityDtype dtype, int64_t reduction_length);

  const bool next_sentence;
  const BertConfig config;
  const BertForPretraining model;
  const std::vector<float> params;
  const encoder_parity::HostBatch host;
  const HostTargets host_targets;
  const PretrainingTargets cpu_targets;
  const DropoutSettings dropout;
  PretrainingStepBuffers<float> cpu_buffers;
  CudaContext context;
  cuda::DevicePretrainingBatch device_batch;
  const absl::Status uploaded;
  cuda::PretrainingStepBuffers<T> gpu_buffers;
};

// One fine-tuning case on both sides: BertForFinetuning (the case's head)
// on TinyConfig(c.mode, scale), random parameters at `scale`, the padded
// batch and MakeFinetuneTargets' targets, dropout (seed 41, step 5), the CPU
// float buffers, and on the GPU the uploaded batch (check `uploaded`) and the
// step buffers of activation type T.
template <typename T>
struct FinetuneStep {
  FinetuneStep(const FinetuneCase& c, const encoder_parity::WeightScale& scale);
  FinetuneStep(const FinetuneStep&) = delete;
  FinetuneStep& operator=(const FinetuneStep&) = delete;

  StepRunners<T> Runners();
  // The head's outputs of the last pass, GPU against CPU through
  // CompareParity(dtype, reduction_length): the start and end losses of the
  // span head, the logits (scores) of the others.
  void ExpectHeadLosses(ParityDtype dtype, int64_t reduction_length);
  // The head's float logits on both sides: the span head's start logits,
  // the others' (rows / group, classes).
  std::vector<float> GpuLogits() const;
  std::vector<float> CpuLogits() const;

  const FinetuneHead head;
  const BertConfig config;
  const BertForFinetuning model;
  const std::vector<float> params;
  const encoder_parity::HostBatch host;
  const EncoderBatch host_view;
  const HostFinetuneTargets host_targets;
  const FinetuneTargets cpu_targets;
  const DropoutSettings dropout;
  FinetuneStepBuffers<float> cpu_buffers;
  CudaContext context;
  cuda::DeviceFinetuneBatch device_batch;
  const absl::Status uploaded;
  cuda::FinetuneStepBuffers<T> gpu_buffers;
};

// One case end to end: Step (PretrainingStep<T> or FinetuneStep<T>) set up from
// `c` at `scale` and its upload checked; then check(step), the precision's
// own checks of the step, which returns the reduction length at which the
// head losses of the last pass are compared last (at `dtype`).
template <typename Step, typename Case, typename Check>
void CheckStepCase(const Case& c, const encoder_parity::WeightScale& scale,
                   ParityDtype dtype, const Check& check) {
  SCOPED_TRACE(c.name);
  Step step(c, scale);
  ASSERT_TRUE(step.uploaded.ok()) << step.uploaded.ToString();
  const int64_t head_loss_length = check(step);
  step.ExpectHeadLosses(dtype, head_loss_length);
}

// DeviceBuffer's copies from the host run on the legacy default stream, which
// the context's non-blocking stream does not wait for: call after them,
// before enqueueing work that reads the buffers.
inline void WaitForHostCopies() { BERTLAB_CUDA_CHECK(cudaDeviceSynchronize()); }

template <typename T>
T ReadScalar(const T* device, const CudaContext& context) {
  T value{};
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T),
                                     cudaMemcpyDeviceToHost, context.stream()));
  context.Synchronize();
  return value;
}

// One GPU forward + backward from `params` into the zeroed `grads`, waited
// for; returns the device loss.
template <typename T>
const float* RunGpuPass(const StepRunners<T>& run, const T* params,
                        DeviceBuffer<float>* grads,
                        const CudaContext& context) {
  grads->Zero(context.stream());
  const float* loss = run.gpu(params, grads->data());
  context.Synchronize();
  return loss;
}

// The gradients of one forward + backward on each side.
struct PassGradients {
  std::vector<float> cpu;
  std::vector<float> gpu;
};

// What every step test checks of the forward + backward: the CPU pass from
// cpu_params and the GPU pass from gpu_params (into *grads, on buffers the
// caller has waited for); the losses through CompareParity(dtype,
// loss_length) and the gradients through encoder_parity::
// ExpectGradientParity(dtype, gradient_length); then a second GPU pass on the
// same inputs and buffers gives the same bits (no float atomics anywhere).
template <typename T>
PassGradients CheckForwardBackward(
    const ParameterLayout& layout, const StepRunners<T>& run,
    const std::vector<float>& cpu_params, const T* gpu_params,
    DeviceBuffer<float>* grads, ParityDtype dtype, int64_t loss_length,
    int64_t gradient_length, const CudaContext& context);

// The device optimizer's options of every step test: clip to kClipNorm,
// AdamW's defaults.
cuda::DeviceOptimizerOptions ClippingOptimizerOptions();

// What a whole GPU step leaves, on the host.
struct GpuStepResult {
  std::vector<float> params;   // FP32 parameters (BF16: the master)
  std::vector<float> working;  // BF16: the refreshed bf16 working copy
  std::vector<float> m, v;     // AdamW's moments
  double global_norm;          // before clipping
  double clip_scale;           // what the gradients were multiplied by
};

// A whole GPU step from fresh device parameters holding `start` (FP32: a
// float buffer; BF16: MixedPrecisionParams) and a fresh optimizer
// (ClippingOptimizerOptions): forward + backward into *grads, then Step at
// learning_rate, which must apply (step 1) and zero *grads.
GpuStepResult RunGpuStep(const ParameterLayout& layout,
                         const std::vector<float>& start,
                         const StepRunners<float>& run, double learning_rate,
                         DeviceBuffer<float>* grads,
                         const CudaContext& context);
GpuStepResult RunGpuStep(const ParameterLayout& layout,
                         const std::vector<float>& start,
                         const StepRunners<__nv_bfloat16>& run,
                         double learning_rate, DeviceBuffer<float>* grads,
                         const CudaContext& context);

// The CPU's optimizer step (pretrainer.cc's order): `grads` clipped to
// kClipNorm (expected to clip: the cases are built to exercise it), then one
// AdamW<float> step from `params` at learning_rate.
struct CpuOptimizerStep {
  CpuOptimizerStep(const ParameterLayout& layout,
                   const std::vector<float>& params,
                   const std::vector<float>& grads, double learning_rate);

  ClipResult clip;
  AdamW<float> adam;
  std::vector<float> params;  // after the step
};

// Whether the GPU's and the CPU's clip factors round to the same float (the
// norms differ only in the last bits of a double, by reduction order), which
// is what makes the optimizer's results bit-identical; assert it.
::testing::AssertionResult SameClipFactor(double gpu_scale, double cpu_scale);

// The skipped-step tests' inputs: a 7 x 5 dense layer (encoder.dense), its
// parameters uniform in [-1, 1) (seed 3) and gradients (seed 4) with a NaN
// at [11].
struct NonFiniteStepInputs {
  ParameterLayout layout;
  std::vector<float> params;
  std::vector<float> grads;
};
NonFiniteStepInputs MakeNonFiniteStepInputs();

// The finite gradients (seed 5) of the step after the skipped one.
std::vector<float> FiniteGradients(int64_t size);

}  // namespace step_parity
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TRAINING_STEP_PARITY_FIXTURE_H_
