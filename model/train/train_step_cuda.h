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
// so keeping that rule needs the norm on the host before AdamW is enqueued.
// With skip_non_finite (default) Step copies the norm (and the loss, when
// given) to the host, one 12-byte read that waits for the step's backward
// pass; a non-finite value skips the update (the gradients are still zeroed)
// and Step returns false. Everything else stays on the device. Without it
// nothing waits, and a non-finite norm leaves the gradients unscaled and AdamW
// then writes NaN / inf into params, m and v: for callers that check the norm
// themselves (the pre-training loop, whose NonFinitePolicy decides, and
// throughput runs reading LastGlobalNorm()).
//
// BF16 mixed precision: MixedPrecisionParams below holds the FP32 master
// parameters and their bf16 working copy; Step(..., MixedPrecisionParams*)
// runs the sequence above on the master (FP32 grads, FP32 m / v, unchanged)
// and then refreshes the working copy from it (CastFloatToBf16, round to
// nearest even), so the next forward / backward cannot read stale weights.
// No loss scaling: bf16 has float's 8-bit exponent, so a gradient that does
// not underflow in FP32 does not underflow in bf16 (and the parameter
// gradients are float anyway); only mantissa bits are lost.
//
// UNVERIFIED ON A GPU: compiled for sm_80 / sm_90 only; pretraining_step_
// parity_test compares a whole step with the CPU's ClipByGlobalNorm +
// AdamW<float>::Step when run on a GPU machine.
#ifndef BERTLAB_MODEL_TRAIN_TRAIN_STEP_CUDA_H_
#define BERTLAB_MODEL_TRAIN_TRAIN_STEP_CUDA_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "model/bert/parameter_layout.h"
#include "model/cuda/bf16.h"
#include "model/cuda/context.h"
#include "model/cuda/device_buffer.h"
#include "model/optim/adamw.h"
#include "model/optim/adamw_cuda.h"

namespace bertlab {
namespace cuda {

// The parameters of a BF16 mixed-precision step: the FP32 master (what the
// optimizer updates and a checkpoint saves) and its bf16 working copy (what
// the bf16 forward / backward read), same flat layout. The copy is made from
// the master wherever the master changes (construction, CopyMasterFromHost,
// DeviceOptimizer::Step), and the master is not writable otherwise, so the
// two cannot drift apart.
class MixedPrecisionParams {
 public:
  // Uploads `master` (synchronously, device_buffer.h) and enqueues the first
  // cast on context.stream().
  MixedPrecisionParams(const std::vector<float>& master,
                       const CudaContext& context);

  int64_t size() const { return master_.size(); }
  const float* master() const { return master_.data(); }  // (size())
  const __nv_bfloat16* working() const {                  // (size())
    return AsDevice(working_.data());
  }
  // Replaces the master (e.g. a checkpoint load; same size) and refreshes.
  void CopyMasterFromHost(const std::vector<float>& master,
                          const CudaContext& context);
  // Host copies (wait for the device).
  std::vector<float> MasterToHost() const { return master_.ToHost(); }
  std::vector<Bf16> WorkingToHost() const { return working_.ToHost(); }

 private:
  friend class DeviceOptimizer;
  void Refresh(const CudaContext& context);

  DeviceBuffer<float> master_;
  DeviceBuffer<Bf16> working_;
};

struct DeviceOptimizerOptions {
  AdamWOptions adamw;  // validated by ValidateAdamWOptions (CHECKed)
  // tf.clip_by_global_norm's clip_norm (BERT: 1.0); 0 = no clipping (the norm
  // is still computed). Finite and >= 0 (CHECKed).
  double clip_norm = 1.0;
  // Read the norm on the host and skip a non-finite update (see above).
  bool skip_non_finite = true;
};

// AdamW's moments on the device (zero-initialised) and the clip / update /
// zero sequence of one step, for parameters laid out by `layout`.
class DeviceOptimizer {
 public:
  DeviceOptimizer(const ParameterLayout& layout,
                  const DeviceOptimizerOptions& options);

