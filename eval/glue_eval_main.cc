// Scores GLUE predictions against a labelled GLUE file and prints the task's
// metrics as one line of JSON, x100 as the paper reports them:
//
//   bazel run //eval:glue_eval -- --task=MRPC
//       --gold=../shared/data/glue/MRPC/dev.tsv --predictions=MRPC.tsv
//   (one command line)
//   {"task":"MRPC","examples":408,"accuracy":84.1,"f1":88.6,
//    "primary_metric":"f1","primary":88.6}
//
// --gold is a train/dev file of the task in the GLUE layout
// (tasks/glue/glue_reader.h); --predictions is in the GLUE submission
// format (tasks/glue/glue_predictions.h). Rows are matched by index: the
// gold file's index column, or its 0-based data row number where it has
// none (CoLA, SST-2, MRPC). A gold row without a prediction, a prediction
// for an index not in the gold file, an unknown label or a malformed row is
// an error naming the file and line (exit status 1). A correlation that is
// undefined (constant predictions) prints as null. Relative paths are taken
// relative to where `bazel run` was started.
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "eval/glue_scoring.h"
#include "nlohmann/json.hpp"
#include "tasks/glue/glue_predictions.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"

ABSL_FLAG(std::string, task, "",
          "GLUE task: MNLI, QQP, QNLI, SST-2, CoLA, STS-B, MRPC, RTE, WNLI");
ABSL_FLAG(std::string, gold, "", "the task's labelled TSV (e.g. dev.tsv)");
ABSL_FLAG(std::string, predictions, "",
          "predictions in the GLUE submission format (index<TAB>prediction)");

namespace bertlab {
namespace {

absl::Status Run() {
  const std::string task_name = absl::GetFlag(FLAGS_task);
  const std::string gold_flag = absl::GetFlag(FLAGS_gold);
  const std::string predictions_flag = absl::GetFlag(FLAGS_predictions);
  if (task_name.empty() || gold_flag.empty() || predictions_flag.empty()) {
    return absl::InvalidArgumentError(
        "--task, --gold and --predictions are required");
  }
  ASSIGN_OR_RETURN(const GlueTaskSpec* task, FindGlueTask(task_name));
  const std::string gold_path = ResolveUserPath(gold_flag);
  const std::string predictions_path = ResolveUserPath(predictions_flag);
  ASSIGN_OR_RETURN(
      const GlueSet gold,
      ReadGlueFile(*task, GlueFileKind::kLabelled, gold_path, task->name));
  ASSIGN_OR_RETURN(const std::vector<GluePrediction> predictions,
                   ReadGluePredictions(predictions_path, *task));
  ASSIGN_OR_RETURN(
      const GlueScores scores,
      ScoreGluePredictions(*task, gold, predictions, predictions_path));

  nlohmann::ordered_json out;
  out["task"] = scores.task;
  out["examples"] = scores.examples;
  if (gold.skipped_rows > 0) out["skipped_gold_rows"] = gold.skipped_rows;
  for (const auto& [metric, value] : scores.values) {
    out[GlueMetricName(metric)] = 100.0 * value;  // NaN prints as null
  }
  out["primary_metric"] = GlueMetricName(scores.primary_metric);
  out["primary"] = 100.0 * scores.primary;
  std::cout << out.dump() << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("glue_eval", [&] {
    absl::SetProgramUsageMessage(
        "--task=NAME --gold=dev.tsv --predictions=NAME.tsv\n"
        "Prints the task's GLUE metrics (x100) as JSON.");
    const auto positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() > 1) {
      std::cerr << "glue_eval: unexpected argument " << positional[1] << "\n";
      return 2;
    }
    return bertlab::ExitStatus("glue_eval", bertlab::Run());
  });
}
