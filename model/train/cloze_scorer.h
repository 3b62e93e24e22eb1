// Scores two-sided cloze items (tasks/cloze/cloze_items.h) with a
// pre-trained checkpoint, no fine-tuning: each candidate of an item gets a
// score, higher is better, and the model's answer is the first highest.
// How depends on the checkpoint's attention mode (its objective):
//
//   bidirectional (masked LM): [CLS] left [MASK] right [SEP]; a candidate's
//     score is its log-probability at the mask. Left context only:
//     [CLS] left [MASK] [SEP].
//   causal (left-to-right LM): for each candidate, the log-likelihood of the
//     whole sequence [CLS] left c right [SEP], each token predicted from the
//     ones before it, less the terms of the left context's words, which
//     are the same for every candidate (so the choice is the whole
//     likelihood's, and they are not computed): log p(c | [CLS] left) +
//     log p(right [SEP] | [CLS] left c). The right context counts through the
//     likelihood of the words after the blank given c, so a left-to-right model
//     is not denied it. Left context only: log p(c | [CLS] left).
//   reverse-causal (right-to-left LM): the same from the right: each token
//     predicted from the ones after it, less the terms of the right
//     context's words.
//     Left context only: not defined (this model reads the blank from the
//     right); refused.
//
// An ELMo-style pair scores a candidate by the sum of its LTR and RTL
// scores (AddScores).
#ifndef BERTLAB_MODEL_TRAIN_CLOZE_SCORER_H_
#define BERTLAB_MODEL_TRAIN_CLOZE_SCORER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/bert/config.h"
#include "tasks/cloze/cloze_items.h"

namespace bertlab {

enum class ClozeContext { kBothSides, kLeftOnly };

struct ClozeScorerOptions {
  ClozeContext context = ClozeContext::kBothSides;
  int batch_size = 32;  // sequences per forward pass
  // The vocabulary's special tokens (FullTokenizer::vocab()); required.
  int cls_id = -1;
  int sep_id = -1;
  int mask_id = -1;
  int pad_id = -1;
};

// Per item, one score per candidate (natural log-probabilities).
using ClozeScores = std::vector<std::vector<double>>;

// The checkpoint directory's config.json and model.safetensors (a
// pre-training checkpoint; an NSP head in it is not used). Errors: an
// unreadable checkpoint, a token id outside its vocabulary, an item longer
// than its max_position_embeddings, left context only for a right-to-left
// model.
absl::StatusOr<ClozeScores> ScoreClozeItems(const std::string& checkpoint_dir,
                                            const std::vector<ClozeItem>& items,
                                            const ClozeScorerOptions& options);

// The same with a config and parameters in memory (BertForPretraining's
// layout without the NSP head), for tests.
absl::StatusOr<ClozeScores> ScoreClozeItems(const BertConfig& config,
                                            const std::vector<float>& params,
                                            const std::vector<ClozeItem>& items,
                                            const ClozeScorerOptions& options);

// a + b, item by item and candidate by candidate (the ELMo-style pair).
// Error: different shapes.
absl::StatusOr<ClozeScores> AddScores(const ClozeScores& a,
                                      const ClozeScores& b);

// The index of each item's first highest score.
std::vector<int> ClozeChoices(const ClozeScores& scores);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_CLOZE_SCORER_H_
