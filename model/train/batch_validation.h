// Host-side checks of a training batch before it is uploaded to the GPU. The
// CPU ops CHECK their indices as they go (embedding_cpu.cc, encoder.cc,
// pretraining_heads.cc, span_head.cc); the CUDA ops do not range-check ids
// (an out-of-range id reads another tensor's memory) and trap on bad
// positions or labels, which aborts the process with a less useful message.
// These checks say which array, which element and what the limit is, as
// absl::Status (the batch is input data, STYLE.md 10). Host memory only;
// plain C++, tested without a GPU (batch_validation_test).
//
// What is checked (what the CPU would CHECK, and what the GPU needs):
//   encoder batch:  B > 0, 0 < T <= max_position_embeddings, input_ids in
//                   [0, vocab_size), token_type_ids in [0, type_vocab_size),
//                   attention_mask (if any) 0 or 1, pooled_positions (if any)
//                   in [0, T)
//   pre-training:   0 <= num_predictions <= max_predictions, positions in
//                   [0, B*T), labels in [0, vocab_size) or kIgnoreLabel,
//                   next-sentence labels (only with the head) 0, 1 or
//                   kIgnoreLabel
//   span:           both position arrays or neither; each position >= 0 or
//                   kIgnoreLabel (>= T is allowed: ignored, span_head.h)
//   fine-tuning:    the targets of the model's head only; classifier labels
//                   in [0, num_labels) or kIgnoreLabel, regression scores
//                   finite, choice labels in [0, num_choices) or
//                   kIgnoreLabel, one per example; span as above
#ifndef BERTLAB_MODEL_TRAIN_BATCH_VALIDATION_H_
#define BERTLAB_MODEL_TRAIN_BATCH_VALIDATION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "model/bert/config.h"
#include "model/bert/encoder.h"
#include "model/finetune_heads.h"
#include "model/heads/pretraining_heads.h"
#include "model/heads/span_head.h"

namespace bertlab {

absl::Status ValidateEncoderBatch(const BertConfig& config,
                                  const EncoderBatch& batch);

// For a batch of `batch` sequences of `seq_len` tokens. next_sentence_head:
// whether the model has the NSP head (labels without it are an error).
absl::Status ValidatePretrainingTargets(const BertConfig& config,
                                        bool next_sentence_head,
                                        const PretrainingTargets& targets,
                                        int64_t batch, int64_t seq_len,
                                        int64_t max_predictions);

absl::Status ValidateSpanTargets(const SpanTargets& targets, int64_t batch);

// For `rows` encoder rows of a model with `options`' head (kMultipleChoice:
// rows / num_choices examples).
absl::Status ValidateFinetuneTargets(const FinetuneModelOptions& options,
                                     const FinetuneTargets& targets,
                                     int64_t rows);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_BATCH_VALIDATION_H_
