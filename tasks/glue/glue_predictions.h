// Predictions in the GLUE submission format (what gluebenchmark.com takes,
// e.g. MRPC.tsv, MNLI-m.tsv; GlueFileSpec::submission_file_name):
//
//   index<TAB>prediction
//   0<TAB>1
//   1<TAB>not_entailment
//
// one row per example, `index` the example's guid, `prediction` the label
// string (GlueTaskSpec::labels) or, for STS-B, the score as a decimal number.
#ifndef BERTLAB_TASKS_GLUE_GLUE_PREDICTIONS_H_
#define BERTLAB_TASKS_GLUE_GLUE_PREDICTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {

struct GluePrediction {
  std::string guid;
  int32_t label = 0;   // class id (classification tasks)
  double score = 0.0;  // STS-B
  int64_t line = 0;    // 1-based line in the file it was read from (0: none)
};

// The file's text: header, then the rows in the order given. A label
// outside [0, num_labels), a non-finite score, or a guid holding a tab or
// line break is an error naming the row.
absl::StatusOr<std::string> FormatGluePredictions(
    const GlueTaskSpec& task, const std::vector<GluePrediction>& predictions);

// Writes FormatGluePredictions's text to `path` atomically.
absl::Status WriteGluePredictions(
    const std::string& path, const GlueTaskSpec& task,
    const std::vector<GluePrediction>& predictions);

// Reads a predictions file. Errors name path:line: a header other than
// "index<TAB>prediction", a row without exactly two fields, an unknown label
// (or an STS-B prediction that is not a finite number), an index given
// twice.
absl::StatusOr<std::vector<GluePrediction>> ReadGluePredictions(
    const std::string& path, const GlueTaskSpec& task);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_GLUE_GLUE_PREDICTIONS_H_
