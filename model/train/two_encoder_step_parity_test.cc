// Needs a GPU: tagged manual + requires-gpu, built only with --config=cuda.
// The two-encoder (ELMo-style LTR & RTL) fine-tuning step on the GPU
// (model/two_encoder_for_finetuning_cuda.h) against the CPU's
// (model/two_encoder_for_finetuning.h), FP32 and BF16 mixed precision, on
// the step tests' tiny config (two encoders of hidden 36, 3 heads,
// intermediate 40, 2 layers, vocabulary 53; the head reads 72), padded 3 x 7
// batch and head targets (training_step_parity_fixture.h), the LTR encoder
// pooling each row's last real token:
//
//   a classifier of 3 labels (one ignored), STS-B regression and multiple
//   choice of 3, each with training dropout; the span head with training
//   dropout and in eval (an out-of-window and an ignored position).
//
// For each, through the one comparator (parity_comparator.h):
//   - the loss and every named parameter gradient of both encoders and the
//     head (step_parity::CheckForwardBackward, which also asks two GPU passes
//     for the same bits);
//   - the head's input, [LTR ; RTL] per row, against the CPU's
//     concatenation (the others' pooled rows; the span head's sequence rows
//     at the real tokens, see below);
//   - the head's outputs: the logits (the span head's start and end logits
//     at the real tokens) and the span head's start and end losses.
// BF16: the CPU runs on the bf16 rounding of the FP32 master the GPU's
// working copy is cast from.
//
// Both precisions use encoder_parity::kBf16WeightScale's moderate weights.
// At kFp32WeightScale (the one-encoder FP32 test's) the RTL encoder's
// saturated softmax turns rounding into errors beyond the FP32 bound on the
// CPU alone: measured on the classifier case, the CPU float step's gradients
// differ from the same step in double by up to 2.9x the bound (the host GPU
// build's from the CPU's by 1.9x), so no two float steps could be held to
// it; at the moderate weights the CPU float step is within 0.06 of the bound
// from double on every gradient of the pooled heads, and the host GPU build
// within 0.06 of it from the CPU on every case.
//
// Padding in the RTL encoder: a padded position there attends only to later
// positions, all padding, so every key of its row is masked, and its scores
// (q.k + mask_value, -10000) are rounded at the spacing of floats near 10^4
// (2^-10), not of the scores: the eps x sqrt(K) model does not describe
// those rows (the CPU float's span head input there is 2x the bound from
// double). The span head reads every position, so its input and its logits
// are compared at the real tokens. The padded positions still enter the
// losses and every gradient, which are compared whole: there the two float
// steps round those scores alike (the host GPU build within 0.06 of the
// bound from the CPU) though each is up to 2.9x the bound from double; a GPU
// whose q.k differs enough to round one such score the other way would fail
// there, which the first GPU run will tell.
//
// Reduction lengths K: the two encoders run side by side, not one after the
// other, and the concatenation and the split are copies, so the longest
// chain is one encoder's plus the head's, whose linear reads 2H. FP32 counts
// reduction lengths as pretraining_step_parity_test.cc does (the rounding
// errors of chained reductions add as independent random walks); BF16 counts
// the bf16 stores on the chain as pretraining_step_bf16_parity_test.cc does,
// with the pooler's stores counted as encoder_bf16_parity_test.cc counts
// them.
//
// The analytically zero gradients (model/parity/gradient_parity.h) include,
// for the span head, each encoder's last output LayerNorm bias: the head is
// linear in [ltr ; rtl], so each half's bias gradient is the head's bias
// gradient (zero) times that half's weights; the layout scan finds only the
// unprefixed "bert." name, so the test names both.
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/bert/encoder_parity_fixture.h"
#include "model/cuda/activation_buffer.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bf16_test_util.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/parity_test_util.h"
#include "model/finetune_heads.h"
#include "model/parity/parity_comparator.h"
#include "model/train/device_batch.h"
#include "model/train/train_step_cuda.h"
#include "model/train/training_step_parity_fixture.h"
#include "model/two_encoder_for_finetuning.h"
#include "model/two_encoder_for_finetuning_cuda.h"

