// Test data for the pre-training loop: shards of synthetic instances of a
// tiny, repetitive language, written with the text pipeline's ShardWriter,
// and a tiny model config.
//
// The corpus: num_documents fixed documents of document_length random words
// (ids [5, vocab_size); 0-4 are [PAD] [UNK] [CLS] [SEP] [MASK]), read
// cyclically. An instance is a window of a random document at a random
// start, so the same text recurs over and over (a tiny, repetitive corpus
// that a tiny model learns in a few dozen steps). Masked-LM instances are
// [CLS] A [SEP] B [SEP] with B continuing A (label IsNext) or, with
// probability 1/2, a window of a random document (NotNext), and about 15% of
// the non-special tokens (at least 1, at most max_predictions_per_seq)
// replaced by [MASK]. Left-to-right instances are [CLS] text [SEP]. Lengths
// vary between instances. An instance draws from Philox stream (seed,
// instance index, 0).
#ifndef BERTLAB_MODEL_TRAIN_TEST_SHARDS_H_
#define BERTLAB_MODEL_TRAIN_TEST_SHARDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "model/bert/config.h"
#include "model/train/pretraining_data.h"
#include "tasks/pretraining_data/training_instance.h"

namespace bertlab {

struct TinyShardOptions {
  LanguageModel objective = LanguageModel::kMaskedLm;
  int64_t num_instances = 64;
  int max_seq_length = 16;
  int max_predictions_per_seq = 3;
  int vocab_size = 60;
  int num_documents = 2;
  int document_length = 8;
  // Masked LM: every instance max_seq_length tokens long (a throughput
  // benchmark's fixed shape), and the share of tokens masked.
  bool full_length = false;
  double masked_lm_prob = 0.15;
  // Written into the header (false: shards made for No NSP).
  bool next_sentence = true;
  int64_t instances_per_shard = 100000;
  uint64_t seed = 1;
};

inline constexpr int32_t kTinyClsId = 2;
inline constexpr int32_t kTinySepId = 3;
inline constexpr int32_t kTinyMaskId = 4;
inline constexpr int32_t kTinyFirstWordId = 5;

// Instance `index` of the data set.
TrainingInstance TinyInstance(const TinyShardOptions& options, int64_t index);

// Writes instances 0 .. num_instances - 1 as shards into `dir`.
absl::Status WriteTinyShards(const std::string& dir,
                             const TinyShardOptions& options);

// L1 H16 A2, intermediate 32, 64 positions; dropout stays at 0.1.
BertConfig TinyBertConfig(int64_t vocab_size, AttentionMode attention_mode);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_TRAIN_TEST_SHARDS_H_
