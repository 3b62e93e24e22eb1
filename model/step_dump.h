// One BertForPreTraining training step (forward and backward, dropout 0) on a
// batch given as JSON, with everything a reviewer needs to compare against
// another implementation written to a safetensors file. The library behind
// `bazel run //model:step_dump`.
//
// Batch JSON: an object with
//   "input_ids"           B x T integers in [0, vocab_size)
//   "token_type_ids"      B x T integers in [0, type_vocab_size)
//   "attention_mask"      B x T of 0 / 1
//   "masked_lm_labels"    B x T token ids, -100 = not predicted
//   "next_sentence_label" B integers, 0 = IsNext, 1 = NotNext
// with T <= max_position_embeddings.
//
// Output tensors (F32): prediction_logits [B,T,V] (every position),
// seq_relationship_logits [B,2], loss [] (mean masked-LM cross-entropy over
// labelled positions + mean next-sentence cross-entropy), masked_lm_loss [],
// next_sentence_loss [], last_hidden_state [B,T,H], pooled_output [B,H], and
// grad.<name> for every parameter under its HF name. A checkpoint without
// the next-sentence head (the No NSP variant) gives the masked-LM step alone:
// no seq_relationship_logits or next_sentence_loss, loss = masked_lm_loss,
// and "next_sentence_label" is read but not used.
//
// Before anything the size of the model is allocated, config.json's sizes
// are bounded (ValidateConfig), the weights file's every tensor is checked
// against the model (shapes, dtypes, finite values), and the step's memory
// is compared with the machine's.
#ifndef BERTLAB_MODEL_STEP_DUMP_H_
#define BERTLAB_MODEL_STEP_DUMP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/config.h"

namespace bertlab {

struct StepDumpBatch {
  int64_t batch = 0;
  int64_t seq_len = 0;
  std::vector<int32_t> input_ids;            // (B, T)
  std::vector<int32_t> token_type_ids;       // (B, T)
  std::vector<int32_t> attention_mask;       // (B, T)
  std::vector<int32_t> masked_lm_labels;     // (B, T)
  std::vector<int32_t> next_sentence_label;  // (B)
};

// Parses and checks the batch against `config`; errors name `source`, the
// key and, for a bad entry, its [row][column].
absl::StatusOr<StepDumpBatch> ParseStepDumpBatch(absl::string_view json,
                                                 absl::string_view source,
                                                 const BertConfig& config);

struct StepDumpOptions {
  std::string checkpoint_dir;   // config.json + model.safetensors
  std::string batch_path;       // the batch JSON
  std::string output_path;      // the safetensors file to write
  bool causal = false;          // force causal attention (else as configured)
  bool reverse_causal = false;  // force reverse-causal attention; not with
                                // causal
};

absl::Status RunStepDump(const StepDumpOptions& options);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_STEP_DUMP_H_