namespace bertlab {
namespace {

using encoder_parity::kBatch;
using encoder_parity::kSeqLen;
using step_parity::FinetuneCase;
using step_parity::ReadScalar;

// The mode is the LTR checkpoint's; the model sets each encoder's own.
constexpr FinetuneCase kClassifierTraining{
    "classifier of 3 labels (one ignored), training dropout",
    AttentionMode::kCausal, true, FinetuneHead::kClassifier, 3};
constexpr FinetuneCase kRegressionTraining{
    "regression (STS-B), training dropout", AttentionMode::kCausal, true,
    FinetuneHead::kClassifier, 1};
constexpr FinetuneCase kMultipleChoiceTraining{
    "multiple choice of 3, training dropout", AttentionMode::kCausal, true,
    FinetuneHead::kMultipleChoice};
constexpr FinetuneCase kSpanTraining{"span, training dropout",
                                     AttentionMode::kCausal, true,
                                     FinetuneHead::kSpan};
constexpr FinetuneCase kSpanEval{"span, eval", AttentionMode::kCausal, false,
                                 FinetuneHead::kSpan};

FinetuneModelOptions HeadOptions(const FinetuneCase& c) {
  FinetuneModelOptions options;
  options.head = c.head;
  options.num_labels = c.num_labels;
  options.num_choices = c.num_choices;
  return options;
}

// What the comparisons of one case use as K.
struct ReductionLengths {
  int64_t head_input;  // the concatenated encoder outputs
  int64_t logits;      // the head's float logits
  int64_t loss;        // the loss (and the span head's start / end losses)
  int64_t gradient;    // every parameter gradient
};

// FP32, as pretraining_step_parity_test.cc: the encoder's forward chain
// (embedding LayerNorm and the pooler, then per layer QKV, scores, probs v,
// attention output, LayerNorm, Dense1, Dense2, LayerNorm); forward and
// backward plus the column sums over the B*T rows; then the head's linear
// (W = 2H) and its softmax over T (span) or the rows' classes, forward and
// backward, plus the column sums over its rows.
ReductionLengths Fp32Lengths(const TwoEncoderForFinetuning& model) {
  const BertConfig& config = model.ltr_config();
  const int64_t hidden = config.hidden_size;
  const int64_t width = model.head_config().hidden_size;
  const int64_t forward =
      2 * hidden + config.num_hidden_layers *
                       (7 * hidden + kSeqLen + config.intermediate_size);
  const int64_t encoder = 2 * forward + kBatch * kSeqLen;
  const int64_t step = model.options().head == FinetuneHead::kSpan
                           ? encoder + 2 * (width + kSeqLen) + kBatch * kSeqLen
                           : encoder + 2 * (width + kBatch) + kBatch;
  return {forward, forward + width, step, step};
}

// BF16: the bf16 stores on the chain. To the sequence output 3 + 14 per
// layer, back from its gradient 13 per layer + 2
// (pretraining_step_bf16_parity_test.cc lists them); the pooler adds its
// dense and tanh forward, and tanh, its d_in and the add at the pooled rows
// backward (encoder_bf16_parity_test.cc). Span head: float logits straight
// from the sequence output; backward d_logits' rounding and its d_in. Pooled
// heads: the dropout's store before the float logits; backward d_logits'
// rounding, d_pooled and the dropout's backward.
ReductionLengths Bf16Lengths(const TwoEncoderForFinetuning& model) {
  const int64_t layers = model.ltr_config().num_hidden_layers;
  const int64_t to_sequence = 3 + 14 * layers;
  const int64_t from_sequence = 13 * layers + 2;
  if (model.options().head == FinetuneHead::kSpan) {
    return {to_sequence, to_sequence, to_sequence,
            to_sequence + 2 + from_sequence};
  }
  const int64_t pooled = to_sequence + 2;
  const int64_t logits = pooled + 1;
  return {pooled, logits, logits, logits + 3 + 3 + from_sequence};
}

// The analytically zero gradients the layout scan cannot name (see the file
// comment): multiple choice's classifier.bias; the span head's last output
// LayerNorm bias of each encoder.
std::map<std::string, std::string> AnalyticallyZero(
    const TwoEncoderForFinetuning& model) {
  switch (model.options().head) {
    case FinetuneHead::kMultipleChoice:
      return {{"classifier.bias", "classifier.weight"}};
    case FinetuneHead::kSpan: {
      const std::string last_norm =
          "bert.encoder.layer." +
          std::to_string(model.ltr_config().num_hidden_layers - 1) +
          ".output.LayerNorm.";
      std::map<std::string, std::string> zero;
      for (const char* prefix : {kLeftToRightPrefix, kRightToLeftPrefix}) {
        const std::string norm = prefix + last_norm;
        zero[norm + "bias"] = norm + "weight";
      }
      return zero;
    }
    case FinetuneHead::kClassifier:
      break;
  }
  return {};
}

// The entries of the real tokens (attention mask 1) of a (B*T, width) tensor.
std::vector<float> AtRealTokens(const std::vector<float>& values,
                                const encoder_parity::HostBatch& batch,
                                int64_t width) {
  std::vector<float> real;
  for (int64_t token = 0; token < kBatch * kSeqLen; ++token) {
    if (batch.attention_mask[token] == 0) continue;
    real.insert(real.end(), values.begin() + token * width,
                values.begin() + (token + 1) * width);
  }
  return real;
}

// `count` device values of storage type Storage as float, after the stream.
template <typename Storage>
std::vector<float> DeviceToFloat(const void* device, int64_t count,
                                 const CudaContext& context) {
  context.Synchronize();
  std::vector<Storage> host(static_cast<size_t>(count));
  BERTLAB_CUDA_CHECK(cudaMemcpy(host.data(), device, sizeof(Storage) * count,
                                cudaMemcpyDeviceToHost));
  return ToFloat(host);
}

// One case on both sides: TwoEncoderForFinetuning (the case's head) on
// step_parity::TinyConfig at `scale`, random parameters at `scale` (the
// FP32 master of BF16; the CPU runs on what the GPU reads), the padded batch
// with the last real tokens as pooled positions, the case's targets, dropout
// (seed 41, step 5), the CPU float buffers, and on the GPU the parameters,
// the uploaded batch (check `uploaded`) and the step buffers of type T.
template <typename T>
struct TwoEncoderStep {
  using Storage = typename ActivationBuffer<T>::Storage;
  static constexpr bool kBf16 = !std::is_same<T, float>::value;

