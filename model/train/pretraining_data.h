// What the pre-training loop reads: the shards of the text pipeline
// (tasks/pretraining_data/shard_format.h) with random access, a
// deterministic per-epoch shuffle, and batches in the shapes the model takes.
//
// Random access. ShardDataset opens every shard of one or more data-set
// directories (ShardReader::Open checks each header, the file size and the
// consumer's expectations), memory-maps the files and decodes record i on
// demand with DecodeRecord, so a data set need not fit in memory and a
// corrupt record is a DataLoss error naming the file and the record. The
// instances of all shards are numbered in directory order, then shard order,
// then file order.
//
// Order. Epoch e visits the instances of a range [begin, end) in the order of
// a Fisher-Yates permutation drawn from Philox stream
// (shuffle_seed, step = e, tensor_id): position i of the walk (i = n-1 down
// to 1) swaps with j = floor(r * (i + 1) / 2^64), r the 64 bits of elements
// 2i and 2i+1 of the stream. The order depends only on (seed, tensor id,
// epoch, n), so a data position (epoch, index within the epoch) is all a
// checkpoint needs to continue the same sequence of batches.
//
// Batches (PretrainingBatch), fixed shape (B, T) with T = max_seq_length, so
// the step's buffers are planned once; padding has id 0, segment 0 and
// attention mask 0:
//   masked LM       positions b*T + masked_lm_positions, labels
//                   masked_lm_ids: exactly the instance's predictions, none
//                   padded (the reference's masked_lm_weights 0 slots carry
//                   no loss, so they are simply left out); next-sentence
//                   labels when the run trains NSP, else none (No NSP).
//   left-to-right   positions b*T + t and labels input_ids[t + 1] for
//                   t in [0, num_tokens - 2]: every real position predicts
//                   the next token ([CLS] predicts the first word, the last
//                   word predicts [SEP]); the final [SEP] and the padding
//                   predict nothing and are left out rather than given
//                   kIgnoreLabel, which saves their (V-wide) logits.
//   right-to-left   the mirror: positions b*T + t and labels input_ids[t - 1]
//                   for t in [1, num_tokens - 1] (the final [SEP] predicts
//                   the last word, the first word predicts [CLS]); [CLS] and
//                   the padding predict nothing.
#ifndef BERTLAB_MODEL_TRAIN_PRETRAINING_DATA_H_
#define BERTLAB_MODEL_TRAIN_PRETRAINING_DATA_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/bert/encoder.h"
#include "model/heads/pretraining_heads.h"
#include "tasks/pretraining_data/language_model.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/pretraining_data/training_instance.h"

namespace bertlab {

class ShardDataset {
 public:
  // Opens the shards of every directory (ListShards) in order. Each shard
  // must meet `expectations`, and every shard must agree with the first on
  // the instance config, the vocabulary (hash and size) and the tokenizer
  // settings. Errors name the file and both values.
  static absl::StatusOr<std::unique_ptr<ShardDataset>> Open(
      const std::vector<std::string>& directories,
      const ShardExpectations& expectations);
  ~ShardDataset();
  ShardDataset(const ShardDataset&) = delete;
  ShardDataset& operator=(const ShardDataset&) = delete;

  // The first shard's header (instance_count is that shard's own).
  const ShardHeader& header() const { return header_; }
  int64_t size() const { return size_; }
  int num_shards() const { return static_cast<int>(shards_.size()); }
  // "N instances in K shards of DIR[, DIR2]".
  std::string Describe() const;

  // Decodes instance `index` (in [0, size())).
  absl::Status Get(int64_t index, TrainingInstance* instance) const;

 private:
  struct Shard {
    std::string path;
    void* mapping = nullptr;  // the whole file, read-only
    size_t mapping_bytes = 0;
    const char* records = nullptr;  // header_bytes into the mapping
    int64_t first_index = 0;        // of the data set
    int64_t count = 0;
  };
  ShardDataset() = default;

  ShardHeader header_;
  RecordLayout layout_;
  std::vector<std::string> directories_;
  std::vector<Shard> shards_;
  int64_t size_ = 0;
};

// Where a walk over a data set stands: `index` instances of epoch `epoch`
// have been handed out.
struct DataPosition {
  int64_t epoch = 0;
  int64_t index = 0;
  bool operator==(const DataPosition& other) const {
    return epoch == other.epoch && index == other.index;
  }
};

// The permutation of [0, n) for `epoch` described at the top of this file.
// n < 2^32.
std::vector<uint32_t> EpochPermutation(uint64_t shuffle_seed,
                                       uint32_t tensor_id, int64_t epoch,
                                       int64_t n);

// Hands out begin + EpochPermutation(...)[index] for index 0, 1, ... of epoch
// 0, then of epoch 1, and so on without end.
class InstanceOrder {
 public:
  // end - begin >= 1.
  InstanceOrder(int64_t begin, int64_t end, uint64_t shuffle_seed,
                uint32_t tensor_id, DataPosition start);

  int64_t Next();
  const DataPosition& position() const { return position_; }

 private:
  int64_t begin_;
  int64_t size_;
  uint64_t shuffle_seed_;
  uint32_t tensor_id_;
  DataPosition position_;
  std::vector<uint32_t> permutation_;  // of position_.epoch
};

// One (micro-)batch: B sequences padded to T, with the targets.
class PretrainingBatch {
 public:
  // max_predictions_per_seq: the shards' (masked LM; ignored for
  // left-to-right). next_sentence: keep the NSP labels (masked LM only).
  PretrainingBatch(LanguageModel objective, bool next_sentence, int64_t batch,
                   int64_t seq_len, int64_t max_predictions_per_seq);

  // The most predictions a batch can hold: B * P (masked LM) or B * (T - 1)
  // (left-to-right, right-to-left); what PretrainingStepBuffers are planned
  // for.
  int64_t max_predictions() const { return max_predictions_; }
  int64_t batch() const { return batch_; }
  int64_t seq_len() const { return seq_len_; }

  void Clear();
  // Appends `instance` as the next sequence; CHECKs that it fits (a shard
  // checked against the batch's shape always does).
  void Add(const TrainingInstance& instance);
  // Fills the remaining rows with empty sequences (all padding, no
  // predictions, next-sentence label kIgnoreLabel): for a last, partial
  // evaluation batch.
  void PadWithEmptyRows();
  int64_t size() const { return size_; }
  bool full() const { return size_ == batch_; }

  // Valid while this object is unchanged; size() == batch() (CHECKed).
  EncoderBatch encoder_batch() const;
  PretrainingTargets targets() const;
  // Non-padding tokens of the batch.
  int64_t real_tokens() const { return real_tokens_; }
  const std::vector<int32_t>& labels() const { return labels_; }
  const std::vector<int32_t>& next_sentence_labels() const {
    return next_sentence_labels_;
  }

 private:
  LanguageModel objective_;
  bool next_sentence_;
  int64_t batch_;
  int64_t seq_len_;
  int64_t max_predictions_per_seq_;
  int64_t max_predictions_;
  int64_t size_ = 0;
  int64_t real_tokens_ = 0;
  std::vector<int32_t> input_ids_;             // (B, T)
  std::vector<int32_t> token_type_ids_;        // (B, T)
  std::vector<int32_t> attention_mask_;        // (B, T)
  std::vector<int32_t> positions_;             // (M) into B*T
  std::vector<int32_t> labels_;                // (M)
  std::vector<int32_t> next_sentence_labels_;  // (B) or empty
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_PRETRAINING_DATA_H_
