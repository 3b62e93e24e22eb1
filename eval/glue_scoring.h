// Scores GLUE predictions against gold labels with each task's metrics
// (tasks/glue/glue_tasks.h: GlueTaskSpec::metrics, primary_metric).
#ifndef BERTLAB_EVAL_GLUE_SCORING_H_
#define BERTLAB_EVAL_GLUE_SCORING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/glue/glue_predictions.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {

struct GlueScores {
  std::string task;      // GlueTaskSpec::name
  int64_t examples = 0;  // gold rows scored
  // The task's metrics in GlueTaskSpec::metrics order, as fractions.
  std::vector<std::pair<GlueMetric, double>> values;
  GlueMetric primary_metric = GlueMetric::kAccuracy;
  double primary = 0.0;  // the value of primary_metric
};

// From parallel vectors (the fine-tuning driver's dev evaluation): class ids
// for classification tasks, scores for STS-B. Empty or unequal inputs are
// bugs (CHECK).
GlueScores ScoreGlueClassification(const GlueTaskSpec& task,
                                   const std::vector<int32_t>& gold,
                                   const std::vector<int32_t>& predicted);
GlueScores ScoreGlueRegression(const GlueTaskSpec& task,
                               const std::vector<double>& gold,
                               const std::vector<double>& predicted);

// Matches `predictions` to the rows of `gold` (a labelled GlueSet) by
// index/guid and scores them. Errors: a gold row without a prediction
// (gold path:line), a prediction whose index is not in gold (predictions
// path:line), an unlabelled or empty gold set. `predictions_path` names the
// predictions in messages (GluePrediction::line gives the line).
absl::StatusOr<GlueScores> ScoreGluePredictions(
    const GlueTaskSpec& task, const GlueSet& gold,
    const std::vector<GluePrediction>& predictions,
    const std::string& predictions_path);

}  // namespace bertlab

#endif  // BERTLAB_EVAL_GLUE_SCORING_H_
