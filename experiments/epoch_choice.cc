#include "experiments/epoch_choice.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace bertlab {
namespace experiments {

absl::Status EpochChoice::Offer(int64_t epochs,
                                std::map<std::string, double> offered,
                                const std::string& primary_metric,
                                const std::vector<float>& now) {
  const auto found = offered.find(primary_metric);
  if (found == offered.end() || !std::isfinite(found->second)) {
    return absl::InternalError(absl::StrCat(
        "epoch ", epochs, ": the tune split's scores (",
        absl::StrJoin(offered, ", ", absl::PairFormatter(" ")),
        ") have no finite \"", primary_metric, "\" to choose the epoch by"));
  }
  if (epoch > 0 && !(found->second > score)) return absl::OkStatus();
  epoch = epochs;
  score = found->second;
  metrics = std::move(offered);
  parameters = now;
  return absl::OkStatus();
}

}  // namespace experiments
}  // namespace bertlab
