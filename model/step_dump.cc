#include "model/step_dump.h"

#include <cstdint>
#include <exception>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "common/memory.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/bert_for_pretraining.h"
#include "model/safetensors.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::json;

// Reads key as a B x T integer matrix (rows == -1: any number of rows).
absl::Status ReadMatrix(const Json& json, absl::string_view source,
                        const char* key, int64_t* rows, int64_t* cols,
                        std::vector<int32_t>* out) {
  auto it = json.find(key);
  if (it == json.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": missing key \"", key, "\""));
  }
  if (!it->is_array() || it->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": \"", key, "\" must be a non-empty array of rows"));
  }
  if (*rows >= 0 && static_cast<int64_t>(it->size()) != *rows) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": \"", key, "\" has ", it->size(),
                     " rows, \"input_ids\" has ", *rows));
  }
  *rows = it->size();
  out->clear();
  for (int64_t r = 0; r < *rows; ++r) {
    const Json& row = (*it)[r];
    if (!row.is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": \"", key, "\"[", r, "] must be an array of integers"));
    }
    if (*cols < 0) *cols = row.size();
    if (static_cast<int64_t>(row.size()) != *cols) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": \"", key, "\"[", r, "] has ", row.size(),
          " entries, expected ", *cols, " (rows must all be as long)"));
    }
    for (int64_t c = 0; c < *cols; ++c) {
      if (!row[c].is_number_integer()) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": \"", key, "\"[", r, "][", c,
                         "] must be an integer, got ", row[c].dump()));
      }
      const int64_t value = row[c].get<int64_t>();
      if (value < INT32_MIN || value > INT32_MAX) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": \"", key, "\"[", r, "][", c, "] = ", value,
                         " does not fit in 32 bits"));
      }
      out->push_back(static_cast<int32_t>(value));
    }
  }
  return absl::OkStatus();
}

// Reads key as a vector of `size` integers.
absl::Status ReadVector(const Json& json, absl::string_view source,
                        const char* key, int64_t size,
                        std::vector<int32_t>* out) {
  auto it = json.find(key);
  if (it == json.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": missing key \"", key, "\""));
  }
  if (!it->is_array() || static_cast<int64_t>(it->size()) != size) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": \"", key, "\" must be an array of ", size,
                     " integers (one per row of \"input_ids\")"));
  }
  out->clear();
  for (int64_t i = 0; i < size; ++i) {
    if (!(*it)[i].is_number_integer()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": \"", key, "\"[", i,
                       "] must be an integer, got ", (*it)[i].dump()));
    }
    const int64_t value = (*it)[i].get<int64_t>();
    if (value < INT32_MIN || value > INT32_MAX) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": \"", key, "\"[", i, "] = ", value,
                       " does not fit in 32 bits"));
    }
    out->push_back(static_cast<int32_t>(value));
  }
  return absl::OkStatus();
}

// cols == 0: a vector, indexed [i]; else a matrix, indexed [row][column].
absl::Status CheckRange(absl::string_view source, const char* key,
                        const std::vector<int32_t>& values, int64_t cols,
                        int64_t low, int64_t high, int32_t also_allowed) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == also_allowed) continue;
    if (values[i] < low || values[i] >= high) {
      const std::string index =
          cols == 0 ? absl::StrCat("[", i, "]")
                    : absl::StrCat("[", i / cols, "][", i % cols, "]");
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": \"", key, "\"", index, " = ", values[i],
                       " is outside [", low, ", ", high, ")"));
    }
  }
  return absl::OkStatus();
}

constexpr char kNextSentenceWeight[] = "cls.seq_relationship.weight";

std::string JoinPath(const std::string& dir, absl::string_view name) {
  return absl::StrCat(dir, "/", name);
}

