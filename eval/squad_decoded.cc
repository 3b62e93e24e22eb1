#include "eval/squad_decoded.h"

#include <utility>

#include "absl/strings/match.h"

namespace bertlab {

SquadPredictionMap ToSquadPredictionMap(
    absl::Span<const SquadPrediction> predictions) {
  SquadPredictionMap map;
  for (const SquadPrediction& prediction : predictions) {
    map[prediction.qid] = prediction.text;
  }
  return map;
}

SquadPredictionMap ToSquadBestNonNullMap(
    absl::Span<const SquadPrediction> predictions) {
  SquadPredictionMap map;
  for (const SquadPrediction& prediction : predictions) {
    map[prediction.qid] = prediction.best_non_null_text;
  }
  return map;
}

SquadNaProbs ToSquadNaProbs(absl::Span<const SquadPrediction> predictions) {
  SquadNaProbs na_probs;
  for (const SquadPrediction& prediction : predictions) {
    na_probs.push_back(SquadNaProb{prediction.qid, prediction.score_diff,
                                   /*is_integer=*/false});
  }
  return na_probs;
}

SquadGold ToSquadGold(const SquadDataset& dataset) {
  SquadGold gold;
  gold.version = dataset.version;
  gold.is_v2 =
      absl::StartsWith(dataset.version, "v2") || dataset.has_impossible;
  for (const SquadExample& example : dataset.examples) {
    SquadGoldQuestion question;
    question.qid = example.qid;
    for (const SquadAnswer& answer : example.answers) {
      question.answer_texts.push_back(answer.text);
    }
    gold.questions.push_back(std::move(question));
  }
  return gold;
}

}  // namespace bertlab
