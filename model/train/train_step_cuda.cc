// The GPU optimizer step; see train_step_cuda.h.
#include "model/train/train_step_cuda.h"

#include <cuda_runtime.h>

#include <cmath>

#include "absl/status/status.h"
#include "common/check.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/precision_cast_cuda.h"
#include "model/optim/gradient_clipping_cuda.h"

namespace bertlab {
namespace cuda {

MixedPrecisionParams::MixedPrecisionParams(const std::vector<float>& master,
                                           const CudaContext& context)
    : master_("mixed_precision.master_params", master),
      working_("mixed_precision.bf16_params",
               static_cast<int64_t>(master.size())) {
  Refresh(context);
}

void MixedPrecisionParams::CopyMasterFromHost(const std::vector<float>& master,
                                              const CudaContext& context) {
  // Synchronous and device-wide (device_buffer.h): no step still reads the
  // old master or working copy when it returns.
  BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
  master_.CopyFromHost(master);
  Refresh(context);
}

void MixedPrecisionParams::Refresh(const CudaContext& context) {
  CastFloatToBf16(AsDevice(working_.data()), master_.data(), master_.size(),
                  context);
}

DeviceOptimizer::DeviceOptimizer(const ParameterLayout& layout,
                                 const DeviceOptimizerOptions& options)
    : options_(options) {
  const absl::Status valid = ValidateAdamWOptions(options.adamw);
  CHECK(valid.ok()) << valid.ToString();
  CHECK(std::isfinite(options.clip_norm) && options.clip_norm >= 0)
      << "clip_norm " << options.clip_norm << " must be finite and >= 0";
  const AdamWOptions& adamw = options.adamw;
  step_options_ = {adamw.beta1, adamw.beta2, adamw.epsilon, adamw.weight_decay,
                   adamw.bias_correction};
  for (const WeightDecaySpan& span : WeightDecaySpans(layout)) {
    spans_.push_back({span.begin, span.end, span.decay});
  }
  const int64_t size = layout.total_size();
  m_ = DeviceBuffer<float>("optimizer.m", size);
  v_ = DeviceBuffer<float>("optimizer.v", size);
  norm_ = DeviceBuffer<double>("optimizer.global_norm", 1);
  // Stays 1 when clip_norm is 0 (never written then).
  scale_ = DeviceBuffer<double>("optimizer.clip_scale", std::vector<double>{1});
  partials_ = DeviceBuffer<double>("optimizer.global_norm_partials",
                                   GlobalNormScratchSize(size));
  for (DeviceBuffer<float>* moments : {&m_, &v_}) {
    if (moments->size() > 0) {
      BERTLAB_CUDA_CHECK(cudaMemset(moments->data(), 0, moments->bytes()));
    }
  }
  BERTLAB_CUDA_CHECK(cudaMemset(norm_.data(), 0, norm_.bytes()));
  // The memsets and scale_'s copy ran on the legacy default stream, which a
  // CudaContext's non-blocking stream does not wait for: finish them here.
  BERTLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

bool DeviceOptimizer::Step(double learning_rate, const float* loss,
                           float* grads, float* params,
                           const CudaContext& context) {
  CHECK(std::isfinite(learning_rate) && learning_rate >= 0) << learning_rate;
  const int64_t size = m_.size();
  GlobalNorm(norm_.data(), partials_.data(), grads, size, context);
  if (options_.clip_norm > 0) {
    ClipByDeviceGlobalNorm(grads, scale_.data(), norm_.data(), size,
                           options_.clip_norm, context);
  }
  bool apply = true;
  if (options_.skip_non_finite) {
    double norm = 0;
    float loss_value = 0;
    BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&norm, norm_.data(), sizeof(norm),
                                       cudaMemcpyDeviceToHost,
                                       context.stream()));
    if (loss != nullptr) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&loss_value, loss, sizeof(loss_value),
                                         cudaMemcpyDeviceToHost,
                                         context.stream()));
    }
    context.Synchronize();
    apply = std::isfinite(norm) && std::isfinite(loss_value);
  }
  if (apply) {
    AdamWStep(params, m_.data(), v_.data(), grads, spans_, learning_rate,
              step_ + 1, step_options_, context);
    ++step_;
  }
  if (size > 0) {
    BERTLAB_CUDA_CHECK(
        cudaMemsetAsync(grads, 0, sizeof(float) * size, context.stream()));
  }
  return apply;
}

bool DeviceOptimizer::Step(double learning_rate, const float* loss,
                           float* grads, MixedPrecisionParams* params,
                           const CudaContext& context) {
  CHECK(params != nullptr);
  CHECK_EQ(params->size(), m_.size());
  const bool applied =
      Step(learning_rate, loss, grads, params->master_.data(), context);
  if (applied) params->Refresh(context);
  return applied;
}

void DeviceOptimizer::LoadState(const AdamW<float>& host) {
  CHECK_EQ(host.size(), m_.size());
  m_.CopyFromHost(host.m());
  v_.CopyFromHost(host.v());
  step_ = host.step();
}

void DeviceOptimizer::StoreState(AdamW<float>* host) const {
  CHECK(host != nullptr);
  CHECK_EQ(host->size(), m_.size());
  *host->mutable_m() = m_.ToHost();
  *host->mutable_v() = v_.ToHost();
  host->set_step(step_);
}

double DeviceOptimizer::LastGlobalNorm(const CudaContext& context) const {
  double norm = 0;
  BERTLAB_CUDA_CHECK(cudaMemcpyAsync(&norm, norm_.data(), sizeof(norm),
                                     cudaMemcpyDeviceToHost, context.stream()));
  context.Synchronize();
  return norm;
}

DeviceOptimizer* LoopOptimizer::Ensure(double clip_norm, bool* made) {
  if (made != nullptr) *made = optimizer_ == nullptr;
  if (optimizer_ != nullptr) {
    CHECK_EQ(clip_norm, clip_norm_) << "the clip norm changed mid-run";
    return optimizer_.get();
  }
  DeviceOptimizerOptions options;
  options.adamw = adamw_;
  options.clip_norm = clip_norm;
  options.skip_non_finite = false;
  optimizer_ = std::make_unique<DeviceOptimizer>(layout_, options);
  clip_norm_ = clip_norm;
  return optimizer_.get();
}

}  // namespace cuda
}  // namespace bertlab
