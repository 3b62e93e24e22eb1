#include "model/train/batch_validation.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

absl::Status Invalid(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

// values[i] in [0, limit), or == allowed (pass limit_name for the message).
// columns > 0: a (rows, columns) array, named as name[row][column].
absl::Status CheckIndices(const char* name, const int32_t* values,
                          int64_t count, int64_t columns, int64_t limit,
                          const std::string& limit_name, bool allow_ignore) {
  if (values == nullptr) return Invalid(absl::StrCat(name, " is null"));
  for (int64_t i = 0; i < count; ++i) {
    const int32_t value = values[i];
    if ((value >= 0 && value < limit) ||
        (allow_ignore && value == kIgnoreLabel)) {
      continue;
    }
    const std::string where = columns > 0 ? absl::StrCat(name, "[", i / columns,
                                                         "][", i % columns, "]")
                                          : absl::StrCat(name, "[", i, "]");
    return Invalid(absl::StrCat(
        where, " = ", value, " is outside [0, ", limit, ") (", limit_name, ")",
        allow_ignore ? absl::StrCat(" and is not ", kIgnoreLabel, " (ignored)")
                     : std::string()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateEncoderBatch(const BertConfig& config,
                                  const EncoderBatch& batch) {
  if (batch.batch <= 0 || batch.seq_len <= 0) {
    return Invalid(absl::StrCat("batch shape (", batch.batch, ", ",
                                batch.seq_len, ") must be positive"));
  }
  if (batch.seq_len > config.max_position_embeddings) {
    return Invalid(absl::StrCat("seq_len ", batch.seq_len,
                                " exceeds max_position_embeddings ",
                                config.max_position_embeddings));
  }
  const int64_t tokens = batch.batch * batch.seq_len;
  absl::Status status =
      CheckIndices("input_ids", batch.input_ids, tokens, batch.seq_len,
                   config.vocab_size, "vocab_size", false);
  if (!status.ok()) return status;
  status = CheckIndices("token_type_ids", batch.token_type_ids, tokens,
                        batch.seq_len, config.type_vocab_size,
                        "type_vocab_size", false);
  if (!status.ok()) return status;
  if (batch.attention_mask != nullptr) {
    status = CheckIndices("attention_mask", batch.attention_mask, tokens,
                          batch.seq_len, 2, "1 = token, 0 = padding", false);
    if (!status.ok()) return status;
  }
  if (batch.pooled_positions != nullptr) {
    status = CheckIndices("pooled_positions", batch.pooled_positions,
                          batch.batch, 0, batch.seq_len, "seq_len", false);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ValidatePretrainingTargets(const BertConfig& config,
                                        bool next_sentence_head,
                                        const PretrainingTargets& targets,
                                        int64_t batch, int64_t seq_len,
                                        int64_t max_predictions) {
  const int64_t m = targets.num_predictions;
  if (m < 0 || m > max_predictions) {
    return Invalid(absl::StrCat("num_predictions ", m, " is outside [0, ",
                                max_predictions,
                                "] (the buffers' max_predictions)"));
  }
  if (m > 0) {
    absl::Status status =
        CheckIndices("positions", targets.positions, m, 0, batch * seq_len,
                     absl::StrCat("B*T = ", batch, "*", seq_len), false);
    if (!status.ok()) return status;
    status = CheckIndices("labels", targets.labels, m, 0, config.vocab_size,
                          "vocab_size", true);
    if (!status.ok()) return status;
  }
  if (targets.next_sentence_labels != nullptr) {
    if (!next_sentence_head) {
      return Invalid(
          "next_sentence_labels given, but the model has no next-sentence "
          "head (No NSP / LTR)");
    }
    return CheckIndices("next_sentence_labels", targets.next_sentence_labels,
                        batch, 0, 2, "0 = IsNext, 1 = NotNext", true);
  }
  return absl::OkStatus();
}

absl::Status ValidateSpanTargets(const SpanTargets& targets, int64_t batch) {
  if ((targets.start_positions == nullptr) !=
      (targets.end_positions == nullptr)) {
    return Invalid(
        "span targets need both start_positions and end_positions, or "
        "neither");
  }
  if (targets.start_positions == nullptr) return absl::OkStatus();
  for (const auto& [name, positions] :
       {std::pair<const char*, const int32_t*>{"start_positions",
                                               targets.start_positions},
        {"end_positions", targets.end_positions}}) {
    for (int64_t b = 0; b < batch; ++b) {
      if (positions[b] >= 0 || positions[b] == kIgnoreLabel) continue;
      return Invalid(absl::StrCat(name, "[", b, "] = ", positions[b],
                                  " is negative: use 0 for no answer or ",
                                  kIgnoreLabel, " to ignore the sequence"));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status ValidateLabels(const char* name, const int32_t* labels,
                            int64_t count, int64_t classes) {
  for (int64_t i = 0; i < count; ++i) {
    if (labels[i] == kIgnoreLabel || (labels[i] >= 0 && labels[i] < classes)) {
      continue;
    }
    return Invalid(absl::StrCat(name, "[", i, "] = ", labels[i],
                                " is outside [0, ", classes, ") and not ",
                                kIgnoreLabel, " (ignored)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateFinetuneTargets(const FinetuneModelOptions& options,
                                     const FinetuneTargets& targets,
                                     int64_t rows) {
  switch (options.head) {
    case FinetuneHead::kSpan:
      return ValidateSpanTargets(
          SpanTargets{targets.start_positions, targets.end_positions}, rows);
    case FinetuneHead::kMultipleChoice:
      if (options.num_choices < 1 || rows % options.num_choices != 0) {
        return Invalid(absl::StrCat(rows, " rows are not whole examples of ",
                                    options.num_choices, " choices"));
      }
      if (targets.labels == nullptr) return absl::OkStatus();
      return ValidateLabels("labels", targets.labels,
                            rows / options.num_choices, options.num_choices);
    case FinetuneHead::kClassifier:
      if (options.num_labels != 1) {
        if (targets.labels == nullptr) return absl::OkStatus();
        return ValidateLabels("labels", targets.labels, rows,
                              options.num_labels);
      }
      if (targets.scores == nullptr) return absl::OkStatus();
      for (int64_t i = 0; i < rows; ++i) {
        if (std::isfinite(targets.scores[i])) continue;
        return Invalid(absl::StrCat("scores[", i, "] = ", targets.scores[i],
                                    " is not finite"));
      }
      return absl::OkStatus();
  }
  return Invalid("unknown fine-tuning head");
}

}  // namespace bertlab
