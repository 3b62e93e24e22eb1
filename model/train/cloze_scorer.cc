#include "model/train/cloze_scorer.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "model/bert/checkpoint.h"
#include "model/bert_for_pretraining.h"

namespace bertlab {
namespace {

// One prediction to read off a forward pass: the log-probability of
// `label` at position `position` of its row adds to scores[item][candidate].
struct Target {
  int32_t position = 0;
  int32_t label = 0;
  int item = 0;
  int candidate = 0;
};

// One sequence of a forward pass and what to read from it.
struct Row {
  std::vector<int32_t> ids;
  std::vector<Target> targets;
};

// `ids` with the targets of a whole-sequence likelihood: every token
// predicted from its left (causal) or right (reverse-causal) neighbours,
// but for the tokens whose context does not reach the blank at `blank`
// (left of it for causal, right of it for reverse-causal): their terms are
// the same for every candidate of the item, so they are not computed.
Row LikelihoodRow(std::vector<int32_t> ids, int32_t blank, bool left_to_right,
                  int item, int candidate) {
  Row row;
  const int32_t n = static_cast<int32_t>(ids.size());
  for (int32_t t = 0; t + 1 < n; ++t) {
    // Position `at` predicts ids[t + 1] (causal) or ids[t] (reverse).
    if (left_to_right ? t + 1 < blank : t > blank) continue;
    const int32_t at = left_to_right ? t : t + 1;
    const int32_t label = left_to_right ? ids[t + 1] : ids[t];
    row.targets.push_back({at, label, item, candidate});
  }
  row.ids = std::move(ids);
  return row;
}

// The rows that score `items` (see the header).
absl::StatusOr<std::vector<Row>> MakeRows(const BertConfig& config,
                                          const std::vector<ClozeItem>& items,
                                          const ClozeScorerOptions& options) {
  const bool left_only = options.context == ClozeContext::kLeftOnly;
  if (left_only && config.attention_mode == AttentionMode::kReverseCausal) {
    return absl::InvalidArgumentError(
        "cloze with the left context only is not defined for a right-to-left "
        "model: it reads the blank from the right");
  }
  std::vector<Row> rows;
  for (int i = 0; i < static_cast<int>(items.size()); ++i) {
    const ClozeItem& item = items[i];
    std::vector<int32_t> head = {options.cls_id};
    head.insert(head.end(), item.left.begin(), item.left.end());
    const int32_t blank = static_cast<int32_t>(head.size());
    if (config.attention_mode == AttentionMode::kBidirectional) {
      Row row;
      row.ids = head;
      row.ids.push_back(options.mask_id);
      if (!left_only) {
        row.ids.insert(row.ids.end(), item.right.begin(), item.right.end());
      }
      row.ids.push_back(options.sep_id);
      for (int c = 0; c < static_cast<int>(item.candidates.size()); ++c) {
        row.targets.push_back({blank, item.candidates[c], i, c});
      }
      rows.push_back(std::move(row));
    } else if (left_only) {
      // Causal: position blank - 1 sees [CLS] left only.
      Row row;
      row.ids = head;
      for (int c = 0; c < static_cast<int>(item.candidates.size()); ++c) {
        row.targets.push_back({blank - 1, item.candidates[c], i, c});
      }
      rows.push_back(std::move(row));
    } else {
      for (int c = 0; c < static_cast<int>(item.candidates.size()); ++c) {
        std::vector<int32_t> ids = head;
        ids.push_back(item.candidates[c]);
        ids.insert(ids.end(), item.right.begin(), item.right.end());
        ids.push_back(options.sep_id);
        rows.push_back(LikelihoodRow(
            std::move(ids), blank,
            config.attention_mode == AttentionMode::kCausal, i, c));
      }
    }
  }
  for (const Row& row : rows) {
    if (static_cast<int64_t>(row.ids.size()) > config.max_position_embeddings) {
      return absl::InvalidArgumentError(
          absl::StrCat("a cloze sequence of ", row.ids.size(),
                       " tokens exceeds the model's max_position_embeddings (",
                       config.max_position_embeddings, ")"));
    }
    for (int32_t id : row.ids) {
      if (id < 0 || id >= config.vocab_size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "token id ", id, " is outside the model's vocabulary of ",
            config.vocab_size, " (is a special token id unset?)"));
      }
    }
  }
  return rows;
}

}  // namespace

