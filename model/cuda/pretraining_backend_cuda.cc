// The "cuda" pre-training backend (model/train/pretraining_backend.h): the
// pre-training loop's arithmetic on one GPU, FP32 or BF16 mixed precision,
// composed from bert_for_pretraining_cuda (forward / backward),
// gradient_accumulation_cuda, cuda::GlobalNorm and DeviceOptimizer (clip +
// AdamW on the FP32 master, then the bf16 working copy refreshed). Linking
// this library (alwayslink) registers it; //experiments:pretrain links it in
// --config=cuda builds, so `--device=cuda [--precision=bf16]` selects it.
//
// Host round trips per step: each micro-batch's three losses (12 bytes) and
// the global norm (8 bytes), which the loop needs for its logs and its
// non-finite rule; everything else stays on the device. Checkpoints copy
// the parameters and AdamW's moments to the host (SyncToHost).
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only. The numerics are
// those of the step that pretraining_step_parity_test and
// pretraining_step_bf16_parity_test check; the loop around them has not run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "model/bert_for_pretraining.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_batch.h"
#include "model/cuda/device_buffer.h"
#include "model/cuda/gradient_accumulation_cuda.h"
#include "model/cuda/train_step_cuda.h"
#include "model/optim/adamw.h"
#include "model/train/pretraining_backend.h"

namespace bertlab {
namespace cuda {
namespace {

std::string DeviceName() {
  int device = 0;
  BERTLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

template <typename T>
class CudaPretrainingBackend : public PretrainingBackend {
 public:
  CudaPretrainingBackend(const BertForPretraining& model,
                         const AdamWOptions& optimizer_options)
      : PretrainingBackend(model, optimizer_options),
        optimizer_options_(optimizer_options),
        device_name_(DeviceName()),
        size_(model.layout().total_size()),
        grads_("pretraining.grads", size_),
        norm_("pretraining.global_norm", 1),
        norm_partials_("pretraining.global_norm_partials",
                       GlobalNormScratchSize(size_)),
        logits_host_() {}

  std::string Describe() const override {
    return absl::StrCat("cuda (", device_name_, "), ",
                        std::is_same<T, float>::value
                            ? "fp32"
                            : "bf16 mixed precision (fp32 master weights)");
  }

  void PrepareShape(int64_t batch, int64_t seq_len,
                    int64_t max_predictions) override {
    context_.Synchronize();
    buffers_.reset();  // free the old shape's buffers first
    device_batch_.reset();
    // Flash attention: no (B, A, T, T) buffers, so BASE and LARGE at 512
    // fit their paper batches (encoder_activation_plan.h).
    buffers_ = std::make_unique<PretrainingStepBuffers<T>>(
        model().config(), batch, seq_len, max_predictions,
        GpuAttention::kFlash);
    device_batch_ = std::make_unique<DevicePretrainingBatch>(batch, seq_len,
                                                             max_predictions);
    batch_ = batch;
  }

  void ZeroGradients() override { grads_.Zero(context_.stream()); }

  MicroBatchLosses ForwardBackward(const EncoderBatch& batch,
                                   const PretrainingTargets& targets,
                                   const DropoutSettings& dropout) override {
    Upload(batch, targets);
    const float* losses = PretrainingForwardBackward(
        model(), params_->working(), grads_.data(),
        device_batch_->encoder_batch(), device_batch_->targets(), dropout,
        buffers_.get(), context_);
    return ReadLosses(losses);
  }

  ClipResult FinishGradients(int64_t num_micro_batches,
                             double clip_norm) override {
    EnsureOptimizer(clip_norm);
    AverageAccumulatedGradients(num_micro_batches, size_, grads_.data(),
                                context_);
    // The norm the loop logs and checks; Update's DeviceOptimizer::Step
    // clips by the same norm (recomputed there, deterministically equal).
    GlobalNorm(norm_.data(), norm_partials_.data(), grads_.data(), size_,
               context_);
    ClipResult result;
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&result.global_norm, norm_.data(),
                                       sizeof(double), cudaMemcpyDeviceToHost,
                                       context_.stream()));
    context_.Synchronize();
    // The factor Step will apply, as gradient_clipping_cuda.h computes it.
    if (clip_norm > 0 && result.finite() && result.global_norm > clip_norm) {
      result.scale = clip_norm / result.global_norm;
    }
    return result;
  }

  void Update(double learning_rate) override {
    CHECK(optimizer_ != nullptr) << "Update before FinishGradients";
    params_->Step(optimizer_.get(), learning_rate, nullptr, grads_.data(),
                  context_);
  }

