#include "model/optim/schedule.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace bertlab {

absl::Status ValidateSchedule(const LearningRateSchedule& schedule) {
  if (!(std::isfinite(schedule.base_learning_rate) &&
        schedule.base_learning_rate > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("base_learning_rate must be finite and positive, got ",
                     schedule.base_learning_rate));
  }
  if (schedule.total_steps < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "total_steps must be at least 1, got ", schedule.total_steps));
  }
  if (schedule.warmup_steps < 0 ||
      schedule.warmup_steps > schedule.total_steps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "warmup_steps must be in [0, total_steps = ", schedule.total_steps,
        "], got ", schedule.warmup_steps));
  }
  return absl::OkStatus();
}

double LearningRateAt(const LearningRateSchedule& schedule, int64_t step) {
  CHECK_GE(step, 0);
  const absl::Status valid = ValidateSchedule(schedule);
  CHECK(valid.ok()) << valid;
  if (step < schedule.warmup_steps) {
    return schedule.base_learning_rate * static_cast<double>(step) /
           static_cast<double>(schedule.warmup_steps);
  }
  const double done = static_cast<double>(std::min(step, schedule.total_steps));
  return schedule.base_learning_rate *
         (1.0 - done / static_cast<double>(schedule.total_steps));
}

std::vector<int64_t> PhaseEndSteps(const std::vector<double>& fractions,
                                   int64_t total_steps) {
  std::vector<int64_t> ends;
  double cumulative = 0;
  for (size_t i = 0; i < fractions.size(); ++i) {
    cumulative += fractions[i];
    ends.push_back(
        i + 1 == fractions.size()
            ? total_steps
            : std::min<int64_t>(
                  total_steps,
                  std::llround(static_cast<double>(total_steps) * cumulative)));
  }
  return ends;
}

}  // namespace bertlab