  TwoEncoderStep(const FinetuneCase& c,
                 const encoder_parity::WeightScale& scale)
      : head(c.head),
        model(step_parity::TinyConfig(c.mode, scale), HeadOptions(c)),
        master(encoder_parity::RandomParameters(model.layout(), scale)),
        cpu_params(kBf16 ? RoundToBf16(master) : master),
        host(encoder_parity::MakeBatch(model.ltr_config())),
        host_view(encoder_parity::HostEncoderBatch(host,
                                                   /*pooled_positions=*/true)),
        host_targets(step_parity::MakeFinetuneTargets(c)),
        cpu_targets(host_targets.View(c.head)),
        dropout{c.training, /*seed=*/41, /*step=*/5},
        cpu_buffers(model, kBatch, kSeqLen),
        gpu_params(master, context),
        device_batch(HeadOptions(c), kBatch, kSeqLen),
        uploaded(device_batch.Upload(model.ltr_config(), host_view, cpu_targets,
                                     context)),
        gpu_buffers(model, kBatch, kSeqLen) {}
  TwoEncoderStep(const TwoEncoderStep&) = delete;
  TwoEncoderStep& operator=(const TwoEncoderStep&) = delete;

  step_parity::StepRunners<T> Runners() {
    step_parity::StepRunners<T> run;
    run.cpu = [this](const float* p, float* grads) {
      return TwoEncoderForwardBackward(model, p, grads, host_view, cpu_targets,
                                       dropout, &cpu_buffers);
    };
    run.gpu = [this](const T* p, float* grads) {
      return cuda::TwoEncoderForwardBackward(
          model, p, grads, device_batch.encoder_batch(), device_batch.targets(),
          dropout, &gpu_buffers, context);
    };
    run.analytically_zero = AnalyticallyZero(model);
    return run;
  }

  // The head's input of the last pass, both sides: the pooled rows, or the
  // sequence rows of the real tokens (see the file comment).
  std::vector<float> GpuHeadInput() const {
    return OfRealRows(DeviceToFloat<Storage>(
        gpu_buffers.head_input.data(), gpu_buffers.head_input.size(), context));
  }
  std::vector<float> CpuHeadInput() const {
    return OfRealRows(head == FinetuneHead::kSpan ? cpu_buffers.sequence_output
                                                  : cpu_buffers.pooled_output);
  }
  std::vector<float> OfRealRows(const std::vector<float>& head_input) const {
    if (head != FinetuneHead::kSpan) return head_input;
    return AtRealTokens(head_input, host, model.head_config().hidden_size);
  }

