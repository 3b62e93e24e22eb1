// BERT's learning-rate schedule: linear warmup, then linear decay to 0, with
// the decay measured from step 0 (google-research/bert optimization.py,
// create_optimizer):
//
//   lr(k) = base_lr * k / warmup_steps                  if k < warmup_steps
//         = base_lr * (1 - min(k, total_steps) / total_steps)   otherwise
//
// k is the number of optimizer steps already taken (TF's global_step, which
// is incremented after the update), so the first update uses lr(0) = 0 when
// there is any warmup. The second line is TF's polynomial_decay(base_lr, k,
// decay_steps = total_steps, end_learning_rate = 0, power = 1); the warmup
// line overrides it while k < warmup_steps (the reference's `is_warmup`
// switch). Because the decay counts from step 0 and not from the end of
// warmup, the rate drops from base_lr * (warmup - 1) / warmup at the last
// warmup step to base_lr * (1 - warmup / total) at the next, and never
// reaches base_lr itself. (HF's get_linear_schedule_with_warmup instead decays
// over total - warmup steps from the end of warmup; that is not what BERT
// did.) From total_steps on the rate is 0.
//
// The reference computes in float32; this computes in double.
#ifndef BERTLAB_MODEL_OPTIM_SCHEDULE_H_
#define BERTLAB_MODEL_OPTIM_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace bertlab {

struct LearningRateSchedule {
  double base_learning_rate = 1e-4;  // the paper's pre-training rate
  int64_t warmup_steps = 10000;      // num_warmup_steps
  int64_t total_steps = 1000000;     // num_train_steps
};

// base_learning_rate finite and > 0, total_steps >= 1 and
// 0 <= warmup_steps <= total_steps; the message names the field.
absl::Status ValidateSchedule(const LearningRateSchedule& schedule);

// lr(step) above; step >= 0 and the schedule valid (CHECKed).
double LearningRateAt(const LearningRateSchedule& schedule, int64_t step);

// The sequence-length schedule's boundaries: phase i of a run of
// total_steps runs global steps [end(i-1), end(i)), end(i) =
// min(total_steps, round(total_steps * (fractions[0] + ... + fractions[i]))),
// the last phase ending at total_steps whatever the fractions sum to. The
// one rule for the trainer (model/train/pretrainer.h) and the experiment
// files (experiments/config_loader.h).
std::vector<int64_t> PhaseEndSteps(const std::vector<double>& fractions,
                                   int64_t total_steps);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_SCHEDULE_H_
