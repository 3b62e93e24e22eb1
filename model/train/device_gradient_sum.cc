// A GPU step's gradient from its micro-batches; see device_gradient_sum.h.
#include "model/train/device_gradient_sum.h"

#include <cuda_runtime.h>

#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "model/cuda/cuda_check.h"
#include "model/ops/residual_cuda.h"
#include "model/optim/adamw_cuda.h"
#include "model/optim/gradient_accumulation_cuda.h"

#ifdef BERTLAB_NCCL
#include "model/cuda/nccl/rank_gradient_sum.h"
#else
namespace bertlab {
namespace cuda {
// Never made without NCCL; complete so the unique_ptr can destroy it.
class RankGradientSum {};
}  // namespace cuda
}  // namespace bertlab
#endif

namespace bertlab {
namespace cuda {

float* DeviceTreeSum::NextTerm(const CudaContext& context) {
  CHECK(!term_open_) << "NextTerm twice without Push";
  term_open_ = true;
  nodes_.push_back(Node{Take(), 1});
  nodes_.back().values.Zero(context.stream());
  return nodes_.back().values.data();
}

void DeviceTreeSum::Push(const CudaContext& context) {
  CHECK(term_open_) << "Push without NextTerm";
  term_open_ = false;
  ++terms_;
  while (nodes_.size() >= 2 &&
         nodes_[nodes_.size() - 2].terms == nodes_.back().terms) {
    MergeLast(context);
  }
}

void DeviceTreeSum::Finish(const CudaContext& context,
                           DeviceBuffer<float>* out) {
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

void DeviceTreeSum::Recycle(DeviceBuffer<float>&& buffer) {
  DeviceBuffer<float> kept = std::move(buffer);
  if (kept.size() == size_) spares_.push_back(std::move(kept));
}

DeviceBuffer<float> DeviceTreeSum::Take() {
  if (spares_.empty()) return DeviceBuffer<float>("step.grads", size_);
  DeviceBuffer<float> buffer = std::move(spares_.back());
  spares_.pop_back();
  return buffer;
}

void DeviceTreeSum::MergeLast(const CudaContext& context) {
  Node right = std::move(nodes_.back());
  nodes_.pop_back();
  Node& left = nodes_.back();
  ResidualAddForward<float>(left.values.data(), left.values.data(),
                            right.values.data(), size_, context);
  left.terms += right.terms;
  spares_.push_back(std::move(right.values));
}

DeviceGradientSum::DeviceGradientSum(int64_t size, const CudaContext& context)
    : size_(size),
      context_(context),
      tree_(size),
      norm_("step.global_norm", 1),
      norm_partials_("step.global_norm_partials", GlobalNormScratchSize(size)) {
}

DeviceGradientSum::~DeviceGradientSum() = default;

void DeviceGradientSum::Skip() {
  tree_.NextTerm(context_);
  tree_.Push(context_);
}

void DeviceGradientSum::Discard() {
  if (tree_.terms() > 0) tree_.Finish(context_, &grads_);
  tree_.Recycle(std::move(grads_));
}

float* DeviceGradientSum::grads() {
  // No terms and no gradient yet: zeros.
  if (tree_.terms() > 0 || grads_.size() == 0) tree_.Finish(context_, &grads_);
  return grads_.data();
}

absl::Status DeviceGradientSum::SumAcrossRanks(Collective* collective,
                                               const std::string& log_prefix) {
  float* const sum = grads();  // this rank's term
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
      std::cerr << log_prefix << rank_sum_->Describe() << "\n";
    }
  }
  return rank_sum_->Sum(sum, size_);
#else
  (void)sum;
  (void)log_prefix;
  return absl::UnimplementedError(absl::StrCat(
      "this cuda build has no NCCL: ", collective->size(),
      " data-parallel ranks need the sum across them (build where the "
      "toolkit has NCCL, or run one rank)"));
#endif
}

ClipResult DeviceGradientSum::AverageAndNorm(int64_t non_empty_micro_batches,
                                             double clip_norm) {
  float* const sum = grads();
  AverageAccumulatedGradients(non_empty_micro_batches, size_, sum, context_);
  GlobalNorm(norm_.data(), norm_partials_.data(), sum, size_, context_);
  ClipResult result;
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&result.global_norm, norm_.data(),
                                     sizeof(double), cudaMemcpyDeviceToHost,
                                     context_.stream()));
  context_.Synchronize();
  // The factor the device optimizer will apply, as gradient_clipping_cuda.h
  // computes it.
  if (clip_norm > 0 && result.finite() && result.global_norm > clip_norm) {
    result.scale = clip_norm / result.global_norm;
  }
  return result;
}

}  // namespace cuda
}  // namespace bertlab
