// SQuAD evaluation: a port of the official evaluate-v1.1.py and
// evaluate-v2.0.py (PAPER.md section 3), with the same numbers and the same
// printed JSON.
//
//   normalize_answer(s) = white_space_fix(remove_articles(remove_punc(
//                             lower(s))))
//     lower: Python's str.lower(); remove_punc: drop every character of
//     string.punctuation; remove_articles: the regex \b(a|an|the)\b -> " "
//     (Unicode word boundaries); white_space_fix: " ".join(s.split()).
//   EM = normalize(pred) == normalize(gold); F1 = token-bag overlap
//   2PR/(P+R). v2.0 only: F1 = (pred_toks == gold_toks) when either side has
//   no tokens, and golds with an empty normalized text are dropped (none left
//   = the question is unanswerable, gold [""]).
//   Scores are the max over the golds; totals are 100 x mean.
//   v1.1: over all questions of the data set, a missing prediction scores 0.
//   v2.0: over the predicted questions; na_prob > na_prob_thresh (default
//   1.0) turns a prediction into "no answer"; with na_probs, find_best_thresh
//   walks the questions by ascending na_prob and reports the best EM / F1
//   and the na_prob where each is reached.
// Sums run in the official scripts' order (data set order) in double, as
// Python <= 3.11's sum() does (3.12's compensated sum can differ in the last
// digit).
#ifndef BERTLAB_EVAL_SQUAD_EVAL_H_
#define BERTLAB_EVAL_SQUAD_EVAL_H_

#include <stdint.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// ---- normalization and per-answer scores -----------------------------------

std::string NormalizeSquadAnswer(absl::string_view text);
// exact_match_score / compute_exact: 1 or 0.
int SquadExactScore(absl::string_view prediction, absl::string_view gold);
// evaluate-v1.1.py f1_score.
double SquadF1ScoreV1(absl::string_view prediction, absl::string_view gold);
// evaluate-v2.0.py compute_f1 (the empty-token rule).
double SquadF1ScoreV2(absl::string_view prediction, absl::string_view gold);

// ---- data ------------------------------------------------------------------

struct SquadGoldQuestion {
  std::string qid;
  // Every answer's text, in file order (v2.0 unanswerable: none).
  std::vector<std::string> answer_texts;
};

struct SquadGold {
  std::string version;  // the file's "version", "" when absent
  // "version" starts with "v2" or some question has "is_impossible".
  bool is_v2 = false;
  std::vector<SquadGoldQuestion> questions;  // in file order
};

// Parses an official SQuAD file (data[].paragraphs[].qas[]). Errors name
// `source`, the line/column of a JSON syntax error, or the JSON path of a
// missing or mistyped field (data[0].paragraphs[3].qas[1].id).
absl::StatusOr<SquadGold> ParseSquadGold(absl::string_view json_text,
                                         absl::string_view source);
absl::StatusOr<SquadGold> ReadSquadGoldFile(const std::string& path);

// predictions.json: an object qid -> string. Later duplicates win (Python's
// json.load).
using SquadPredictionMap = absl::flat_hash_map<std::string, std::string>;
absl::StatusOr<SquadPredictionMap> ParseSquadPredictions(
    absl::string_view json_text, absl::string_view source);
absl::StatusOr<SquadPredictionMap> ReadSquadPredictionsFile(
    const std::string& path);

// null_odds.json (--na-prob-file): an object qid -> number, kept in file
// order because find_best_thresh's walk breaks ties in that order.
struct SquadNaProb {
  std::string qid;
  double value = 0.0;
  // Written as an integer in the file: Python prints it back as one.
  bool is_integer = false;
};
using SquadNaProbs = std::vector<SquadNaProb>;
absl::StatusOr<SquadNaProbs> ParseSquadNaProbs(absl::string_view json_text,
                                               absl::string_view source);
absl::StatusOr<SquadNaProbs> ReadSquadNaProbsFile(const std::string& path);

// ---- evaluation ------------------------------------------------------------

struct SquadEvalOptions {
  // evaluate-v2.0.py --na-prob-thresh.
  double na_prob_thresh = 1.0;
};

struct SquadBestThreshold {
  double best_score = 0.0;  // 100 x best mean
  double threshold = 0.0;   // the na_prob where it is reached
  // How `threshold` prints (the na_prob's own JSON type; 0.0 when none).
  bool threshold_is_integer = false;
};

// One question's scores as the official script adds them up (max over the
// gold answers, after the v2.0 no-answer threshold), as fractions in [0, 1].
struct SquadQuestionScore {
  std::string qid;
  double exact = 0.0;
  double f1 = 0.0;
};

struct SquadMetrics {
  bool is_v2 = false;
  // Every scored question, in data set order: exact and f1 are 100 x the
  // means of these (v1.1: a question without a prediction scores 0).
  std::vector<SquadQuestionScore> per_question;
  // v1.1: exact_match and f1. v2.0: exact, f1 and total.
  double exact = 0.0;
  double f1 = 0.0;
  int64_t total = 0;
  // v2.0, when the data set has answerable / unanswerable questions.
  std::optional<double> has_ans_exact, has_ans_f1;
  int64_t has_ans_total = 0;
  std::optional<double> no_ans_exact, no_ans_f1;
  int64_t no_ans_total = 0;
  // v2.0 with na_probs.
  std::optional<SquadBestThreshold> best_exact, best_f1;
  // Questions of the data set without a prediction (v1.1 scores them 0 and
  // the official script says so on stderr).
  std::vector<std::string> missing_predictions;
};

// evaluate-v1.1.py evaluate(). Error: no questions.
absl::StatusOr<SquadMetrics> EvaluateSquadV1(
    const SquadGold& gold, const SquadPredictionMap& predictions);

// evaluate-v2.0.py main(). `na_probs` = nullptr: every na_prob is 0.0 and no
// best-threshold search (as without --na-prob-file). Errors where the
// official script would fail: no predictions, a HasAns/NoAns question
// without a prediction (its KeyError), a predicted question missing from
// `na_probs`.
absl::StatusOr<SquadMetrics> EvaluateSquadV2(
    const SquadGold& gold, const SquadPredictionMap& predictions,
    const SquadNaProbs* na_probs, const SquadEvalOptions& options);

// v1.1 or v2.0 by gold.is_v2.
absl::StatusOr<SquadMetrics> EvaluateSquad(
    const SquadGold& gold, const SquadPredictionMap& predictions,
    const SquadNaProbs* na_probs, const SquadEvalOptions& options);

// What the official script prints on stdout: v1.1 json.dumps(dict) on one
// line; v2.0 json.dumps(OrderedDict, indent=2). No trailing newline.
std::string FormatSquadMetricsJson(const SquadMetrics& metrics);

// The v2.0 no-answer threshold chosen on dev (best-F1 search, PAPER.md
// 4.3): `best_non_null` holds every question's best non-empty answer and
// `score_diffs` its null score minus that answer's score (null_odds.json).
// Predicting "" iff score_diff > threshold then gives best_f1 on `gold`
// (find_best_thresh over F1 with those predictions). Returns both searches
// (best_exact on exact match, best_f1 on F1) in a v2.0 SquadMetrics.
absl::StatusOr<SquadMetrics> ChooseSquadNullThreshold(
    const SquadGold& gold, const SquadPredictionMap& best_non_null,
    const SquadNaProbs& score_diffs);

}  // namespace bertlab

#endif  // BERTLAB_EVAL_SQUAD_EVAL_H_