// An upper estimate of the activations a training step keeps, in floats:
// per token and layer the attention scores and probabilities (T each per
// head) and some 20 vectors of width H or 4H; per token the logits over
// the vocabulary and their gradient.
double StepActivationFloats(const BertConfig& config, double batch,
                            double seq_len) {
  const double tokens = batch * seq_len;
  const double h = static_cast<double>(config.hidden_size);
  const double per_layer = 4.0 * config.num_attention_heads * seq_len +
                           20.0 * h + 4.0 * config.intermediate_size;
  return tokens * (static_cast<double>(config.num_hidden_layers) * per_layer +
                   3.0 * static_cast<double>(config.vocab_size));
}

}  // namespace

absl::StatusOr<StepDumpBatch> ParseStepDumpBatch(absl::string_view text,
                                                 absl::string_view source,
                                                 const BertConfig& config) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const std::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": malformed JSON: ", error.what()));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected a JSON object"));
  }
  StepDumpBatch batch;
  batch.batch = -1;
  batch.seq_len = -1;
  RETURN_IF_ERROR(ReadMatrix(json, source, "input_ids", &batch.batch,
                             &batch.seq_len, &batch.input_ids));
  RETURN_IF_ERROR(ReadMatrix(json, source, "token_type_ids", &batch.batch,
                             &batch.seq_len, &batch.token_type_ids));
  RETURN_IF_ERROR(ReadMatrix(json, source, "attention_mask", &batch.batch,
                             &batch.seq_len, &batch.attention_mask));
  RETURN_IF_ERROR(ReadMatrix(json, source, "masked_lm_labels", &batch.batch,
                             &batch.seq_len, &batch.masked_lm_labels));
  RETURN_IF_ERROR(ReadVector(json, source, "next_sentence_label", batch.batch,
                             &batch.next_sentence_label));
  if (batch.seq_len > config.max_position_embeddings) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": sequences of ", batch.seq_len,
                     " tokens are longer than max_position_embeddings (",
                     config.max_position_embeddings, ")"));
  }
  const int64_t cols = batch.seq_len;
  RETURN_IF_ERROR(CheckRange(source, "input_ids", batch.input_ids, cols, 0,
                             config.vocab_size, 0));
  RETURN_IF_ERROR(CheckRange(source, "token_type_ids", batch.token_type_ids,
                             cols, 0, config.type_vocab_size, 0));
  RETURN_IF_ERROR(CheckRange(source, "attention_mask", batch.attention_mask,
                             cols, 0, 2, 0));
  RETURN_IF_ERROR(CheckRange(source, "masked_lm_labels", batch.masked_lm_labels,
                             cols, 0, config.vocab_size, kIgnoreLabel));
  RETURN_IF_ERROR(CheckRange(source, "next_sentence_label",
                             batch.next_sentence_label, 0, 0, 2, 0));
  return batch;
}

