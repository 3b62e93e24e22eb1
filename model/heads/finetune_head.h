// The head fine-tuning puts on the encoder: the one name for it, used by the
// model (model/finetune_heads.h) and by experiments/task_evaluation.h
// HeadOptions, which picks it by the reader of the task's row
// (tasks/finetune/finetune_task_table.h). Regression (STS-B) is kClassifier
// with one output.
#ifndef BERTLAB_MODEL_HEADS_FINETUNE_HEAD_H_
#define BERTLAB_MODEL_HEADS_FINETUNE_HEAD_H_

namespace bertlab {

enum class FinetuneHead {
  kClassifier,      // pooled output -> num_labels classes (1: a score)
  kSpan,            // start/end logits on every position (SQuAD)
  kMultipleChoice,  // one score per choice through the pooled output
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_FINETUNE_HEAD_H_