absl::StatusOr<ClozeScores> ScoreClozeItems(const BertConfig& config,
                                            const std::vector<float>& params,
                                            const std::vector<ClozeItem>& items,
                                            const ClozeScorerOptions& options) {
  if (options.batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ClozeScorerOptions.batch_size = ", options.batch_size,
                     "; it must be at least 1"));
  }
  const BertForPretraining model(config, /*next_sentence=*/false);
  if (static_cast<int64_t>(params.size()) != model.layout().total_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cloze scoring: ", params.size(), " parameters for a layout of ",
        model.layout().total_size()));
  }
  ASSIGN_OR_RETURN(const std::vector<Row> rows,
                   MakeRows(config, items, options));
  ClozeScores scores(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    scores[i].assign(items[i].candidates.size(), 0.0);
  }
  const int64_t vocab = config.vocab_size;
  for (size_t first = 0; first < rows.size(); first += options.batch_size) {
    const size_t last =
        std::min(rows.size(), first + static_cast<size_t>(options.batch_size));
    const int64_t batch = static_cast<int64_t>(last - first);
    int64_t seq_len = 0;
    for (size_t r = first; r < last; ++r) {
      seq_len = std::max<int64_t>(seq_len, rows[r].ids.size());
    }
    std::vector<int32_t> ids(batch * seq_len, options.pad_id);
    std::vector<int32_t> types(batch * seq_len, 0);
    std::vector<int32_t> mask(batch * seq_len, 0);
    std::vector<int32_t> positions, labels;
    std::vector<const Target*> read;
    for (size_t r = first; r < last; ++r) {
      const int64_t b = static_cast<int64_t>(r - first);
      std::copy(rows[r].ids.begin(), rows[r].ids.end(),
                ids.begin() + b * seq_len);
      std::fill_n(mask.begin() + b * seq_len, rows[r].ids.size(), 1);
      for (const Target& target : rows[r].targets) {
        positions.push_back(static_cast<int32_t>(b * seq_len) +
                            target.position);
        labels.push_back(target.label);
        read.push_back(&target);
      }
    }
    EncoderBatch encoder_batch;
    encoder_batch.input_ids = ids.data();
    encoder_batch.token_type_ids = types.data();
    encoder_batch.attention_mask = mask.data();
    encoder_batch.batch = batch;
    encoder_batch.seq_len = seq_len;
    PretrainingTargets targets;
    targets.positions = positions.data();
    targets.labels = labels.data();
    targets.num_predictions = static_cast<int64_t>(positions.size());
    PretrainingStepBuffers<float> buffers(config, batch, seq_len,
                                          targets.num_predictions);
    PretrainingForward(model, params.data(), encoder_batch, targets,
                       DropoutSettings(), &buffers);
    const float* logits = buffers.heads.prediction_logits();
    for (size_t m = 0; m < read.size(); ++m) {
      const float* row = logits + m * vocab;
      const float peak = *std::max_element(row, row + vocab);
      double sum = 0.0;
      for (int64_t v = 0; v < vocab; ++v) sum += std::exp(row[v] - peak);
      scores[read[m]->item][read[m]->candidate] +=
          static_cast<double>(row[labels[m]]) - peak - std::log(sum);
    }
  }
  return scores;
}

absl::StatusOr<ClozeScores> ScoreClozeItems(const std::string& checkpoint_dir,
                                            const std::vector<ClozeItem>& items,
                                            const ClozeScorerOptions& options) {
  ASSIGN_OR_RETURN(const BertConfig config,
                   ReadCheckpointConfig(checkpoint_dir));
  const BertForPretraining model(config, /*next_sentence=*/false);
  std::vector<float> params(model.layout().total_size());
  CheckpointLoadOptions load;
  load.ignore_unexpected_prefixes = {"cls.seq_relationship"};
  RETURN_IF_ERROR(LoadCheckpointDirectory(checkpoint_dir, model.layout(), load,
                                          params.data())
                      .status());
  return ScoreClozeItems(config, params, items, options);
}

absl::StatusOr<ClozeScores> AddScores(const ClozeScores& a,
                                      const ClozeScores& b) {
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) {
    same = a[i].size() == b[i].size();
  }
  if (!same) {
    return absl::InvalidArgumentError(
        "cloze scores of different items cannot be added");
  }
  ClozeScores sum = a;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t c = 0; c < a[i].size(); ++c) sum[i][c] += b[i][c];
  }
  return sum;
}

std::vector<int> ClozeChoices(const ClozeScores& scores) {
  std::vector<int> choices;
  for (const std::vector<double>& item : scores) {
    choices.push_back(static_cast<int>(
        std::max_element(item.begin(), item.end()) - item.begin()));
  }
  return choices;
}

}  // namespace bertlab
