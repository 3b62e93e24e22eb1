// BERT's Adam with decoupled weight decay (google-research/bert
// optimization.py, AdamWeightDecayOptimizer). For every element, with g the
// (averaged, clipped) gradient and t the 1-based number of this update:
//
//   m = beta1 m + (1 - beta1) g
//   v = beta2 v + (1 - beta2) g^2
//   update = m / (sqrt(v) + eps)                          (BERT: no bias
//                                                          correction)
//   update = m_hat / (sqrt(v_hat) + eps),                 (bias_correction)
//            m_hat = m / (1 - beta1^t), v_hat = v / (1 - beta2^t)
//   update += weight_decay * param      unless the parameter is excluded
//   param  -= lr * update
//
// Defaults are BERT's: beta1 0.9, beta2 0.999, eps 1e-6, weight decay 0.01,
// no bias correction (Devlin called its absence "mostly an oversight",
// google-research/bert#153). With bias_correction the rule is exactly
// torch.optim.AdamW's (param * (1 - lr wd) then the Adam step, eps added to
// sqrt(v_hat)); transformers.AdamW differs slightly (it adds eps before the
// bias correction and decays the already-updated parameter). The decay uses
// the parameter before this update and is scaled by lr, as in the reference.
// Excluded from decay: every parameter whose name contains "LayerNorm",
// "layer_norm" or "bias" (ExcludedFromWeightDecay, model/bert/
// parameter_layout.h), i.e. LayerNorm gammas/betas and all biases.
//
// Parameters, gradients and the moments m, v are flat buffers laid out by a
// ParameterLayout (layout.total_size() elements each). The update is
// elementwise, split with ParallelFor and computed in double from the stored
// values, then rounded to T; results are therefore bit-identical for any
// thread count. m and v are rounded to T before the update uses them, so the
// update depends only on the stored state (a resumed run continues exactly).
//
// Order of one training step: gradient_accumulation.h.
#ifndef BERTLAB_MODEL_OPTIM_ADAMW_H_
#define BERTLAB_MODEL_OPTIM_ADAMW_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "model/bert/parameter_layout.h"

namespace bertlab {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-6;
  double weight_decay = 0.01;
  bool bias_correction = false;
};

// beta1, beta2 in [0, 1), epsilon finite and > 0, weight_decay finite and
// >= 0; the message names the field.
absl::Status ValidateAdamWOptions(const AdamWOptions& options);

// Which elements of the flat buffer get weight decay: the layout's tensors in
// offset order, with neighbours of the same kind merged. The spans tile
// [0, layout.total_size()) in order; empty tensors contribute nothing.
struct WeightDecaySpan {
  int64_t begin = 0;
  int64_t end = 0;
  bool decay = false;
};
std::vector<WeightDecaySpan> WeightDecaySpans(const ParameterLayout& layout);

template <typename T>  // float or double
class AdamW {
 public:
  // CHECKs that the options are valid (validate config input with
  // ValidateAdamWOptions first). m and v start at zero, step() at 0.
  AdamW(const ParameterLayout& layout, const AdamWOptions& options);

  // Applies one update with learning rate lr (finite, >= 0; usually
  // LearningRateAt(schedule, step())) and increments step().
  // grads, params: (size())
  void Step(double lr, const T* grads, T* params);

  const AdamWOptions& options() const { return options_; }
  int64_t size() const { return static_cast<int64_t>(m_.size()); }
  // Updates applied so far (TF's global_step).
  int64_t step() const { return step_; }
  const std::vector<T>& m() const { return m_; }  // (size())
  const std::vector<T>& v() const { return v_; }  // (size())
  const std::vector<WeightDecaySpan>& decay_spans() const {
    return decay_spans_;
  }

  // For restoring a checkpoint (optimizer_state.h).
  std::vector<T>* mutable_m() { return &m_; }
  std::vector<T>* mutable_v() { return &v_; }
  void set_step(int64_t step);

 private:
  AdamWOptions options_;
  std::vector<WeightDecaySpan> decay_spans_;
  std::vector<T> m_;
  std::vector<T> v_;
  int64_t step_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_ADAMW_H_