  EvaluationLogits Forward(const EncoderBatch& batch,
                           const PretrainingTargets& targets) override {
    Upload(batch, targets);
    PretrainingForward(model(), params_->working(),
                       device_batch_->encoder_batch(), device_batch_->targets(),
                       DropoutSettings{}, buffers_.get(), context_);
    const int64_t logits =
        targets.num_predictions * model().config().vocab_size;
    logits_host_.resize(static_cast<size_t>(logits + 2 * batch_));
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(
        logits_host_.data(), buffers_->heads.prediction_logits(),
        sizeof(float) * logits, cudaMemcpyDeviceToHost, context_.stream()));
    EvaluationLogits result;
    if (targets.next_sentence_labels != nullptr) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(
          logits_host_.data() + logits, buffers_->heads.next_sentence_logits(),
          sizeof(float) * 2 * batch_, cudaMemcpyDeviceToHost,
          context_.stream()));
      result.next_sentence_logits = logits_host_.data() + logits;
    }
    context_.Synchronize();
    result.prediction_logits = logits_host_.data();
    return result;
  }

  void SyncToHost() override {
    context_.Synchronize();
    const std::vector<float> params = params_->ToHost();
    std::copy(params.begin(), params.end(), host_params());
    if (optimizer_ != nullptr) optimizer_->StoreState(host_optimizer());
  }

  void SyncFromHost() override {
    context_.Synchronize();
    const std::vector<float> params(host_params(), host_params() + size_);
    if (params_ == nullptr) {
      params_ = std::make_unique<TrainingParams<T>>(params, context_);
    } else {
      params_->CopyFromHost(params, context_);
    }
    if (optimizer_ != nullptr) optimizer_->LoadState(*host_optimizer());
  }

 private:
  // The clip norm arrives with the first FinishGradients (the CPU backend
  // takes it per call too); the device optimizer starts from the host
  // optimizer's state (fresh, or a loaded checkpoint's).
  void EnsureOptimizer(double clip_norm) {
    if (optimizer_ != nullptr) {
      CHECK_EQ(clip_norm, clip_norm_) << "the clip norm changed mid-run";
      return;
    }
    DeviceOptimizerOptions options;
    options.adamw = optimizer_options_;
    options.clip_norm = clip_norm;
    // The loop calls Update only for finite steps (its non-finite rule).
    options.skip_non_finite = false;
    optimizer_ = std::make_unique<DeviceOptimizer>(model().layout(), options);
    optimizer_->LoadState(*host_optimizer());
    clip_norm_ = clip_norm;
  }

  void Upload(const EncoderBatch& batch, const PretrainingTargets& targets) {
    CHECK(params_ != nullptr) << "SyncFromHost before the first step";
    CHECK(buffers_ != nullptr) << "PrepareShape before the first step";
    const absl::Status uploaded = device_batch_->Upload(
        model().config(), model().has_next_sentence_head(), batch, targets,
        context_);
    // The loop's batches come from validated shards: a bad one is a bug.
    CHECK(uploaded.ok()) << uploaded;
  }

  MicroBatchLosses ReadLosses(const float* device_losses) {
    float losses[3];
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(losses, device_losses, sizeof(losses),
                                       cudaMemcpyDeviceToHost,
                                       context_.stream()));
    context_.Synchronize();
    MicroBatchLosses result;
    result.loss = losses[0];
    result.language_model = losses[1];
    result.next_sentence = losses[2];
    return result;
  }

  AdamWOptions optimizer_options_;
  std::string device_name_;
  int64_t size_;
  CudaContext context_;
  std::unique_ptr<TrainingParams<T>> params_;
  DeviceBuffer<float> grads_;
  DeviceBuffer<double> norm_;
  DeviceBuffer<double> norm_partials_;
  std::unique_ptr<DeviceOptimizer> optimizer_;
  double clip_norm_ = 0;
  std::unique_ptr<PretrainingStepBuffers<T>> buffers_;
  std::unique_ptr<DevicePretrainingBatch> device_batch_;
  int64_t batch_ = 0;
  std::vector<float> logits_host_;
};

absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakeCudaBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    BackendPrecision precision) {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device cuda: no usable GPU (",
        error != cudaSuccess ? cudaGetErrorString(error) : "0 devices", ")"));
  }
  if (precision == BackendPrecision::kBfloat16Mixed) {
    return std::unique_ptr<PretrainingBackend>(
        new CudaPretrainingBackend<__nv_bfloat16>(model, optimizer_options));
  }
  return std::unique_ptr<PretrainingBackend>(
      new CudaPretrainingBackend<float>(model, optimizer_options));
}

[[maybe_unused]] const bool registered =
    RegisterPretrainingBackend("cuda", MakeCudaBackend);

}  // namespace
}  // namespace cuda
}  // namespace bertlab