absl::Status RunStepDump(const StepDumpOptions& options) {
  // A config.json with absurd sizes is refused here, before any allocation.
  ASSIGN_OR_RETURN(BertConfig config,
                   ReadCheckpointConfig(options.checkpoint_dir));
  if (options.causal && options.reverse_causal) {
    return absl::InvalidArgumentError(
        "--causal and --reverse_causal exclude each other: give one");
  }
  if (options.causal) config.attention_mode = AttentionMode::kCausal;
  if (options.reverse_causal) {
    config.attention_mode = AttentionMode::kReverseCausal;
  }
  ASSIGN_OR_RETURN(std::string batch_json,
                   ReadFileToString(options.batch_path));
  ASSIGN_OR_RETURN(StepDumpBatch batch,
                   ParseStepDumpBatch(batch_json, options.batch_path, config));

  // Memory-mapped: only the header is read until the values are loaded.
  ASSIGN_OR_RETURN(const SafetensorsFile file,
                   SafetensorsFile::Open(
                       JoinPath(options.checkpoint_dir, kWeightsFileName)));
  // A No-NSP checkpoint has no next-sentence head: the step is then the
  // masked LM alone, as that variant trains.
  const bool next_sentence = file.Find(kNextSentenceWeight) != nullptr;
  const BertForPretraining model(config, next_sentence);
  // Every shape, dtype and value is checked against the layout before
  // anything the size of the model is allocated.
  RETURN_IF_ERROR(LoadParameters(file, model.layout(), {}, nullptr).status());
  RETURN_IF_ERROR(CheckFitsInMemory(
      4.0 * (2.0 * static_cast<double>(model.layout().total_size()) +
             StepActivationFloats(config, static_cast<double>(batch.batch),
                                  static_cast<double>(batch.seq_len))),
      absl::StrCat("a step of ", model.layout().total_size(), " parameters on ",
                   batch.batch, " x ", batch.seq_len, " tokens")));
  std::vector<float> params(model.layout().total_size(), 0.0f);
  RETURN_IF_ERROR(
      LoadParameters(file, model.layout(), {}, params.data()).status());

  const int64_t positions_count = batch.batch * batch.seq_len;
  std::vector<int32_t> positions(positions_count);
  for (int64_t i = 0; i < positions_count; ++i) positions[i] = i;
  const EncoderBatch encoder_batch{
      batch.input_ids.data(), batch.token_type_ids.data(),
      batch.attention_mask.data(), batch.batch, batch.seq_len};
  const PretrainingTargets targets{
      positions.data(), batch.masked_lm_labels.data(), positions_count,
      next_sentence ? batch.next_sentence_label.data() : nullptr};
  PretrainingStepBuffers<float> buffers(config, batch.batch, batch.seq_len,
                                        positions_count);
  std::vector<float> grads(model.layout().total_size(), 0.0f);
  const float loss = PretrainingForwardBackward(
      model, params.data(), grads.data(), encoder_batch, targets, {}, &buffers);

  const int64_t b = batch.batch, t = batch.seq_len;
  const int64_t h = config.hidden_size, v = config.vocab_size;
  SafetensorsWriter writer;
  writer.SetMetadata("checkpoint", options.checkpoint_dir);
  writer.SetMetadata("batch", options.batch_path);
  writer.SetMetadata("attention_mode",
                     AttentionModeName(config.attention_mode));
  const float mlm_loss = buffers.heads.masked_lm_loss();
  const float nsp_loss = buffers.heads.next_sentence_loss();
  RETURN_IF_ERROR(writer.AddFloat32(
      "prediction_logits", {b, t, v},
      absl::MakeConstSpan(buffers.heads.prediction_logits(), b * t * v)));
  if (next_sentence) {
    RETURN_IF_ERROR(writer.AddFloat32(
        "seq_relationship_logits", {b, 2},
        absl::MakeConstSpan(buffers.heads.next_sentence_logits(), b * 2)));
  }
  RETURN_IF_ERROR(writer.AddFloat32("loss", {}, absl::MakeConstSpan(&loss, 1)));
  RETURN_IF_ERROR(writer.AddFloat32("masked_lm_loss", {},
                                    absl::MakeConstSpan(&mlm_loss, 1)));
  if (next_sentence) {
    RETURN_IF_ERROR(writer.AddFloat32("next_sentence_loss", {},
                                      absl::MakeConstSpan(&nsp_loss, 1)));
  }
  RETURN_IF_ERROR(writer.AddFloat32(
      "last_hidden_state", {b, t, h},
      absl::MakeConstSpan(buffers.encoder.sequence_output(), b * t * h)));
  RETURN_IF_ERROR(writer.AddFloat32(
      "pooled_output", {b, h},
      absl::MakeConstSpan(buffers.encoder.pooled_output(), b * h)));
  for (const ParameterInfo& info : model.layout().parameters()) {
    RETURN_IF_ERROR(writer.AddFloat32(
        "grad." + info.name, info.shape,
        absl::MakeConstSpan(grads.data() + info.offset, info.size)));
  }
  return writer.WriteFile(options.output_path);
}

}  // namespace bertlab
