#include "experiments/pretraining_curve.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace bertlab {

absl::StatusOr<std::vector<reports::EvalPoint>> ReadEvalCurve(
    const std::string& metrics_path, LanguageModel objective) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(metrics_path));
  const std::string lm(LanguageModelName(objective));
  std::vector<reports::EvalPoint> curve;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    const auto error = [&](absl::string_view what) {
      return absl::DataLossError(
          absl::StrCat(metrics_path, ":", line_number, ": ", what));
    };
    const nlohmann::json json =
        nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      return error("not a JSON object");
    }
    const auto type = json.find("type");
    if (type == json.end() || *type != "eval") continue;
    const auto step = json.find("step");
    const auto perplexity = json.find(lm + "_perplexity");
    const auto accuracy = json.find(lm + "_accuracy");
    if (step == json.end() || !step->is_number_integer() ||
        perplexity == json.end() || !perplexity->is_number() ||
        accuracy == json.end() || !accuracy->is_number()) {
      return error(
          absl::StrCat("an eval line needs an integer \"step\" and "
                       "numbers \"",
                       lm, "_perplexity\" and \"", lm, "_accuracy\""));
    }
    reports::EvalPoint point;
    point.step = step->get<int64_t>();
    point.perplexity = perplexity->get<double>();
    point.accuracy = 100.0 * accuracy->get<double>();
    if (!curve.empty() && point.step <= curve.back().step) {
      return error(absl::StrCat("step ", point.step, " after step ",
                                curve.back().step, ": steps must rise"));
    }
    curve.push_back(point);
  }
  return curve;
}

}  // namespace bertlab