  // One optimizer step on device params and grads (layout.total_size() each)
  // with learning rate learning_rate (finite, >= 0). loss: the device scalar
  // of the step's loss (checked with skip_non_finite), or nullptr. Returns
  // whether the update was applied (always true without skip_non_finite). The
  // grads are
  // zero afterwards either way.
  bool Step(double learning_rate, const float* loss, float* grads,
            float* params, const CudaContext& context);
  // The same step on params->master(), then params->working() refreshed
  // from it when the update was applied (a skipped step changes neither).
  bool Step(double learning_rate, const float* loss, float* grads,
            MixedPrecisionParams* params, const CudaContext& context);

  // Checkpoints: the moments and step count from / to a host AdamW<float>
  // of the same layout (synchronous and device-wide, device_buffer.h).
  void LoadState(const AdamW<float>& host);
  void StoreState(AdamW<float>* host) const;

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

// The device optimizer of a training loop's backend (pre-training's and
// fine-tuning's, model/train/*_backend_cuda.cc): made by the first
// FinishGradients, which brings the clip norm (the CPU backends take it per
// call too), with the same norm at every later step (CHECKed), and without
// the host read of skip_non_finite: the loops apply an update only to a
// finite step (their non-finite rule).
class LoopOptimizer {
 public:
  // `layout` must outlive this.
  LoopOptimizer(const ParameterLayout& layout, const AdamWOptions& adamw)
      : layout_(layout), adamw_(adamw) {}

  // The optimizer for clip_norm; *made (when given) says whether this call
  // made it (fresh moments, step 0).
  DeviceOptimizer* Ensure(double clip_norm, bool* made = nullptr);
  // nullptr before the first Ensure and after Reset.
  DeviceOptimizer* get() const { return optimizer_.get(); }
  void Reset() { optimizer_.reset(); }

 private:
  const ParameterLayout& layout_;
  AdamWOptions adamw_;
  double clip_norm_ = 0;
  std::unique_ptr<DeviceOptimizer> optimizer_;
};

// The parameters of a training step in its precision, behind one interface:
// FP32 keeps one float buffer; BF16 keeps MixedPrecisionParams (the FP32
// master and the bf16 working copy the optimizer step refreshes). working()
// is what forward / backward read; Step is DeviceOptimizer::Step on them.
template <typename T>
class TrainingParams;

template <>
class TrainingParams<float> {
 public:
  // params, grads, m, v.
  static constexpr int64_t kStateBytesPerParameter = 4 * sizeof(float);

  TrainingParams(const std::vector<float>& host, const CudaContext& /*unused*/)
      : params_("params", host) {}
  const float* working() const { return params_.data(); }
  bool Step(DeviceOptimizer* optimizer, double learning_rate, const float* loss,
            float* grads, const CudaContext& context) {
    return optimizer->Step(learning_rate, loss, grads, params_.data(), context);
  }
  // Synchronous and device-wide (device_buffer.h).
  void CopyFromHost(const std::vector<float>& host,
                    const CudaContext& /*unused*/) {
    params_.CopyFromHost(host);
  }
  std::vector<float> ToHost() const { return params_.ToHost(); }

 private:
  DeviceBuffer<float> params_;
};

template <>
class TrainingParams<__nv_bfloat16> {
 public:
  // FP32 master, grads, m, v and the bf16 working copy.
  static constexpr int64_t kStateBytesPerParameter =
      4 * sizeof(float) + sizeof(Bf16);

  TrainingParams(const std::vector<float>& host, const CudaContext& context)
      : params_(host, context) {}
  const __nv_bfloat16* working() const { return params_.working(); }
  bool Step(DeviceOptimizer* optimizer, double learning_rate, const float* loss,
            float* grads, const CudaContext& context) {
    return optimizer->Step(learning_rate, loss, grads, &params_, context);
  }
  void CopyFromHost(const std::vector<float>& host,
                    const CudaContext& context) {
    params_.CopyMasterFromHost(host, context);
  }
  // The FP32 master.
  std::vector<float> ToHost() const { return params_.MasterToHost(); }

 private:
  MixedPrecisionParams params_;
};

}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TRAIN_STEP_CUDA_H_
