#include "tasks/finetune/trivial_baseline.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace bertlab {
namespace {

// The most frequent of `values` (not empty: the callers check), ties to the
// smallest.
int32_t MostFrequent(const std::vector<int32_t>& values) {
  std::map<int32_t, int64_t> counts;
  for (const int32_t value : values) ++counts[value];
  int32_t best = counts.begin()->first;
  int64_t best_count = 0;
  // Ascending keys: a later class wins only with strictly more examples.
  for (const auto& [value, count] : counts) {
    if (count > best_count) {
      best = value;
      best_count = count;
    }
  }
  return best;
}

}  // namespace

absl::StatusOr<MajorityClass> FitMajorityClass(
    const std::vector<ClassificationExample>& train,
    const std::vector<std::string>& label_names) {
  std::vector<int32_t> labels;
  for (const ClassificationExample& example : train) {
    if (example.has_label) labels.push_back(example.label);
  }
  if (labels.empty()) {
    return absl::InvalidArgumentError(
        "majority class: no labelled training example");
  }
  MajorityClass result;
  result.label = MostFrequent(labels);
  const bool named = result.label >= 0 &&
                     static_cast<size_t>(result.label) < label_names.size();
  result.predictor = absl::StrCat(
      "majority class of train (",
      named ? label_names[result.label] : absl::StrCat(result.label), ")");
  return result;
}

absl::StatusOr<MeanScore> FitMeanScore(
    const std::vector<ClassificationExample>& train) {
  double sum = 0.0;
  int64_t count = 0;
  for (const ClassificationExample& example : train) {
    if (!example.has_label) continue;
    sum += example.score;
    ++count;
  }
  if (count == 0) {
    return absl::InvalidArgumentError(
        "mean score: no labelled training example");
  }
  MeanScore result;
  result.score = sum / static_cast<double>(count);
  result.predictor = absl::StrFormat(
      "mean score of train (%.2f); the correlation of a constant is taken as "
      "0",
      result.score);
  return result;
}

std::string FirstWords::Predict(
    const std::vector<std::string>& doc_tokens) const {
  const size_t count = std::min(
      doc_tokens.size(), static_cast<size_t>(std::max<int64_t>(words, 0)));
  return absl::StrJoin(doc_tokens.begin(), doc_tokens.begin() + count, " ");
}

absl::StatusOr<FirstWords> FitFirstWords(
    std::vector<int64_t> train_answer_words) {
  if (train_answer_words.empty()) {
    return absl::InvalidArgumentError(
        "first words of the context: no training answer to take the median "
        "length of");
  }
  for (const int64_t length : train_answer_words) {
    if (length < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("first words of the context: a training answer of ",
                       length, " words"));
    }
  }
  // The lower median: an element of the data, so a whole number of words.
  const size_t middle = (train_answer_words.size() - 1) / 2;
  std::nth_element(train_answer_words.begin(),
                   train_answer_words.begin() + middle,
                   train_answer_words.end());
  FirstWords result;
  result.words = train_answer_words[middle];
  result.predictor = absl::StrCat(
      "the first ", result.words, " word", result.words == 1 ? "" : "s",
      " of the context (", result.words, " = median train answer length)");
  return result;
}

absl::StatusOr<MajorityChoice> FitMajorityChoice(
    const std::vector<MultipleChoiceExample>& train, int num_choices) {
  std::vector<int32_t> labels;
  for (const MultipleChoiceExample& example : train) {
    if (example.label == kNoLabel) continue;
    if (example.label < 0 || example.label >= num_choices) {
      return absl::InvalidArgumentError(absl::StrCat(
          "most frequent right choice: example ", example.guid, " has label ",
          example.label, ", not in [0, ", num_choices, ")"));
    }
    labels.push_back(example.label);
  }
  if (labels.empty()) {
    return absl::InvalidArgumentError(
        "most frequent right choice: no labelled training example");
  }
  MajorityChoice result;
  result.choice = MostFrequent(labels);
  result.predictor = absl::StrCat(
      "most frequent right ending of train (ending ", result.choice, ")");
  return result;
}

}  // namespace bertlab
