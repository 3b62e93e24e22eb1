// The held-out evaluation curve of a pre-training run, read back from its
// metrics.jsonl (model/train/pretrainer.h writes one "eval" line per
// evaluation, keyed by the objective: "mlm_perplexity", "ltr_perplexity",
// ...) for the run record's eval_curve (docs/RUN_RECORDS.md), which reports
// plot. A resumed run's log reads as one run (training_log.h), so each step
// appears once.
#ifndef BERTLAB_EXPERIMENTS_PRETRAINING_CURVE_H_
#define BERTLAB_EXPERIMENTS_PRETRAINING_CURVE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/run_records.h"
#include "tasks/pretraining_data/language_model.h"

namespace bertlab {

// Every eval line of `metrics_path` in step order, accuracy in percent.
// Errors name the file and line: a line that is not JSON, an eval line
// without the objective's perplexity and accuracy, steps that do not rise.
absl::StatusOr<std::vector<reports::EvalPoint>> ReadEvalCurve(
    const std::string& metrics_path, LanguageModel objective);

}  // namespace bertlab

#endif  // BERTLAB_EXPERIMENTS_PRETRAINING_CURVE_H_
