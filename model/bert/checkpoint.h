// Checkpoint I/O: a ParameterLayout's flat float buffer to and from a
// safetensors file (model/safetensors.h), and a checkpoint directory laid out
// as Hugging Face lays out a model:
//
//   <dir>/config.json         BertConfig (model/bert/config.h)
//   <dir>/model.safetensors   every layout tensor, F32, under its HF name,
//                             metadata {"format": "pt"}
//
// Loading matches the file's tensors to the layout by name. The names of the
// files in the wild differ from the layout's in known ways (docs/PAPER.md
// section 4), which the loader accepts:
//
//  1. Old LayerNorm spellings: "<...>.LayerNorm.gamma" / "<...>.LayerNorm.beta"
//     load into "<...>.LayerNorm.weight" / "<...>.LayerNorm.bias" (the Hub's
//     bert-base-uncased uses them).
//  2. No "bert." prefix: a name that is not in the layout loads into
//     "bert." + name when that is (files of HF's BertModel, e.g.
//     "encoder.layer.0.output.dense.weight").
//  3. "bert.embeddings.position_ids" (an int64 buffer in old files; also
//     without the prefix) is ignored.
//  4. The tied MLM decoder, when the layout has the MLM head
//     ("cls.predictions.bias") but no decoder tensors of its own: the decoder
//     weight is the word-embedding table, so
//     - "cls.predictions.decoder.weight" may be absent; if present it must
//       have the word embeddings' shape [vocab, hidden] and is not loaded;
//     - "cls.predictions.decoder.bias" loads into "cls.predictions.bias" when
//       the file has no "cls.predictions.bias", and is ignored otherwise.
//  5. A name containing '/' is a Google TF variable: it is mapped by
//     MapTfVariable (model/bert/tf_names.h) and kernels are transposed from
//     TF's [in, out] to the layout's [out, in]; optimizer slots (.../adam_m,
//     .../adam_v) and "global_step" (which has no '/') are ignored. A TF name
//     outside the map is an unexpected tensor. TF's own bundle files
//     (bert_model.ckpt.*) are not read; convert them to safetensors keeping
//     the variable names.
//
// F32, F16 and BF16 tensors load (converted to float exactly); an I32 / I64
// tensor where a parameter is expected is an error. Shapes must match
// exactly.
//
// Everything is checked before any value is written: on error `values` is
// untouched and the one InvalidArgument message names the file and lists, per
// category, every missing tensor (not allowed by the options), every
// unexpected tensor (not ignored by the options), every shape mismatch
// (name, expected shape, file shape), every tensor of a non-float dtype,
// every tensor holding a NaN or an infinity (its first such element, found
// on the raw bits) and every pair of tensors that load into the same
// parameter (e.g. both
// "x.LayerNorm.gamma" and "x.LayerNorm.weight"); each list is capped at 20
// names plus "and N more".
#ifndef BERTLAB_MODEL_BERT_CHECKPOINT_H_
#define BERTLAB_MODEL_BERT_CHECKPOINT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/bert/config.h"
#include "model/bert/parameter_layout.h"
#include "model/safetensors.h"

namespace bertlab {

// The two files of a checkpoint directory.
inline constexpr char kConfigFileName[] = "config.json";
inline constexpr char kWeightsFileName[] = "model.safetensors";

struct CheckpointLoadOptions {
  // Layout parameters whose names start with one of these may be absent from
  // the file; they keep the values already in the buffer (e.g. {"classifier."}
  // when fine-tuning a new head).
  std::vector<std::string> allow_missing_prefixes;
  // File tensors whose names (as stored, or after the renames above) start
  // with one of these are skipped when the layout has no place for them
  // (e.g. {"cls."} when fine-tuning from a pre-training checkpoint).
  std::vector<std::string> ignore_unexpected_prefixes;
};

struct CheckpointLoadReport {
  std::vector<std::string> loaded;            // layout names, layout order
  std::vector<std::string> left_initialised;  // layout names, layout order
  std::vector<std::string> ignored;           // file names, sorted
};

// Fills `values` (layout.total_size() floats) from the tensors of `file`,
// matched by name under the rules above. With `values` null it only checks
// (everything above), e.g. before allocating the buffer.
absl::StatusOr<CheckpointLoadReport> LoadParameters(
    const SafetensorsFile& file, const ParameterLayout& layout,
    const CheckpointLoadOptions& options, float* values);

// Writes every layout tensor as F32 under its name, with the metadata
// {"format": "pt"} (what HF's loader expects) plus `metadata`, atomically. A
// `metadata` entry "format" other than "pt" is an InvalidArgument.
absl::Status SaveParameters(
    const std::string& path, const ParameterLayout& layout, const float* values,
    const std::map<std::string, std::string>& metadata = {});

// Writes dir/config.json (ConfigToJson) and dir/model.safetensors
// (SaveParameters), each atomically, creating `dir` and its parents if needed.
absl::Status SaveCheckpointDirectory(const std::string& dir,
                                     const BertConfig& config,
                                     const ParameterLayout& layout,
                                     const float* values);

// dir/config.json, parsed and validated by ParseConfigJson.
absl::StatusOr<BertConfig> ReadCheckpointConfig(const std::string& dir);

// LoadParameters from dir/model.safetensors.
absl::StatusOr<CheckpointLoadReport> LoadCheckpointDirectory(
    const std::string& dir, const ParameterLayout& layout,
    const CheckpointLoadOptions& options, float* values);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_CHECKPOINT_H_
