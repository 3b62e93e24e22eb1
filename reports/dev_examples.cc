#include "reports/dev_examples.h"

#include <cmath>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/check.h"
#include "eval/metrics.h"

namespace bertlab {
namespace reports {
namespace {

constexpr char kLabelsHeader[] = "example_id\tgold_label\tpredicted_label";
constexpr char kScoresHeader[] = "example_id\tgold_score\tpredicted_score";
constexpr char kSpansHeader[] = "example_id\texact_match\tf1\tprediction";
constexpr char kSpansWithArticlesHeader[] =
    "example_id\texact_match\tf1\tprediction\tarticle";

std::string OneLine(absl::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

template <typename T>
std::vector<T> Gather(const std::vector<T>& values,
                      const std::vector<int32_t>& indices) {
  std::vector<T> gathered;
  gathered.reserve(indices.size());
  for (int32_t i : indices) gathered.push_back(values[i]);
  return gathered;
}

double MeanAt(const std::vector<double>& values,
              const std::vector<int32_t>& indices) {
  double sum = 0;
  for (int32_t i : indices) sum += values[i];
  return sum / static_cast<double>(indices.size());
}

double LabelAccuracy(const DevExamples& e, const std::vector<int32_t>& at) {
  int64_t right = 0;
  for (int32_t i : at) right += e.gold_labels[i] == e.predicted_labels[i];
  return 100.0 * static_cast<double>(right) / static_cast<double>(at.size());
}
double LabelF1(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 *
         F1Positive(Gather(e.gold_labels, at), Gather(e.predicted_labels, at));
}
double LabelMcc(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 * MatthewsCorrelation(Gather(e.gold_labels, at),
                                     Gather(e.predicted_labels, at));
}
double ScorePearson(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 * PearsonCorrelation(Gather(e.gold_scores, at),
                                    Gather(e.predicted_scores, at));
}
double ScoreSpearman(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 * SpearmanCorrelation(Gather(e.gold_scores, at),
                                     Gather(e.predicted_scores, at));
}
double SpanExactMatch(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 * MeanAt(e.exact_match, at);
}
double SpanF1(const DevExamples& e, const std::vector<int32_t>& at) {
  return 100.0 * MeanAt(e.f1, at);
}

absl::Status LineError(absl::string_view path, int line,
                       absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", what));
}

}  // namespace

std::string DevExamplesTsv(const DevExamples& examples) {
  std::string text;
  switch (examples.kind) {
    case DevExampleKind::kLabels:
      text = kLabelsHeader;
      break;
    case DevExampleKind::kScores:
      text = kScoresHeader;
      break;
    case DevExampleKind::kSpans:
      text = examples.groups.empty() ? kSpansHeader : kSpansWithArticlesHeader;
      break;
  }
  text += "\n";
  CHECK(examples.groups.empty() ||
        (examples.kind == DevExampleKind::kSpans &&
         examples.groups.size() == examples.ids.size()))
      << "groups are for spans, one per example";
  for (int64_t i = 0; i < examples.size(); ++i) {
    const std::string& id = examples.ids[i];
    CHECK(id.find_first_of("\t\n\r") == std::string::npos) << id;
    switch (examples.kind) {
      case DevExampleKind::kLabels:
        absl::StrAppend(&text, id, "\t", examples.gold_labels[i], "\t",
                        examples.predicted_labels[i], "\n");
        break;
      case DevExampleKind::kScores:
        // Shortest round trip of a double: the parser gets the same bits.
        absl::StrAppend(
            &text, id, "\t", absl::StrFormat("%.17g", examples.gold_scores[i]),
            "\t", absl::StrFormat("%.17g", examples.predicted_scores[i]), "\n");
        break;
      case DevExampleKind::kSpans:
        absl::StrAppend(&text, id, "\t",
                        absl::StrFormat("%.17g", examples.exact_match[i]), "\t",
                        absl::StrFormat("%.17g", examples.f1[i]), "\t",
                        OneLine(examples.predictions[i]));
        if (!examples.groups.empty()) {
          const std::string& group = examples.groups[i];
          CHECK(!group.empty() &&
                group.find_first_of("\t\n\r") == std::string::npos)
              << group;
          absl::StrAppend(&text, "\t", group);
        }
        text += "\n";
        break;
    }
  }
  return text;
}

absl::StatusOr<DevExamples> ParseDevExamples(absl::string_view text,
                                             absl::string_view path) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return LineError(path, 1, "empty file: expected a header");
  DevExamples examples;
  size_t fields = 3;
  if (lines[0] == kLabelsHeader) {
    examples.kind = DevExampleKind::kLabels;
  } else if (lines[0] == kScoresHeader) {
    examples.kind = DevExampleKind::kScores;
  } else if (lines[0] == kSpansHeader) {
    examples.kind = DevExampleKind::kSpans;
    fields = 4;
  } else if (lines[0] == kSpansWithArticlesHeader) {
    examples.kind = DevExampleKind::kSpans;
    fields = 5;
  } else {
    return LineError(
        path, 1,
        absl::StrCat("unknown header \"", OneLine(lines[0]), "\"; expected \"",
                     absl::StrJoin({kLabelsHeader, kScoresHeader, kSpansHeader,
                                    kSpansWithArticlesHeader},
                                   "\", \"",
                                   [](std::string* out, const char* h) {
                                     absl::StrAppend(out, OneLine(h));
                                   }),
                     "\" (tabs shown as spaces)"));
  }
  std::set<std::string> seen;
  for (size_t n = 1; n < lines.size(); ++n) {
    const int line = static_cast<int>(n) + 1;
    const std::vector<absl::string_view> row = absl::StrSplit(lines[n], '\t');
    if (row.size() != fields) {
      return LineError(path, line,
                       absl::StrCat("expected ", fields,
                                    " tab-separated fields, got ", row.size()));
    }
    if (row[0].empty() || !seen.insert(std::string(row[0])).second) {
      return LineError(
          path, line,
          absl::StrCat("example_id \"", row[0],
                       row[0].empty() ? "\" is empty" : "\" appears twice"));
    }
    examples.ids.emplace_back(row[0]);
    if (examples.kind == DevExampleKind::kLabels) {
      int32_t gold, predicted;
      if (!absl::SimpleAtoi(row[1], &gold) ||
          !absl::SimpleAtoi(row[2], &predicted) || gold < 0 || predicted < 0) {
        return LineError(path, line,
                         absl::StrCat("expected two class ids (integers >= 0), "
                                      "got \"",
                                      row[1], "\" and \"", row[2], "\""));
      }
      examples.gold_labels.push_back(gold);
      examples.predicted_labels.push_back(predicted);
      continue;
    }
    double a, b;
    if (!absl::SimpleAtod(row[1], &a) || !absl::SimpleAtod(row[2], &b) ||
        !std::isfinite(a) || !std::isfinite(b)) {
      return LineError(path, line,
                       absl::StrCat("expected two finite numbers, got \"",
                                    row[1], "\" and \"", row[2], "\""));
    }
    if (examples.kind == DevExampleKind::kScores) {
      examples.gold_scores.push_back(a);
      examples.predicted_scores.push_back(b);
      continue;
    }
    if (a < 0 || a > 1 || b < 0 || b > 1) {
      return LineError(path, line,
                       absl::StrCat("exact_match and f1 must lie in [0, 1], "
                                    "got ",
                                    row[1], " and ", row[2]));
    }
    examples.exact_match.push_back(a);
    examples.f1.push_back(b);
    examples.predictions.emplace_back(row[3]);
    if (fields == 5) {
      if (row[4].empty()) {
        return LineError(path, line, "the article field is empty");
      }
      examples.groups.emplace_back(row[4]);
    }
  }
  if (examples.size() == 0) {
    return LineError(path, 2, "no example rows below the header");
  }
  return examples;
}

absl::StatusOr<ExampleMetric> FindExampleMetric(DevExampleKind kind,
                                                absl::string_view name) {
  switch (kind) {
    case DevExampleKind::kLabels:
      if (name == "accuracy") return &LabelAccuracy;
      if (name == "f1") return &LabelF1;
      if (name == "mcc") return &LabelMcc;
      break;
    case DevExampleKind::kScores:
      if (name == "pearson") return &ScorePearson;
      if (name == "spearman") return &ScoreSpearman;
      break;
    case DevExampleKind::kSpans:
      if (name == "exact_match") return &SpanExactMatch;
      if (name == "f1") return &SpanF1;
      break;
  }
  return absl::NotFoundError(
      absl::StrCat("metric \"", name, "\" cannot be computed from per-example ",
                   kind == DevExampleKind::kLabels   ? "labels"
                   : kind == DevExampleKind::kScores ? "scores"
                                                     : "span scores"));
}

bool PredictionsAreConstant(const DevExamples& examples) {
  if (examples.size() < 2) return false;
  for (int64_t i = 1; i < examples.size(); ++i) {
    switch (examples.kind) {
      case DevExampleKind::kLabels:
        if (examples.predicted_labels[i] != examples.predicted_labels[0]) {
          return false;
        }
        break;
      case DevExampleKind::kScores:
        if (examples.predicted_scores[i] != examples.predicted_scores[0]) {
          return false;
        }
        break;
      case DevExampleKind::kSpans:
        if (examples.predictions[i] != examples.predictions[0]) return false;
        break;
    }
  }
  return true;
}

}  // namespace reports
}  // namespace bertlab
