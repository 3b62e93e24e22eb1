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
// Micro-batches: as the CPU backend, each micro-batch's gradient goes into a
// zeroed device buffer of its own and the step's gradient is their sum in
// the tree order of common/collective.h (DeviceTreeSum below: at most
// log2(micro-batches) + 1 gradient buffers, merged by an element-wise add),
// so that a step gives the same bits on one GPU and on N data-parallel
// ranks holding its micro-batches in runs of k = M / N.
//
// Data parallelism (SumGradientsAcrossRanks with more than one rank): the
// sum across the ranks is //model/cuda/nccl's RankGradientSum (NCCL
// bootstrapped through the job's Collective, or host memory where ranks
// share a GPU), linked where the toolkit has NCCL (BERTLAB_NCCL, set by
// BUILD); elsewhere, the host CUDA build included, more than one rank is
// refused (PretrainingBackend's default). Each process takes its launcher's
// local rank's GPU (LocalDevice below) before it allocates anything.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only. The numerics are
// those of the step that pretraining_step_parity_test and
// pretraining_step_bf16_parity_test check; the loop around them, the tree
// sum of the micro-batches and the sum across ranks have not run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
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
#include "model/bert_for_pretraining.h"
#include "model/bert_for_pretraining_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/device_buffer.h"
#include "model/ops/residual_cuda.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_cuda.h"
#include "model/optim/gradient_accumulation_cuda.h"
#include "model/train/device_batch.h"
#include "model/train/pretraining_backend.h"
#include "model/train/train_step_cuda.h"

#ifdef BERTLAB_NCCL
#include "model/cuda/nccl/rank_gradient_sum.h"
#endif

namespace bertlab {
namespace cuda {
namespace {

std::string DeviceName(int device) {
  cudaDeviceProp properties;
  BERTLAB_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

// The GPU of this process among `devices`: its launcher's local rank
// (OpenMPI's OMPI_COMM_WORLD_LOCAL_RANK, else Slurm's SLURM_LOCALID), else
// its rank in the job (OMPI_COMM_WORLD_RANK, else SLURM_PROCID), modulo the
// device count; device 0 for a process alone. More ranks than GPUs share
// them (then RankGradientSum sums through host memory).
int LocalDevice(int devices) {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                               "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(text, &end, 10);
    if (*end == '\0' && rank >= 0) return static_cast<int>(rank % devices);
  }
  return 0;
}

// The sum of a step's micro-batch gradients in the tree order of
// common/collective.h, on the device: TreeSum<float>'s binary counter (a new
// term merges with the node before it while both cover as many terms;
// Finish folds what is left from the right) over device buffers of `size`
// floats, the merges ResidualAddForward<float> (left = left + right, one
// float add per element). Everything on the context's stream, so a buffer
// handed back as a spare may be reused at once. At most log2(terms) + 1
// buffers, kept from one step to the next.
class DeviceTreeSum {
 public:
  explicit DeviceTreeSum(int64_t size) : size_(size) {}

  // Terms pushed since the last Finish.
  int64_t terms() const { return terms_; }

  // A zeroed buffer for the next term; write it, then Push().
  float* NextTerm(const CudaContext& context) {
    CHECK(!term_open_) << "NextTerm twice without Push";
    term_open_ = true;
    nodes_.push_back(Node{Take(), 1});
    nodes_.back().values.Zero(context.stream());
    return nodes_.back().values.data();
  }

  void Push(const CudaContext& context) {
    CHECK(term_open_) << "Push without NextTerm";
    term_open_ = false;
    ++terms_;
    while (nodes_.size() >= 2 &&
           nodes_[nodes_.size() - 2].terms == nodes_.back().terms) {
      MergeLast(context);
    }
  }

  // *out becomes the sum of the terms since the last Finish (zeros when
  // there were none); its old buffer becomes a spare. Starts a new round.
  void Finish(const CudaContext& context, DeviceBuffer<float>* out) {
    CHECK(!term_open_) << "Finish with a term not pushed";
    DeviceBuffer<float> old = std::move(*out);
    if (nodes_.empty()) {
      *out = Take();
      out->Zero(context.stream());
    } else {
      while (nodes_.size() >= 2) MergeLast(context);
      *out = std::move(nodes_.back().values);
      nodes_.clear();
    }
    Recycle(std::move(old));
    terms_ = 0;
  }

  // Keeps `buffer` (when it has size() elements) for a later term.
  void Recycle(DeviceBuffer<float>&& buffer) {
    DeviceBuffer<float> kept = std::move(buffer);
    if (kept.size() == size_) spares_.push_back(std::move(kept));
  }

 private:
  struct Node {
    DeviceBuffer<float> values;
    int64_t terms = 0;
  };

  DeviceBuffer<float> Take() {
    if (spares_.empty()) return DeviceBuffer<float>("pretraining.grads", size_);
    DeviceBuffer<float> buffer = std::move(spares_.back());
    spares_.pop_back();
    return buffer;
  }

