// Baselines that read the input (issue 38): what a column's score has to
// beat before it says anything about language understanding, beyond the
// trivial predictors (trivial_baseline.h) that ignore the input. Each is a
// few lines a new user would try; each is fitted on the training examples
// only and named by the line run records carry as `baselines[].predictor`.
// The caller scores the predictions with the task's official scorer.
//
//   word overlap (sentence-pair classification): the Jaccard overlap of the
//     two texts' word sets (words: maximal runs of ASCII letters and digits
//     and non-ASCII bytes, ASCII letters lowercased) against one threshold:
//     at or above it one class, below it another. The threshold (below all
//     of train's overlaps, midway between two neighbouring ones, or above
//     all) and the two classes are the ones with the most right answers on
//     train (ties: the smaller threshold, then the smaller class ids). A
//     pair task that word overlap separates (random-chapter negatives) is a
//     topic test.
//   string alignment (extractive QA): the question split at its first
//     wh-word (what who whom whose which when where why how); the answer is
//     the context span of 1 to kMaxAlignedSpanWords doc tokens whose left
//     neighbours match the most of the question's words before the wh-word
//     (read backwards from it) plus whose right neighbours match the most
//     of the words after it (read forwards), words compared as above; ties:
//     the shorter, then the earlier span. No match at all: no answer. A
//     span task that alignment solves is a copy test.
//   frequent name (extractive QA): the capitalised word of the context, not
//     its first word and not a word of the question, that occurs most often
//     in the context (ties: the first to occur). On a next-sentence cloze
//     whose answers are mostly names, it is what counting can do.
#ifndef BERTLAB_TASKS_FINETUNE_INPUT_BASELINES_H_
#define BERTLAB_TASKS_FINETUNE_INPUT_BASELINES_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// Record names of the baselines (RunRecord.baselines[].name).
inline constexpr char kWordOverlapBaseline[] = "word_overlap";
inline constexpr char kStringAlignmentBaseline[] = "string_alignment";
inline constexpr char kFrequentNameBaseline[] = "frequent_name";

// The words of `text` as above, in order.
std::vector<std::string> BaselineWords(absl::string_view text);

// |A ∩ B| / |A ∪ B| of the word sets; 0 when both are empty.
double WordOverlap(absl::string_view text_a, absl::string_view text_b);

struct LabelledPair {
  std::string text_a;
  std::string text_b;
  int32_t label = 0;
};

struct WordOverlapClassifier {
  double threshold = 0.0;
  int32_t at_or_above = 0;  // the class at or above the threshold
  int32_t below = 0;
  std::string predictor;  // "word overlap >= 0.143: 1, else 0 (...)"

  int32_t Predict(absl::string_view text_a, absl::string_view text_b) const;
};

// `label_names` as in FitMajorityClass. Errors: no example, a label outside
// [0, label_names.size()) when names are given.
absl::StatusOr<WordOverlapClassifier> FitWordOverlap(
    const std::vector<LabelledPair>& train,
    const std::vector<std::string>& label_names);

inline constexpr int kMaxAlignedSpanWords = 5;
inline constexpr char kStringAlignmentPredictor[] =
    "the context span whose neighbours align with the question's words "
    "around its wh-word";

// The string alignment's answer: doc tokens joined by " ", or "" for none.
std::string AlignSpan(absl::string_view question,
                      const std::vector<std::string>& doc_tokens);

inline constexpr char kFrequentNamePredictor[] =
    "the context's most frequent capitalised word that the question lacks";

// The frequent name's answer (a doc token's word, as BaselineWords keeps
// it but with its case), or "" when the context has none.
std::string FrequentName(absl::string_view question,
                         const std::vector<std::string>& doc_tokens);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_INPUT_BASELINES_H_
