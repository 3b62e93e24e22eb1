// The fine-tuning tasks' examples after tokenization, in the one shape the
// fine-tuning driver (model/train/finetuner.h) batches: every task reader
// (tasks/glue, tasks/squad, tasks/swag, tasks/default_tasks) produces these,
// the driver pads them into EncoderBatch rows, and the task's scorer maps the
// predictions back to the task's examples by `guid` / `example_index`.
#ifndef BERTLAB_TASKS_FINETUNE_ENCODED_EXAMPLE_H_
#define BERTLAB_TASKS_FINETUNE_ENCODED_EXAMPLE_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace bertlab {

// One model input without padding: [CLS] A [SEP] or [CLS] A [SEP] B [SEP]
// as vocabulary ids, segment 0 up to and including the first [SEP], 1 after.
// input_ids.size() == token_type_ids.size() <= the task's max_seq_length.
struct EncodedSequence {
  std::vector<int32_t> input_ids;
  std::vector<int32_t> token_type_ids;
};

// A label that the loss ignores (unlabelled test rows); the value is the
// heads' kIgnoreLabel (model/heads/pretraining_heads.h).
inline constexpr int32_t kNoLabel = -100;

// Sequence classification or regression (GLUE, the derived pair task).
struct ClassificationExample {
  // The example's id in its file (GLUE: the row's index column, or its
  // 0-based data-row number where the file has none); predictions are
  // written under it.
  std::string guid;
  EncodedSequence sequence;
  // Class in [0, num_labels), or kNoLabel (test rows). Classification only.
  int32_t label = kNoLabel;
  // Regression target (STS-B); num_labels == 1 only.
  float score = 0.0f;
  // False for unlabelled rows (test files).
  bool has_label = false;
};

// One window ("feature") of a SQuAD question over its context. Positions are
// token indices into sequence.input_ids; start = end = 0 ([CLS]) means "no
// answer in this window" (v2.0 impossible questions, and in training any
// window that does not contain the whole answer, as the reference does).
struct SpanFeature {
  int64_t example_index = 0;  // index of the question in its data set
  int64_t window_index = 0;   // 0, 1, ... over that question's windows
  EncodedSequence sequence;
  int32_t start_position = 0;
  int32_t end_position = 0;
};

// Multiple choice (SWAG, the derived four-way task): one sequence per choice,
// all from the same context.
struct MultipleChoiceExample {
  std::string guid;
  std::vector<EncodedSequence> choices;
  // Index of the right choice, or kNoLabel (unlabelled).
  int32_t label = kNoLabel;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_FINETUNE_ENCODED_EXAMPLE_H_
