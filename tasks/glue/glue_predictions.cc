#include "tasks/glue/glue_predictions.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {
namespace {

constexpr absl::string_view kHeader = "index\tprediction";

}  // namespace

absl::StatusOr<std::string> FormatGluePredictions(
    const GlueTaskSpec& task, const std::vector<GluePrediction>& predictions) {
  std::string out = absl::StrCat(kHeader, "\n");
  for (size_t i = 0; i < predictions.size(); ++i) {
    const GluePrediction& prediction = predictions[i];
    if (prediction.guid.find_first_of("\t\r\n") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("prediction ", i, ": index \"", prediction.guid,
                       "\" holds a tab or line break"));
    }
    absl::StrAppend(&out, prediction.guid, "\t");
    if (task.is_regression) {
      if (!std::isfinite(prediction.score)) {
        return absl::InvalidArgumentError(
            absl::StrCat("prediction ", i, " (index ", prediction.guid,
                         "): score ", prediction.score, " is not finite"));
      }
      // Six significant digits: far below the metrics' resolution.
      absl::StrAppend(&out, prediction.score, "\n");
    } else {
      if (prediction.label < 0 || prediction.label >= task.num_labels) {
        return absl::InvalidArgumentError(
            absl::StrCat("prediction ", i, " (index ", prediction.guid,
                         "): label ", prediction.label, " outside [0, ",
                         task.num_labels, ") of ", task.name));
      }
      absl::StrAppend(&out, task.labels[prediction.label], "\n");
    }
  }
  return out;
}

absl::Status WriteGluePredictions(
    const std::string& path, const GlueTaskSpec& task,
    const std::vector<GluePrediction>& predictions) {
  ASSIGN_OR_RETURN(const std::string text,
                   FormatGluePredictions(task, predictions),
                   _.Prepend(path, ": "));
  return WriteFileAtomically(path, text);
}

absl::StatusOr<std::vector<GluePrediction>> ReadGluePredictions(
    const std::string& path, const GlueTaskSpec& task) {
  ASSIGN_OR_RETURN(std::unique_ptr<LineReader> reader,
                   LineReader::Open(path, ReaderLimits().max_line_bytes));
  std::string line;
  ASSIGN_OR_RETURN(bool has_line, reader->Next(&line));
  if (!has_line || line != kHeader) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":1: expected the header \"index\\tprediction\"",
                     has_line ? "" : " (the file is empty)"));
  }
  std::vector<GluePrediction> predictions;
  absl::flat_hash_map<std::string, int64_t> line_of_guid;
  while (true) {
    ASSIGN_OR_RETURN(has_line, reader->Next(&line));
    if (!has_line) break;
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader->Location(), ": ", fields.size(),
          " tab-separated fields, expected 2 (index, prediction)"));
    }
    GluePrediction prediction;
    prediction.guid = std::string(fields[0]);
    prediction.line = reader->line_number();
    const auto [it, inserted] =
        line_of_guid.emplace(prediction.guid, prediction.line);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat(reader->Location(), ": index \"", prediction.guid,
                       "\" already predicted on line ", it->second));
    }
    const absl::string_view value = fields[1];
    if (task.is_regression) {
      if (!absl::SimpleAtod(value, &prediction.score) ||
          !std::isfinite(prediction.score)) {
        return absl::InvalidArgumentError(
            absl::StrCat(reader->Location(), ": ", task.name, " prediction \"",
                         value, "\" is not a number"));
      }
    } else {
      const auto found =
          std::find(task.labels.begin(), task.labels.end(), value);
      if (found == task.labels.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            reader->Location(), ": unknown ", task.name, " label \"", value,
            "\"; expected one of ", absl::StrJoin(task.labels, ", ")));
      }
      prediction.label = static_cast<int32_t>(found - task.labels.begin());
    }
    predictions.push_back(std::move(prediction));
  }
  return predictions;
}

}  // namespace bertlab
