// One pre-training instance, unpadded: google-research/bert's
// TrainingInstance with vocabulary ids instead of token strings.
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_TRAINING_INSTANCE_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_TRAINING_INSTANCE_H_

#include <cstdint>
#include <vector>

namespace bertlab {

struct TrainingInstance {
  // (num_tokens) [CLS] A [SEP] B [SEP] for masked LM, [CLS] text [SEP] for
  // left-to-right; the ids after masking. The input mask is 1 on these
  // positions and 0 on the padding up to max_seq_length.
  std::vector<int32_t> input_ids;
  // (num_tokens) 0 for [CLS], A and the first [SEP]; 1 for B and the last
  // [SEP]. All 0 for left-to-right instances.
  std::vector<int32_t> segment_ids;
  // (num_predictions) ascending positions chosen for masked-LM prediction,
  // and the original ids there (the labels). Empty for left-to-right.
  std::vector<int32_t> masked_lm_positions;
  std::vector<int32_t> masked_lm_ids;
  // 0 = IsNext (B follows A in the document), 1 = B from a random document.
  // Always 0 for left-to-right.
  int32_t next_sentence_label = 0;

  int num_tokens() const { return static_cast<int>(input_ids.size()); }

  bool operator==(const TrainingInstance& other) const {
    return input_ids == other.input_ids && segment_ids == other.segment_ids &&
           masked_lm_positions == other.masked_lm_positions &&
           masked_lm_ids == other.masked_lm_ids &&
           next_sentence_label == other.next_sentence_label;
  }
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_TRAINING_INSTANCE_H_
