// The trivial predictors of the fine-tuning tasks: what a task's dev score
// has to beat to mean anything (issue 17: a column within a point of its
// majority-class rate says nothing). Each is fitted on the training examples
// only and comes with the one line that run records carry as
// `trivial.predictor` (docs/RUN_RECORDS.md). This file makes the
// predictions; the caller scores them with the task's official scorer, the
// one the model's dev predictions go through (experiments/task_evaluation.cc),
// so the two numbers are comparable by construction.
//
//   classification (GLUE but STS-B, the derived pair task): the majority
//     class of the training labels, ties to the smaller class id;
//     "majority class of train (entailment)".
//   regression (STS-B): the mean training score; "mean score of train
//     (2.70); the correlation of a constant is taken as 0". Pearson and
//     Spearman of a constant are 0/0 (NaN in eval/metrics.h, as in scipy);
//     the scorer's caller reports them as 0, which is what a predictor that
//     knows nothing of its input earns.
//   span, SQuAD v1.1 layout (SQuAD v1.1, the derived cloze task): the first
//     k words of the context, k the median length of the training answers
//     (the lower median for an even count). Words are doc tokens, the
//     context split on whitespace as read_squad_examples splits it, and an
//     answer's length is the number of doc tokens its span covers;
//     "the first 3 words of the context (3 = median train answer length)".
//   span, SQuAD v2.0: no answer for every question; "always no answer".
//     Every no-answer threshold gives it the same predictions, so its
//     chosen-threshold metrics are its threshold-0 ones.
//   multiple choice (SWAG, the derived four-way task): the most frequent
//     right choice on train, ties to the smaller index; "most frequent
//     right ending of train (ending 2)" (0-based, the CSV's ending0..3).
#ifndef BERTLAB_TASKS_FINETUNE_TRIVIAL_BASELINE_H_
#define BERTLAB_TASKS_FINETUNE_TRIVIAL_BASELINE_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/finetune/encoded_example.h"

namespace bertlab {

// The majority class of the labelled examples of `train` (has_label).
struct MajorityClass {
  int32_t label = 0;
  std::string predictor;  // "majority class of train (entailment)"
};

// `label_names` are the task's labels in class-id order (GlueTaskSpec::
// labels); the predictor names the class by them, or by its id where a name
// is missing. Error: no labelled example.
absl::StatusOr<MajorityClass> FitMajorityClass(
    const std::vector<ClassificationExample>& train,
    const std::vector<std::string>& label_names);

// The mean regression target of the labelled examples of `train`.
struct MeanScore {
  double score = 0.0;
  std::string predictor;  // "mean score of train (2.70); ..."
};

// Error: no labelled example.
absl::StatusOr<MeanScore> FitMeanScore(
    const std::vector<ClassificationExample>& train);

// The first `words` doc tokens of every context.
struct FirstWords {
  int64_t words = 0;
  std::string predictor;  // "the first 3 words of the context (...)"

  // The answer for a context of `doc_tokens`: its first `words` tokens
  // joined by " " (all of them when it has fewer).
  std::string Predict(const std::vector<std::string>& doc_tokens) const;
};

// `train_answer_words`: the length in doc tokens of each training answer.
// Error: none given, or a length below 1.
absl::StatusOr<FirstWords> FitFirstWords(
    std::vector<int64_t> train_answer_words);

// The SQuAD v2.0 predictor's text (it has nothing to fit).
inline constexpr char kAlwaysNoAnswerPredictor[] = "always no answer";

// The most frequent right choice of the labelled examples of `train`.
struct MajorityChoice {
  int32_t choice = 0;
  std::string predictor;  // "most frequent right ending of train (ending 2)"
};

// Error: no labelled example, or a label outside [0, num_choices).
absl::StatusOr<MajorityChoice> FitMajorityChoice(
    const std::vector<MultipleChoiceExample>& train, int num_choices);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_TRIVIAL_BASELINE_H_
