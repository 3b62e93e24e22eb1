// dev_examples.tsv: one fine-tuning run's dev predictions scored example by
// example, written beside its run.json (experiments/run/runner.h) and read back
// by the report, whose Multi-Bootstrap (multi_bootstrap.h) resamples these
// examples. A metric is recomputed on any multiset of the examples, so
// metrics that are not means of per-example scores (F1 of a class, Matthews,
// Pearson, Spearman) are recomputed on each resampled set, not averaged.
//
// Tab-separated, one header line that says the kind, then one row per dev
// example in the order the task scored them:
//   example_id  gold_label  predicted_label     labels: classification and
//                                               multiple choice (class ids)
//   example_id  gold_score  predicted_score     scores: regression (STS-B)
//   example_id  exact_match  f1  prediction     spans: SQuAD, each
//   [article]                                   question's official scores
//                                               in [0, 1], the answer
//                                               predicted (tabs and line
//                                               breaks turned into spaces)
//                                               and, in files written
//                                               since 2026-12-06, its
//                                               article (the index in the
//                                               dev file's data[])
// example_id holds no tab or line break and is unique within the file.
// The article column is what a bootstrap resamples SQuAD by
// (multi_bootstrap.h): questions about one article are not independent.
//
// Metrics (the record's names and units, percent or correlation x 100):
//   labels: accuracy, f1 (of class 1), mcc;  scores: pearson, spearman;
//   spans: exact_match, f1 (SQuAD v2.0: at the run's chosen threshold).
#ifndef BERTLAB_REPORTS_DEV_EXAMPLES_H_
#define BERTLAB_REPORTS_DEV_EXAMPLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {
namespace reports {

inline constexpr char kDevExamplesFileName[] = "dev_examples.tsv";

enum class DevExampleKind { kLabels, kScores, kSpans };

struct DevExamples {
  DevExampleKind kind = DevExampleKind::kLabels;
  std::vector<std::string> ids;
  // kLabels.
  std::vector<int32_t> gold_labels;
  std::vector<int32_t> predicted_labels;
  // kScores.
  std::vector<double> gold_scores;
  std::vector<double> predicted_scores;
  // kSpans: fractions in [0, 1].
  std::vector<double> exact_match;
  std::vector<double> f1;
  std::vector<std::string> predictions;
  // The cluster each example belongs to (spans: its article); empty when
  // the file has no such column. No tab or line break.
  std::vector<std::string> groups;

  int64_t size() const { return static_cast<int64_t>(ids.size()); }
};

// The file's text. Ids with a tab or line break are a bug of the caller
// (CHECK); predictions are cleaned as the header comment says.
std::string DevExamplesTsv(const DevExamples& examples);

// Parses a file's text; errors read "PATH:LINE: ..." (an unknown header, a
// row with the wrong number of fields, a value that is not a number or is
// out of range, a repeated id, no rows).
absl::StatusOr<DevExamples> ParseDevExamples(absl::string_view text,
                                             absl::string_view path);

// A record metric computed on the examples at `indices` (repeats allowed:
// a bootstrap draw), in the record's units.
using ExampleMetric = double (*)(const DevExamples& examples,
                                 const std::vector<int32_t>& indices);

// The metric `name` for examples of `kind`; NotFound for a metric these
// scores cannot give (SQuAD v2.0's f1_at_0, a label metric of a regression).
absl::StatusOr<ExampleMetric> FindExampleMetric(DevExampleKind kind,
                                                absl::string_view name);

// Every example got the same prediction: a fine-tuning run that collapsed
// to one class (or one answer). False for fewer than two examples.
bool PredictionsAreConstant(const DevExamples& examples);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_DEV_EXAMPLES_H_