  // The last node added into the one before it.
  void MergeLast(const CudaContext& context) {
    Node right = std::move(nodes_.back());
    nodes_.pop_back();
    Node& left = nodes_.back();
    ResidualAddForward<float>(left.values.data(), left.values.data(),
                              right.values.data(), size_, context);
    left.terms += right.terms;
    spares_.push_back(std::move(right.values));
  }

  int64_t size_;
  int64_t terms_ = 0;
  bool term_open_ = false;
  std::vector<Node> nodes_;
  std::vector<DeviceBuffer<float>> spares_;
};

template <typename T>
class CudaPretrainingBackend : public PretrainingBackend {
 public:
  // On GPU `device` (LocalDevice), which becomes this thread's.
  CudaPretrainingBackend(const BertForPretraining& model,
                         const AdamWOptions& optimizer_options, int device)
      : PretrainingBackend(model, optimizer_options),
        optimizer_options_(optimizer_options),
        device_name_(DeviceName(device)),
        size_(model.layout().total_size()),
        context_(ContextOptions(device)),
        micro_batch_sum_(size_),
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

  void ZeroGradients() override {
    // Drop the terms of an unfinished step; the last step's gradient becomes
    // the buffer of the next term (as the CPU backend does).
    if (micro_batch_sum_.terms() > 0) {
      micro_batch_sum_.Finish(context_, &grads_);
    }
    micro_batch_sum_.Recycle(std::move(grads_));
  }

  MicroBatchLosses ForwardBackward(const EncoderBatch& batch,
                                   const PretrainingTargets& targets,
                                   const DropoutSettings& dropout) override {
    Upload(batch, targets);
    float* const term = micro_batch_sum_.NextTerm(context_);
    const float* losses = PretrainingForwardBackward(
        model(), params_->working(), term, device_batch_->encoder_batch(),
        device_batch_->targets(), dropout, buffers_.get(), context_);
    micro_batch_sum_.Push(context_);
    return ReadLosses(losses);
  }

  absl::Status SumGradientsAcrossRanks(Collective* collective) override {
    Grads();  // the micro-batches' sum, this rank's term
    if (collective->size() == 1) return absl::OkStatus();
#ifdef BERTLAB_NCCL
    if (rank_sum_ == nullptr || rank_sum_collective_ != collective) {
      rank_sum_.reset();
      absl::StatusOr<std::unique_ptr<RankGradientSum>> started =
          RankGradientSum::Start(collective, context_);
      if (!started.ok()) return started.status();
      rank_sum_ = std::move(started).value();
      rank_sum_collective_ = collective;
      if (collective->rank() == 0) {
        std::cerr << "cuda: the gradients' sum across ranks: "
                  << rank_sum_->Describe() << "\n";
      }
    }
    return rank_sum_->Sum(Grads(), size_);
#else
    return PretrainingBackend::SumGradientsAcrossRanks(collective);
#endif
  }

  ClipResult FinishGradients(int64_t num_micro_batches,
                             double clip_norm) override {
    EnsureOptimizer(clip_norm);
    float* const grads = Grads();
    AverageAccumulatedGradients(num_micro_batches, size_, grads, context_);
    // The norm the loop logs and checks; Update's DeviceOptimizer::Step
    // clips by the same norm (recomputed there, deterministically equal).
    GlobalNorm(norm_.data(), norm_partials_.data(), grads, size_, context_);
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
    params_->Step(optimizer_.get(), learning_rate, nullptr, Grads(), context_);
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
  static CudaContextOptions ContextOptions(int device) {
    CudaContextOptions options;
    options.device = device;
    return options;
  }

  // The step's gradient (the micro-batches' sum so far, in tree order).
  float* Grads() {
    // No terms and no gradient yet: zeros.
    if (micro_batch_sum_.terms() > 0 || grads_.size() == 0) {
      micro_batch_sum_.Finish(context_, &grads_);
    }
    return grads_.data();
  }

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
  DeviceTreeSum micro_batch_sum_;
  DeviceBuffer<float> grads_;  // the step's sum once folded (Grads)
  DeviceBuffer<double> norm_;
  DeviceBuffer<double> norm_partials_;
  std::unique_ptr<DeviceOptimizer> optimizer_;
  double clip_norm_ = 0;
  std::unique_ptr<PretrainingStepBuffers<T>> buffers_;
  std::unique_ptr<DevicePretrainingBatch> device_batch_;
  int64_t batch_ = 0;
  std::vector<float> logits_host_;
#ifdef BERTLAB_NCCL
  // Started by the first SumGradientsAcrossRanks of several ranks.
  std::unique_ptr<RankGradientSum> rank_sum_;
  Collective* rank_sum_collective_ = nullptr;
#endif
};

absl::StatusOr<std::unique_ptr<PretrainingBackend>> MakeCudaBackend(
    const BertForPretraining& model, const AdamWOptions& optimizer_options,
    Precision precision) {
  int devices = 0;
  const cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "device cuda: no usable GPU (",
        error != cudaSuccess ? cudaGetErrorString(error) : "0 devices", ")"));
  }
  const int device = LocalDevice(devices);
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
