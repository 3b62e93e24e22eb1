// The official SQuAD evaluation, v1.1 and v2.0 in one command:
//
//   bazel run //eval:squad_eval -- --data=dev.json
//       --predictions=predictions.json [--na_probs=null_odds.json]
//       [--na_prob_thresh=1.0]
//
// Prints what evaluate-v1.1.py / evaluate-v2.0.py print, with the same values
// (eval/squad_eval.h): {"exact_match": .., "f1": ..} for v1.1; for v2.0 the
// indented object with exact, f1, total, HasAns_*, NoAns_* and, with
// --na_probs, best_exact, best_exact_thresh, best_f1, best_f1_thresh. The
// version comes from the data file ("version" v2.*, or "is_impossible"
// fields); --version=1.1|2.0 overrides it. Messages go to stderr.
#include <iostream>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "eval/squad_eval.h"

ABSL_FLAG(std::string, data, "", "the SQuAD data file (dev-v1.1.json etc.)");
ABSL_FLAG(std::string, predictions, "",
          "predictions.json: an object qid -> answer text");
ABSL_FLAG(std::string, na_probs, "",
          "v2.0: null_odds.json (qid -> no-answer score); enables the "
          "best-threshold search");
ABSL_FLAG(double, na_prob_thresh, 1.0,
          "v2.0: predict no answer when the na_prob exceeds this");
ABSL_FLAG(std::string, version, "",
          "1.1 or 2.0 to override the version read from --data");

namespace bertlab {
namespace {

absl::Status Run() {
  const std::string data_flag = absl::GetFlag(FLAGS_data);
  const std::string predictions_flag = absl::GetFlag(FLAGS_predictions);
  if (data_flag.empty() || predictions_flag.empty()) {
    return absl::InvalidArgumentError("--data and --predictions are required");
  }
  ASSIGN_OR_RETURN(SquadGold gold,
                   ReadSquadGoldFile(ResolveUserPath(data_flag)));
  const std::string version = absl::GetFlag(FLAGS_version);
  if (version == "1.1") {
    gold.is_v2 = false;
  } else if (version == "2.0") {
    gold.is_v2 = true;
  } else if (!version.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--version=", version, ": expected 1.1 or 2.0"));
  }
  ASSIGN_OR_RETURN(const SquadPredictionMap predictions,
                   ReadSquadPredictionsFile(ResolveUserPath(predictions_flag)));
  std::optional<SquadNaProbs> na_probs;
  const std::string na_probs_flag = absl::GetFlag(FLAGS_na_probs);
  if (!na_probs_flag.empty()) {
    if (!gold.is_v2) {
      return absl::InvalidArgumentError(
          "--na_probs is for SQuAD v2.0, but the data file is v1.1");
    }
    ASSIGN_OR_RETURN(na_probs,
                     ReadSquadNaProbsFile(ResolveUserPath(na_probs_flag)));
  }
  if (!gold.is_v2 && gold.version != "1.1") {
    std::cerr << "Evaluation expects v-1.1, but got dataset with v-"
              << gold.version << "\n";
  }
  SquadEvalOptions options;
  options.na_prob_thresh = absl::GetFlag(FLAGS_na_prob_thresh);
  ASSIGN_OR_RETURN(const SquadMetrics metrics,
                   EvaluateSquad(gold, predictions,
                                 na_probs ? &*na_probs : nullptr, options));
  for (const std::string& qid : metrics.missing_predictions) {
    if (metrics.is_v2) {
      std::cerr << "Missing prediction for " << qid << "\n";
    } else {
      std::cerr << "Unanswered question " << qid << " will receive score 0.\n";
    }
  }
  std::cout << FormatSquadMetricsJson(metrics) << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("squad_eval", [&] {
    absl::SetProgramUsageMessage(
        "squad_eval --data=dev.json --predictions=predictions.json "
        "[--na_probs=null_odds.json]");
    const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() > 1) {
      std::cerr << "squad_eval: unexpected argument " << positional[1] << "\n";
      return 2;
    }
    return bertlab::ExitStatus("squad_eval", bertlab::Run());
  });
}
