// The "cuda" fine-tuning backend (model/train/finetune_backend.h): the
// fine-tuning loop's arithmetic on one GPU, FP32 or BF16 mixed precision,
// composed from bert_for_finetuning_cuda and two_encoder_for_finetuning_cuda
// (forward / backward of every head they have), device_gradient_sum
// (micro-batches in tree order, the sum across ranks, the average and the
// norm) and DeviceOptimizer (clip + AdamW on the FP32 master, then the bf16
// working copy refreshed). Linking this library (alwayslink) registers it;
// the experiment binaries link it in --config=cuda builds, so
// `--device=cuda [--precision=bf16]` fine-tunes on the GPU too.
//
// What it runs: every model of the CPU backend (MakeFinetuneModel): one
// encoder (+ BiLSTM), or the ELMo-style two encoders (LTR & RTL, the CPU's
// TwoEncoderModel), with the classifier (classification and STS-B
// regression), multiple-choice or span head.
//
// Host round trips: each micro-batch's loss (4 bytes) and the step's norm
// (8 bytes), which the loop needs for its statistics and its non-finite
// rule; a prediction batch's head outputs. The parameters come from and go
// back to the host copy (SyncFromHost / SyncToHost); the optimizer's state
// lives on the device for one Train and is not saved (fine-tuning has no
// checkpoints to resume).
//
// Step buffers and the uploaded batch are kept per (rows, seq_len), the four
// most recent shapes, as the CPU model keeps its buffers: a training run
// meets the micro-batch's shape, its epoch's short last one and the
// prediction batches'.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only. The one-encoder
// step is what pretraining_step_parity_test and
// pretraining_step_bf16_parity_test check for every head (with and without
// the BiLSTM; bilstm_parity_test the BiLSTM alone), the two-encoder
// step two_encoder_step_parity_test; host_finetune_backend_cuda_test runs
// this backend against the CPU backend on the host CUDA build.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/collective.h"
#include "common/status_macros.h"
#include "model/bert_for_finetuning.h"
#include "model/bert_for_finetuning_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/optim/adamw.h"
#include "model/train/device_batch.h"
#include "model/train/device_gradient_sum.h"
#include "model/train/finetune_backend.h"
#include "model/train/local_device.h"
#include "model/train/step_buffer_cache.h"
#include "model/train/train_step_cuda.h"
#include "model/two_encoder_for_finetuning.h"
#include "model/two_encoder_for_finetuning_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

// The GPU step of each model the backend runs: its step buffers, its
// forward and forward + backward, and the config its batches are checked
// against (the first encoder's, whose attention mode decides the pooled
// positions).
template <typename Model, typename T>
struct DeviceStep;

template <typename T>
struct DeviceStep<BertForFinetuning, T> {
  using Buffers = FinetuneStepBuffers<T>;
  static const BertConfig& BatchConfig(const BertForFinetuning& model) {
    return model.config();
  }
  static const float* Forward(const BertForFinetuning& model, const T* params,
                              const EncoderBatch& batch,
                              const FinetuneTargets& targets,
                              const DropoutSettings& dropout, Buffers* buffers,
                              const CudaContext& context) {
    return FinetuneForward(model, params, batch, targets, dropout, buffers,
                           context);
  }
  static const float* ForwardBackward(const BertForFinetuning& model,
                                      const T* params, float* grads,
                                      const EncoderBatch& batch,
                                      const FinetuneTargets& targets,
                                      const DropoutSettings& dropout,
                                      Buffers* buffers,
                                      const CudaContext& context) {
    return FinetuneForwardBackward(model, params, grads, batch, targets,
                                   dropout, buffers, context);
  }
};

template <typename T>
struct DeviceStep<TwoEncoderForFinetuning, T> {
  using Buffers = TwoEncoderStepBuffers<T>;
  static const BertConfig& BatchConfig(const TwoEncoderForFinetuning& model) {
    return model.ltr_config();
  }
  static const float* Forward(const TwoEncoderForFinetuning& model,
                              const T* params, const EncoderBatch& batch,
                              const FinetuneTargets& targets,
                              const DropoutSettings& dropout, Buffers* buffers,
                              const CudaContext& context) {
    return TwoEncoderForward(model, params, batch, targets, dropout, buffers,
                             context);
  }
  static const float* ForwardBackward(const TwoEncoderForFinetuning& model,
                                      const T* params, float* grads,
                                      const EncoderBatch& batch,
                                      const FinetuneTargets& targets,
                                      const DropoutSettings& dropout,
                                      Buffers* buffers,
                                      const CudaContext& context) {
    return TwoEncoderForwardBackward(model, params, grads, batch, targets,
                                     dropout, buffers, context);
  }
};

