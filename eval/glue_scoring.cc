#include "eval/glue_scoring.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "eval/metrics.h"

namespace bertlab {
namespace {

GlueScores Finish(const GlueTaskSpec& task, int64_t examples,
                  std::vector<std::pair<GlueMetric, double>> values) {
  GlueScores scores;
  scores.task = task.name;
  scores.examples = examples;
  scores.primary_metric = task.primary_metric;
  bool found_primary = false;
  for (const auto& [metric, value] : values) {
    if (metric == task.primary_metric) {
      scores.primary = value;
      found_primary = true;
    }
  }
  CHECK(found_primary) << task.name << " lacks its primary metric";
  scores.values = std::move(values);
  return scores;
}

std::string Where(const std::string& path, int64_t line) {
  return line > 0 ? absl::StrCat(path, ":", line) : path;
}

}  // namespace

GlueScores ScoreGlueClassification(const GlueTaskSpec& task,
                                   const std::vector<int32_t>& gold,
                                   const std::vector<int32_t>& predicted) {
  CHECK(!task.is_regression) << task.name;
  std::vector<std::pair<GlueMetric, double>> values;
  for (const GlueMetric metric : task.metrics) {
    switch (metric) {
      case GlueMetric::kAccuracy:
        values.emplace_back(metric, Accuracy(gold, predicted));
        break;
      case GlueMetric::kF1:
        values.emplace_back(metric, F1Positive(gold, predicted));
        break;
      case GlueMetric::kMatthews:
        values.emplace_back(metric, MatthewsCorrelation(gold, predicted));
        break;
      case GlueMetric::kPearson:
      case GlueMetric::kSpearman:
        CHECK(false) << task.name << ": a regression metric";
    }
  }
  return Finish(task, static_cast<int64_t>(gold.size()), std::move(values));
}

GlueScores ScoreGlueRegression(const GlueTaskSpec& task,
                               const std::vector<double>& gold,
                               const std::vector<double>& predicted) {
  CHECK(task.is_regression) << task.name;
  std::vector<std::pair<GlueMetric, double>> values;
  for (const GlueMetric metric : task.metrics) {
    switch (metric) {
      case GlueMetric::kPearson:
        values.emplace_back(metric, PearsonCorrelation(gold, predicted));
        break;
      case GlueMetric::kSpearman:
        values.emplace_back(metric, SpearmanCorrelation(gold, predicted));
        break;
      default:
        CHECK(false) << task.name << ": a classification metric";
    }
  }
  return Finish(task, static_cast<int64_t>(gold.size()), std::move(values));
}

absl::StatusOr<GlueScores> ScoreGluePredictions(
    const GlueTaskSpec& task, const GlueSet& gold,
    const std::vector<GluePrediction>& predictions,
    const std::string& predictions_path) {
  if (gold.examples.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(gold.path, ": no gold rows to score"));
  }
  absl::flat_hash_map<std::string, const GluePrediction*> by_guid;
  for (const GluePrediction& prediction : predictions) {
    if (!by_guid.emplace(prediction.guid, &prediction).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(predictions_path, prediction.line), ": index \"",
                       prediction.guid, "\" predicted twice"));
    }
  }
  std::vector<int32_t> gold_labels, predicted_labels;
  std::vector<double> gold_scores, predicted_scores;
  absl::flat_hash_map<std::string, int64_t> gold_line_of_guid;
  for (const GlueRawExample& example : gold.examples) {
    if (!example.has_label) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(gold.path, example.line),
                       ": gold row without a label (a test file?)"));
    }
    if (!gold_line_of_guid.emplace(example.guid, example.line).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(gold.path, example.line), ": index \"",
                       example.guid, "\" appears twice in the gold file"));
    }
    const auto it = by_guid.find(example.guid);
    if (it == by_guid.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(gold.path, example.line), ": no prediction for index \"",
          example.guid, "\" in ", predictions_path));
    }
    gold_labels.push_back(example.label);
    predicted_labels.push_back(it->second->label);
    gold_scores.push_back(example.score);
    predicted_scores.push_back(it->second->score);
  }
  for (const GluePrediction& prediction : predictions) {
    if (!gold_line_of_guid.contains(prediction.guid)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(predictions_path, prediction.line), ": index \"",
          prediction.guid, "\" is not in the gold file ", gold.path));
    }
  }
  if (task.is_regression) {
    return ScoreGlueRegression(task, gold_scores, predicted_scores);
  }
  return ScoreGlueClassification(task, gold_labels, predicted_labels);
}

}  // namespace bertlab
