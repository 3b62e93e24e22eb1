// The SQuAD decoder's predictions and a reader's dataset (tasks/squad) as
// the official evaluation's inputs (eval/squad_eval.h): the written texts,
// the best non-null texts (for ChooseSquadNullThreshold), the score_diffs as
// na_probs, and the gold answers of an evaluation-mode dataset. Here, not in
// tasks/squad, so that the data layer does not depend on the metrics.
#ifndef BERTLAB_EVAL_SQUAD_DECODED_H_
#define BERTLAB_EVAL_SQUAD_DECODED_H_

#include "absl/types/span.h"
#include "eval/squad_eval.h"
#include "tasks/squad/squad_decode.h"
#include "tasks/squad/squad_reader.h"

namespace bertlab {

SquadPredictionMap ToSquadPredictionMap(
    absl::Span<const SquadPrediction> predictions);
SquadPredictionMap ToSquadBestNonNullMap(
    absl::Span<const SquadPrediction> predictions);
SquadNaProbs ToSquadNaProbs(absl::Span<const SquadPrediction> predictions);
// gold.is_v2 when the version says v2 or any question is impossible.
SquadGold ToSquadGold(const SquadDataset& dataset);

}  // namespace bertlab

#endif  // BERTLAB_EVAL_SQUAD_DECODED_H_
