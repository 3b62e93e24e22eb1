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
// Micro-batches and data parallelism: device_gradient_sum.h (each
// micro-batch's gradient in a zeroed buffer of its own, summed in the tree
// order of common/collective.h, then across the ranks through NCCL), so that
// a step gives the same bits on one GPU and on N data-parallel ranks. Each
// process takes its launcher's local rank's GPU (ChooseLocalDevice) before
// it allocates anything.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only. The numerics are
// those of the step that pretraining_step_parity_test and
// pretraining_step_bf16_parity_test check; the loop around them, the tree
// sum of the micro-batches and the sum across ranks have not run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
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
#include "model/bert_for_pretraining.h"
#include "model/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/optim/adamw.h"
#include "model/train/device_batch.h"
#include "model/train/device_gradient_sum.h"
#include "model/train/local_device.h"
#include "model/train/pretraining_backend.h"
#include "model/train/train_step_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

template <typename T>
class CudaPretrainingBackend : public PretrainingBackend {
 public:
  // On GPU `device` (LocalDevice), which becomes this thread's.
  CudaPretrainingBackend(const BertForPretraining& model,
                         const AdamWOptions& optimizer_options, int device)
      : PretrainingBackend(model, optimizer_options),
        description_(
            DescribeCudaBackend(device, !std::is_same<T, float>::value)),
        size_(model.layout().total_size()),
        context_(OnDevice(device)),
        gradient_(size_, context_),
        optimizer_(model.layout(), optimizer_options) {}

  std::string Describe() const override { return description_; }

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

  void ZeroGradients() override {
    // Drop the terms of an unfinished step (as the CPU backend does).
    gradient_.Discard();
  }

  MicroBatchLosses ForwardBackward(const EncoderBatch& batch,
                                   const PretrainingTargets& targets,
                                   const DropoutSettings& dropout) override {
    Upload(batch, targets);
    float* const term = gradient_.NextTerm();
    const float* losses = PretrainingForwardBackward(
        model(), params_->working(), term, device_batch_->encoder_batch(),
        device_batch_->targets(), dropout, buffers_.get(), context_);
    gradient_.Push();
    return ReadLosses(losses);
  }

  absl::Status SumGradientsAcrossRanks(Collective* collective) override {
    return gradient_.SumAcrossRanks(collective,
                                    "cuda: the gradients' sum across ranks: ");
  }

  ClipResult FinishGradients(int64_t num_micro_batches,
                             double clip_norm) override {
    EnsureOptimizer(clip_norm);
    return gradient_.AverageAndNorm(num_micro_batches, clip_norm);
  }

  void Update(double learning_rate) override {
    CHECK(optimizer_.get() != nullptr) << "Update before FinishGradients";
    params_->Step(optimizer_.get(), learning_rate, nullptr, gradient_.grads(),
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
    if (optimizer_.get() != nullptr) {
      optimizer_.get()->StoreState(host_optimizer());
    }
  }

  void SyncFromHost() override {
    context_.Synchronize();
    const std::vector<float> params(host_params(), host_params() + size_);
    if (params_ == nullptr) {
      params_ = std::make_unique<TrainingParams<T>>(params, context_);
    } else {
      params_->CopyFromHost(params, context_);
    }
    if (optimizer_.get() != nullptr) {
      optimizer_.get()->LoadState(*host_optimizer());
    }
  }

 private:
  // The device optimizer starts from the host optimizer's state (fresh, or
  // a loaded checkpoint's).
  void EnsureOptimizer(double clip_norm) {
    bool made = false;
    DeviceOptimizer* optimizer = optimizer_.Ensure(clip_norm, &made);
    if (made) optimizer->LoadState(*host_optimizer());
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

  std::string description_;
  int64_t size_;
  CudaContext context_;
  std::unique_ptr<TrainingParams<T>> params_;
  DeviceGradientSum gradient_;
  LoopOptimizer optimizer_;
  std::unique_ptr<PretrainingStepBuffers<T>> buffers_;
  std::unique_ptr<DevicePretrainingBatch> device_batch_;
  int64_t batch_ = 0;
  std::vector<float> logits_host_;
};

absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakeCudaBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    Precision precision) {
  ASSIGN_OR_RETURN(const int device, ChooseLocalDevice());
  if (precision == Precision::kBfloat16Mixed) {
    return std::unique_ptr<PretrainingBackend>(
        new CudaPretrainingBackend<__nv_bfloat16>(model, optimizer_options,
                                                  device));
  }
  return std::unique_ptr<PretrainingBackend>(
      new CudaPretrainingBackend<float>(model, optimizer_options, device));
}

[[maybe_unused]] const bool registered =
    RegisterPretrainingBackend("cuda", MakeCudaBackend);

}  // namespace
}  // namespace cuda
}  // namespace bertlab
