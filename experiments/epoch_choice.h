// The epoch a fine-tuning run reports, chosen on its tune split
// (FinetuneTaskSpec.choose_epoch_on_tune): after each epoch the runner
// offers the tune scores and the parameters of that moment; the choice
// keeps the epoch with the highest primary metric (every primary metric is
// better higher), the earliest of ties, and its parameters, which the run
// restores before dev sees them. Dev is never read to choose.
#ifndef BERTLAB_EXPERIMENTS_EPOCH_CHOICE_H_
#define BERTLAB_EXPERIMENTS_EPOCH_CHOICE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace bertlab {
namespace experiments {

struct EpochChoice {
  int64_t epoch = 0;                      // 1-based; 0: nothing offered yet
  double score = 0;                       // its tune score in primary_metric
  std::map<std::string, double> metrics;  // its tune scores
  std::vector<float> parameters;          // the model's after that epoch

  // Takes epoch `epochs` if it beats the kept one (or is the first).
  // Internal error when `metrics` lacks `primary_metric` or it is not
  // finite: a task whose tune scores cannot choose (the message names both).
  absl::Status Offer(int64_t epochs, std::map<std::string, double> metrics,
                     const std::string& primary_metric,
                     const std::vector<float>& parameters);
};

}  // namespace experiments
}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_EPOCH_CHOICE_H_
