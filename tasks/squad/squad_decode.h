// Start/end logits -> SQuAD answers, with the semantics of google-research/bert
// run_squad.py write_predictions and get_final_text (PAPER.md 2d):
//
//   For each question, over its windows: the n_best_size highest start and
//   end logits (ties: lower index first); a (start, end) pair is kept when
//   both are window (doc) positions, the start is max-context, end >= start
//   and end - start + 1 <= max_answer_length. Candidates are ranked by
//   start_logit + end_logit; the text of a candidate is its wordpieces with
//   "##" joins removed, aligned back onto the original doc tokens by
//   get_final_text (BasicTokenizer on the original text, then a
//   character-to-character map after removing spaces; on any mismatch the
//   whole original token span is used). Duplicate texts are dropped.
//   v2.0: score_null = min over windows of start[0] + end[0] ([CLS]); the
//   null answer joins the n-best; score_diff = score_null - (best non-null
//   start + end); the prediction is "" iff score_diff >
//   null_score_diff_threshold.
// Logits should cover every position the model scored (max_seq_length,
// padding included, as the reference does: padded positions can take top-k
// places before they are filtered out). Sums are in double, like Python.
// Edge cases where the reference fails: an example with no valid candidate
// gets the nonce answer "empty" (v1.1, as the reference); in v2.0 when only
// the null answer is left, "empty" with logits 0 is the best non-null (as
// HuggingFace's port does; the reference crashes).
#ifndef BERTLAB_TASKS_SQUAD_SQUAD_DECODE_H_
#define BERTLAB_TASKS_SQUAD_SQUAD_DECODE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tasks/basic_tokenizer.h"
#include "tasks/full_tokenizer.h"
#include "tasks/squad/squad_features.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {

// The model's output for one feature. Both vectors have one logit per
// scored position; at least the feature's sequence length.
struct SpanLogits {
  std::vector<float> start_logits;
  std::vector<float> end_logits;
};

struct SquadDecodeOptions {
  int n_best_size = 20;
  int max_answer_length = 30;
  // SQuAD 2.0: null answers at [CLS].
  bool version_2_with_negative = false;
  double null_score_diff_threshold = 0.0;
};

struct SquadNbestEntry {
  std::string text;
  double start_logit = 0.0;
  double end_logit = 0.0;
  double probability = 0.0;  // softmax over the n-best's start + end
};

struct SquadPrediction {
  std::string qid;
  // The answer written to predictions.json ("" = no answer, v2.0).
  std::string text;
  // v2.0: the best non-empty answer and score_null minus its score
  // (null_odds.json); text is "" iff score_diff > the threshold.
  std::string best_non_null_text;
  double score_diff = 0.0;
  std::vector<SquadNbestEntry> nbest;
};

// One prediction per example of `dataset`, in order. `logits` is parallel
// to features.features; features.decoding_info must be filled. Errors:
// sizes that do not match, logits shorter than a sequence, bad options.
absl::StatusOr<std::vector<SquadPrediction>> DecodeSquadPredictions(
    const SquadDataset& dataset, const SquadFeatures& features,
    absl::Span<const SpanLogits> logits, const FullTokenizer& tokenizer,
    const SquadDecodeOptions& options);

// get_final_text: the part of `orig_text` (" "-joined original doc tokens)
// that `pred_text` (de-tokenized wordpieces) corresponds to.
std::string GetFinalText(absl::string_view pred_text,
                         absl::string_view orig_text,
                         const BasicTokenizer& basic_tokenizer);

// v2.0: re-decides every text for a new threshold (text = "" iff
// score_diff > threshold, else best_non_null_text).
void ApplySquadNullThreshold(double threshold,
                             std::vector<SquadPrediction>* predictions);

// predictions.json and null_odds.json exactly as the reference writes them:
// json.dumps(OrderedDict, indent=4) + "\n" (ASCII with \u escapes, floats
// as Python's repr).
std::string SquadPredictionsJson(absl::Span<const SquadPrediction> predictions);
std::string SquadNullOddsJson(absl::Span<const SquadPrediction> predictions);
absl::Status WriteSquadPredictionsFile(
    const std::string& path, absl::Span<const SquadPrediction> predictions);
absl::Status WriteSquadNullOddsFile(
    const std::string& path, absl::Span<const SquadPrediction> predictions);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SQUAD_SQUAD_DECODE_H_
