// The optimizer half of a GPU training step, as model/train/pretrainer.cc and
// finetuner.cc do it on the CPU (order: model/optim/gradient_accumulation.h):
//
//   norm  = GlobalNorm(grads)                    cuda::GlobalNorm, on device
//   grads *= clip_norm / max(norm, clip_norm)    clip factor on device
//                                                (gradient_clipping_cuda.h)
//   AdamW(lr) on params, m, v                    cuda::AdamWStep
//   grads = 0                                    ready for the next step
//
// The clip factor never leaves the device. The learning rate is the host's
// (LearningRateAt(schedule, step), model/optim/schedule.h), given per step.
//
// Non-finite steps: the CPU trainers never apply an update whose loss or
// gradient norm is not finite. cuda::AdamWStep has no device-side condition,
// so keeping that rule needs the norm on the host before AdamW is enqueued:
//   kSkipStep     (default) copies the norm (and the loss, when given) to the
//                 host, one 12-byte read that waits for the step's backward
//                 pass; a non-finite value skips the update (the gradients are
//                 still zeroed) and Step returns false. Everything else stays
//                 on the device.
//   kApplyAnyway  nothing waits; a non-finite norm leaves the gradients
//                 unscaled and AdamW then writes NaN / inf into params, m and
//                 v. For throughput runs that check LastGlobalNorm()
//                 themselves.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test compares a whole step with the CPU's ClipByGlobalNorm +
// AdamW<float>::Step when run on a GPU machine.
#ifndef BERTLAB_MODEL_CUDA_TRAIN_STEP_CUDA_H_
#define BERTLAB_MODEL_CUDA_TRAIN_STEP_CUDA_H_

#include <cstdint>
#include <vector>

#include "model/bert/parameter_layout.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/optim/adamw.h"

namespace bertlab {
namespace cuda {

enum class NonFiniteGradients { kSkipStep, kApplyAnyway };

struct DeviceOptimizerOptions {
  AdamWOptions adamw;  // validated by ValidateAdamWOptions (CHECKed)
  // tf.clip_by_global_norm's clip_norm (BERT: 1.0); 0 = no clipping (the norm
  // is still computed). Finite and >= 0 (CHECKed).
  double clip_norm = 1.0;
  NonFiniteGradients non_finite = NonFiniteGradients::kSkipStep;
};

// AdamW's moments on the device (zero-initialised) and the clip / update /
// zero sequence of one step, for parameters laid out by `layout`.
class DeviceOptimizer {
 public:
  DeviceOptimizer(const ParameterLayout& layout,
                  const DeviceOptimizerOptions& options);

  // One optimizer step on device params and grads (layout.total_size() each)
  // with learning rate learning_rate (finite, >= 0). loss: the device scalar
  // of the step's loss (checked with kSkipStep), or nullptr. Returns whether
  // the update was applied (always true with kApplyAnyway). The grads are
  // zero afterwards either way.
  bool Step(double learning_rate, const float* loss, float* grads,
            float* params, const CudaContext& context);

  // Updates applied so far (AdamW<float>::step()).
  int64_t step() const { return step_; }
  int64_t size() const { return m_.size(); }
  const DeviceBuffer<float>& m() const { return m_; }  // (size())
  const DeviceBuffer<float>& v() const { return v_; }  // (size())
  // Device scalars of the last Step: the pre-clip norm and the factor the
  // gradients were multiplied by (1 when not clipped).
  const double* global_norm() const { return norm_.data(); }
  const double* clip_scale() const { return scale_.data(); }
  // The last Step's pre-clip norm on the host (waits for the stream).
  double LastGlobalNorm(const CudaContext& context) const;

 private:
  DeviceOptimizerOptions options_;
  AdamWStepOptions step_options_;
  std::vector<AdamWSpan> spans_;
  DeviceBuffer<float> m_;
  DeviceBuffer<float> v_;
  DeviceBuffer<double> norm_;      // (1)
  DeviceBuffer<double> scale_;     // (1)
  DeviceBuffer<double> partials_;  // (GlobalNormScratchSize(size))
  int64_t step_ = 0;
};

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_TRAIN_STEP_CUDA_H_