// Model: BertForFinetuning or TwoEncoderForFinetuning (DeviceStep).
template <typename Model, typename T>
class CudaFinetuneBackend : public FinetuneBackend {
 public:
  using Step = DeviceStep<Model, T>;

  // On GPU `device`, which becomes this thread's.
  CudaFinetuneBackend(std::unique_ptr<FinetuneModel> model,
                      const BertConfig& config,
                      const FinetuneModelOptions& options,
                      const AdamWOptions& optimizer_options, int device)
      : FinetuneBackend(std::move(model), optimizer_options),
        device_model_(config, options),
        description_(
            DescribeCudaBackend(device, !std::is_same<T, float>::value)),
        size_(device_model_.layout().total_size()),
        context_(OnDevice(device)),
        gradient_(size_, context_),
        optimizer_(device_model_.layout(), optimizer_options),
        shapes_(
            [this](int64_t rows, int64_t seq_len) {
              return std::make_unique<Shape>(device_model_, rows, seq_len);
            },
            // Kernels on the stream may still use the buffers.
            [this] { context_.Synchronize(); }) {
    CHECK_EQ(size_, this->model().layout().total_size())
        << "the GPU step's layout differs from the model's";
  }

  std::string Describe() const override { return description_; }

  void BeginTraining() override {
    gradient_.Discard();
    optimizer_.Reset();
  }

  float ForwardBackward(const EncoderBatch& batch,
                        const FinetuneTargets& targets,
                        const DropoutSettings& dropout) override {
    Shape* shape = Upload(batch, targets);
    float* const term = gradient_.NextTerm();
    const float* loss = Step::ForwardBackward(
        device_model_, params_->working(), term, shape->batch.encoder_batch(),
        shape->batch.targets(), dropout, &shape->buffers, context_);
    gradient_.Push();
    return ReadScalar(loss);
  }

  void SkipMicroBatch() override { gradient_.Skip(); }

  absl::Status SumGradientsAcrossRanks(Collective* collective) override {
    return gradient_.SumAcrossRanks(
        collective, "cuda: the fine-tuning gradients' sum across ranks: ");
  }

  ClipResult FinishGradients(int64_t non_empty_micro_batches,
                             double clip_norm) override {
    // Fresh moments each Train (BeginTraining resets them).
    optimizer_.Ensure(clip_norm);
    return gradient_.AverageAndNorm(non_empty_micro_batches, clip_norm);
  }

  void Update(double learning_rate) override {
    CHECK(optimizer_.get() != nullptr) << "Update before FinishGradients";
    params_->Step(optimizer_.get(), learning_rate, nullptr, gradient_.grads(),
                  context_);
  }

  void EndTraining() override {
    optimizer_.Reset();
    gradient_.Discard();
    ReleaseBuffers();
  }

  FinetuneOutputs Forward(const EncoderBatch& batch) override {
    Shape* shape = Upload(batch, FinetuneTargets{});
    Step::Forward(device_model_, params_->working(),
                  shape->batch.encoder_batch(), FinetuneTargets{},
                  DropoutSettings{}, &shape->buffers, context_);
    FinetuneOutputs outputs;
    const typename Step::Buffers& buffers = shape->buffers;
    if (buffers.span != nullptr) {
      const int64_t tokens = batch.batch * batch.seq_len;
      outputs_.resize(static_cast<size_t>(2 * tokens));
      CopyToHost(outputs_.data(), buffers.span->start_logits(), tokens);
      CopyToHost(outputs_.data() + tokens, buffers.span->end_logits(), tokens);
      outputs.start_logits = outputs_.data();
      outputs.end_logits = outputs_.data() + tokens;
    } else {
      // (rows, num_labels), or (rows / C, C) for multiple choice: rows
      // values either way.
      const int64_t values =
          device_model_.options().head == FinetuneHead::kMultipleChoice
              ? batch.batch
              : batch.batch * device_model_.options().num_labels;
      outputs_.resize(static_cast<size_t>(values));
      CopyToHost(outputs_.data(), buffers.pooled->logits(), values);
      outputs.logits = outputs_.data();
    }
    context_.Synchronize();
    return outputs;
  }