  const FinetuneHead head;
  const TwoEncoderForFinetuning model;
  const std::vector<float> master;
  const std::vector<float> cpu_params;
  const encoder_parity::HostBatch host;
  const EncoderBatch host_view;
  const step_parity::HostFinetuneTargets host_targets;
  const FinetuneTargets cpu_targets;
  const DropoutSettings dropout;
  TwoEncoderStepBuffers<float> cpu_buffers;
  CudaContext context;
  const cuda::TrainingParams<T> gpu_params;
  cuda::DeviceFinetuneBatch device_batch;
  const absl::Status uploaded;
  cuda::TwoEncoderStepBuffers<T> gpu_buffers;
};

// The head's outputs of the last pass (see the file comment).
template <typename T>
void ExpectHeadOutputs(const TwoEncoderStep<T>& step, ParityDtype dtype,
                       const ReductionLengths& k) {
  const CudaContext& context = step.context;
  const int64_t tokens = kBatch * kSeqLen;
  if (step.head == FinetuneHead::kSpan) {
    const cuda::SpanHeadActivations<T>& gpu = *step.gpu_buffers.span;
    const SpanHeadActivations<float>& cpu = *step.cpu_buffers.span;
    // At the real tokens (see the file comment).
    const auto real = [&step](const std::vector<float>& logits) {
      return AtRealTokens(logits, step.host, /*width=*/1);
    };
    ExpectParity(
        "start logits",
        real(DeviceToFloat<float>(gpu.start_logits(), tokens, context)),
        real(std::vector<float>(cpu.start_logits(),
                                cpu.start_logits() + tokens)),
        dtype, k.logits);
    ExpectParity(
        "end logits",
        real(DeviceToFloat<float>(gpu.end_logits(), tokens, context)),
        real(std::vector<float>(cpu.end_logits(), cpu.end_logits() + tokens)),
        dtype, k.logits);
    ExpectParity("start loss", ReadScalar(gpu.start_loss(), context),
                 cpu.start_loss(), dtype, k.loss);
    ExpectParity("end loss", ReadScalar(gpu.end_loss(), context),
                 cpu.end_loss(), dtype, k.loss);
    return;
  }
  const float* cpu_logits = nullptr;
  int64_t count = kBatch;  // multiple choice: (B / C, C)
  if (step.head == FinetuneHead::kClassifier) {
    cpu_logits = step.cpu_buffers.classifier->logits();
    count = kBatch * step.model.options().num_labels;
  } else {
    cpu_logits = step.cpu_buffers.multiple_choice->scores();
  }
  ExpectParity(
      "logits",
      DeviceToFloat<float>(step.gpu_buffers.pooled->logits(), count, context),
      std::vector<float>(cpu_logits, cpu_logits + count), dtype, k.logits);
}

template <typename T>
void CheckStep(const FinetuneCase& c, ParityDtype dtype) {
  SCOPED_TRACE(c.name);
  // Both precisions (see the file comment).
  TwoEncoderStep<T> step(c, encoder_parity::kBf16WeightScale);
  ASSERT_TRUE(step.uploaded.ok()) << step.uploaded.ToString();
  const ReductionLengths k = std::is_same<T, float>::value
                                 ? Fp32Lengths(step.model)
                                 : Bf16Lengths(step.model);
  DeviceBuffer<float> grads("grads", step.model.layout().total_size());
  step_parity::WaitForHostCopies();
  step_parity::CheckForwardBackward(step.model.layout(), step.Runners(),
                                    step.cpu_params, step.gpu_params.working(),
                                    &grads, dtype, k.loss, k.gradient,
                                    step.context);
  // Both sides' buffers now hold the last pass, on the same parameters.
  ExpectParity("head input [ltr ; rtl]", step.GpuHeadInput(),
               step.CpuHeadInput(), dtype, k.head_input);
  ExpectHeadOutputs(step, dtype, k);
}

void CheckFp32(const FinetuneCase& c) { CheckStep<float>(c, kF32); }

void CheckBf16(const FinetuneCase& c) { CheckStep<__nv_bfloat16>(c, kBF16); }

TEST(TwoEncoderStepParityTest, ClassifierTraining) {
  CheckFp32(kClassifierTraining);
}

TEST(TwoEncoderStepParityTest, RegressionTraining) {
  CheckFp32(kRegressionTraining);
}

TEST(TwoEncoderStepParityTest, MultipleChoiceTraining) {
  CheckFp32(kMultipleChoiceTraining);
}

TEST(TwoEncoderStepParityTest, SpanTraining) { CheckFp32(kSpanTraining); }

TEST(TwoEncoderStepParityTest, SpanEval) { CheckFp32(kSpanEval); }

TEST(TwoEncoderStepBf16ParityTest, ClassifierTraining) {
  CheckBf16(kClassifierTraining);
}

TEST(TwoEncoderStepBf16ParityTest, RegressionTraining) {
  CheckBf16(kRegressionTraining);
}

TEST(TwoEncoderStepBf16ParityTest, MultipleChoiceTraining) {
  CheckBf16(kMultipleChoiceTraining);
}

TEST(TwoEncoderStepBf16ParityTest, SpanTraining) { CheckBf16(kSpanTraining); }

TEST(TwoEncoderStepBf16ParityTest, SpanEval) { CheckBf16(kSpanEval); }

}  // namespace
}  // namespace bertlab