  void ReleaseBuffers() override { shapes_.Clear(); }

  void SyncToHost() override {
    if (params_ == nullptr) return;
    context_.Synchronize();
    host_params() = params_->ToHost();
  }

  void SyncFromHost() override {
    context_.Synchronize();
    if (params_ == nullptr) {
      params_ = std::make_unique<TrainingParams<T>>(host_params(), context_);
    } else {
      params_->CopyFromHost(host_params(), context_);
    }
  }

 private:
  // One step shape's device buffers and batch.
  struct Shape {
    Shape(const Model& model, int64_t rows, int64_t seq_len)
        : buffers(model, rows, seq_len),
          batch(model.options(), rows, seq_len) {}
    typename Step::Buffers buffers;
    DeviceFinetuneBatch batch;
  };

  Shape* Upload(const EncoderBatch& batch, const FinetuneTargets& targets) {
    CHECK(params_ != nullptr) << "SyncFromHost before the first step";
    Shape* shape = shapes_.Get(batch.batch, batch.seq_len);
    const absl::Status uploaded = shape->batch.Upload(
        Step::BatchConfig(device_model_), batch, targets, context_);
    // The loop's batches come from features the task checked: a bad one is
    // a bug.
    CHECK(uploaded.ok()) << uploaded;
    return shape;
  }

  float ReadScalar(const float* device) {
    float value = 0;
    CopyToHost(&value, device, 1);
    context_.Synchronize();
    return value;
  }

  void CopyToHost(float* host, const float* device, int64_t count) {
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(host, device, sizeof(float) * count,
                                       cudaMemcpyDeviceToHost,
                                       context_.stream()));
  }

  const Model device_model_;
  std::string description_;
  int64_t size_;
  CudaContext context_;
  std::unique_ptr<TrainingParams<T>> params_;
  DeviceGradientSum gradient_;
  LoopOptimizer optimizer_;
  StepBufferCache<Shape> shapes_;
  std::vector<float> outputs_;
};

// The backend of `Model` (MakeFinetuneModel's for two_encoders) in
// `precision` on GPU `device`.
template <typename Model>
std::unique_ptr<FinetuneBackend> MakeBackendOf(
    const BertConfig& config, const FinetuneModelOptions& options,
    bool two_encoders, const AdamWOptions& optimizer_options,
    Precision precision, int device) {
  std::unique_ptr<FinetuneModel> model =
      MakeFinetuneModel(config, options, two_encoders);
  if (precision == Precision::kBfloat16Mixed) {
    return std::make_unique<CudaFinetuneBackend<Model, __nv_bfloat16>>(
        std::move(model), config, options, optimizer_options, device);
  }
  return std::make_unique<CudaFinetuneBackend<Model, float>>(
      std::move(model), config, options, optimizer_options, device);
}

absl::StatusOr<std::unique_ptr<FinetuneBackend>> MakeCudaFinetuneBackend(
    const BertConfig& config, const FinetuneModelOptions& options,
    bool two_encoders, const AdamWOptions& optimizer_options,
    Precision precision) {
  if (two_encoders) {
    // Not a GPU limit: the model has no BiLSTM on the CPU either
    // (TwoEncoderForFinetuning CHECKs it; the Finetuner refuses it first).
    if (options.bilstm) {
      return absl::InvalidArgumentError(
          "the two-encoder (ELMo-style LTR & RTL) model has no BiLSTM, on "
          "any device");
    }
    ASSIGN_OR_RETURN(const int device, ChooseLocalDevice());
    return MakeBackendOf<TwoEncoderForFinetuning>(
        config, options, two_encoders, optimizer_options, precision, device);
  }
  ASSIGN_OR_RETURN(const int device, ChooseLocalDevice());
  return MakeBackendOf<BertForFinetuning>(config, options, two_encoders,
                                          optimizer_options, precision, device);
}

[[maybe_unused]] const bool registered =
    RegisterFinetuneBackend("cuda", MakeCudaFinetuneBackend);

}  // namespace
}  // namespace cuda
}  // namespace bertlab
