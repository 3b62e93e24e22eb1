// Pre-training shards: binary files of fixed-size instance records behind a
// header that carries the contract of the data (STYLE.md rule 12).
//
// A data set is a directory of shard-00000-of-00012.blshard ...; every file
// stands alone (its own header). All integers are little-endian.
//
// Header (header_bytes long; the records start right after it):
//   offset size
//    0      8   magic "BLSHARD1"
//    8      4   format_version (u32), kShardFormatVersion
//   12      4   header_bytes (u32): 64 + config_text_bytes, rounded up to 8
//   16      8   header_checksum (u64): FNV-1a 64 of the header_bytes bytes of
//               the header with this field set to 0
//   24      8   vocab_hash (u64): Vocab::content_hash() of the vocabulary
//   32      4   vocab_size (u32)
//   36      4   id_bytes (u32): 2 when vocab_size <= 65536, else 4
//   40      4   record_bytes (u32)
//   44      4   shard_index (u32)
//   48      8   instance_count (u64)
//   56      4   config_text_bytes (u32)
//   60      4   reserved, 0
//   64      -   config text: InstanceConfigToText() followed by the
//               tokenizer lines (tokenizer_lower_case: true, ...); zero
//               padding up to header_bytes
//
// Record (record_bytes = 16 + L * id_bytes + P * 2 + P * id_bytes, with
// L = max_seq_length and P = max_predictions_per_seq of the config; 352
// bytes for L = 128, P = 20 with a BERT vocabulary):
//    0  u16  num_tokens: the input mask is 1 on [0, num_tokens)
//    2  u16  segment_b_start: segment ids are 0 on [0, segment_b_start) and
//            1 on [segment_b_start, num_tokens) (BERT's segment ids always
//            have this shape, so one number stores them exactly);
//            num_tokens when there is no B
//    4  u16  num_predictions: masked-LM weights are 1 on the first
//            num_predictions slots and 0 on the rest
//    6  u8   next_sentence_label: 0 = IsNext, 1 = random next
//    7  u8   reserved, 0
//    8  u64  record_checksum: FNV-1a 64 of the record's bytes [0, 8) then
//            [16, record_bytes) (version 2: a flipped byte, e.g. a token id
//            that is still inside the vocabulary, is refused, not trained on)
//   16       input_ids: L ids (id_bytes each), zero after num_tokens
//    ..      masked_lm_positions: P u16, ascending, zero after
//            num_predictions
//    ..      masked_lm_ids: P ids (id_bytes each), zero after num_predictions
// A record holds exactly what google-research/bert writes into its
// tf.train.Example (input_ids, input_mask, segment_ids, masked_lm_positions,
// masked_lm_ids, masked_lm_weights, next_sentence_labels), with the masks
// and weights implied by the counts. 16-bit ids halve the size of the
// records for every BERT vocabulary (30522 and 28996 tokens).
#ifndef BERTLAB_TASKS_PRETRAINING_DATA_SHARD_FORMAT_H_
#define BERTLAB_TASKS_PRETRAINING_DATA_SHARD_FORMAT_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/full_tokenizer.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/training_instance.h"
#include "tasks/unicode_text.h"

namespace bertlab {

inline constexpr char kShardMagic[] = "BLSHARD1";  // 8 bytes, no terminator
inline constexpr uint32_t kShardFormatVersion = 2;
inline constexpr int kShardFixedHeaderBytes = 64;
inline constexpr char kShardExtension[] = ".blshard";

// The tokenizer settings that decide which ids a text becomes.
struct TokenizerSettings {
  bool lower_case = true;
  ControlCategories control_categories = ControlCategories::kAllOther;
  int max_input_chars_per_word = 100;

  bool operator==(const TokenizerSettings& other) const {
    return lower_case == other.lower_case &&
           control_categories == other.control_categories &&
           max_input_chars_per_word == other.max_input_chars_per_word;
  }
};

TokenizerSettings TokenizerSettingsOf(const FullTokenizerOptions& options);
// "tokenizer_lower_case: true\n..." lines.
std::string TokenizerSettingsToText(const TokenizerSettings& settings);

// The shape of one record.
struct RecordLayout {
  int max_seq_length = 0;
  int max_predictions_per_seq = 0;
  int id_bytes = 2;

  static RecordLayout For(const InstanceConfig& config, int vocab_size);
  int64_t record_bytes() const {
    return 16 + int64_t{max_seq_length} * id_bytes +
           int64_t{max_predictions_per_seq} * (2 + id_bytes);
  }
};

// Writes `instance` as one record of `layout` into out[0, record_bytes).
// CHECKs that it fits the layout (lengths, ids, segment-id shape).
void EncodeRecord(const RecordLayout& layout, const TrainingInstance& instance,
                  char* out);
// Recomputes the record's checksum (EncodeRecord does it; for tools and
// tests that edit a record's fields).
void SealRecord(const RecordLayout& layout, char* record);
// Reads one record; a record that breaks the format (a checksum that does
// not match, a count beyond the layout, an id >= vocab_size, unsorted
// positions, non-zero padding) is a DataLoss error saying what is wrong.
absl::Status DecodeRecord(const RecordLayout& layout, int vocab_size,
                          const char* record, TrainingInstance* instance);

struct ShardHeader {
  uint32_t format_version = kShardFormatVersion;
  InstanceConfig config;
  TokenizerSettings tokenizer;
  uint64_t vocab_hash = 0;
  int vocab_size = 0;
  int shard_index = 0;
  uint64_t instance_count = 0;

  RecordLayout layout() const { return RecordLayout::For(config, vocab_size); }
};

// The header bytes (header_bytes long, checksum filled in).
std::string EncodeShardHeader(const ShardHeader& header);

// Where instances go: the builder hands over encoded records in order.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  // `record` is exactly record_bytes long.
  virtual absl::Status AddRecord(absl::string_view record) = 0;
};

struct ShardWriterOptions {
  // Created (one level) when missing; must not already hold shards.
  std::string output_dir;
  // A new shard starts after this many instances.
  int64_t instances_per_shard = 100000;
};

// Writes records into shards of instances_per_shard instances. A shard is
// kept in memory until it is full, then written atomically (common/file.h)
// under a hidden name (.shard-00003.inprogress); Finish() renames all of
// them to shard-00003-of-NNNNN.blshard, so the final names appear only once
// every instance is on disk and a crashed run leaves no file that looks
// complete.
class ShardWriter : public RecordSink {
 public:
  // `header` gives everything but shard_index and instance_count.
  static absl::StatusOr<std::unique_ptr<ShardWriter>> Create(
      const ShardHeader& header, ShardWriterOptions options);

  absl::Status AddRecord(absl::string_view record) override;
  absl::Status AddInstance(const TrainingInstance& instance);

  // Writes the last shard (a data set without instances gets one empty
  // shard), renames every shard to its final name and returns the paths in
  // order. No records may be added afterwards.
  absl::StatusOr<std::vector<std::string>> Finish();

  int64_t instances_written() const { return instances_written_; }
  const RecordLayout& layout() const { return layout_; }

 private:
  ShardWriter(const ShardHeader& header, ShardWriterOptions options);
  absl::Status FlushShard();

  ShardHeader header_;
  ShardWriterOptions options_;
  RecordLayout layout_;
  std::string pending_records_;
  int64_t pending_count_ = 0;
  int64_t instances_written_ = 0;
  std::vector<std::string> in_progress_paths_;
  bool finished_ = false;
};

// The final file name of shard `index` of `num_shards`.
std::string ShardFileName(int index, int num_shards);

// The shards of a data set directory in order; an error when there are none,
// when names disagree on the count, or when one is missing.
absl::StatusOr<std::vector<std::string>> ListShards(
    const std::string& directory);

// What a consumer requires of a shard; unset fields are not checked.
struct ShardExpectations {
  std::optional<uint64_t> vocab_hash;
  std::optional<int> vocab_size;
  // Every field must match.
  std::optional<InstanceConfig> config;
  // Or just the ones that shape a batch.
  std::optional<LanguageModel> objective;
  std::optional<int> max_seq_length;
  std::optional<int> max_predictions_per_seq;
  std::optional<TokenizerSettings> tokenizer;
};

// Streams the records of one shard. Open() reads and checks the header: a
// file too short for its header or its records, a bad magic, another format
// version, a bad checksum or a header that contradicts itself is refused with
// a message naming the file; so is any mismatch with `expectations`, with
// both values ("vocabulary hash 1a89... in shard X does not match the
// expected 829a...").
class ShardReader {
 public:
  static absl::StatusOr<std::unique_ptr<ShardReader>> Open(
      const std::string& path, const ShardExpectations& expectations = {});
  ~ShardReader();

  const ShardHeader& header() const { return header_; }
  const std::string& path() const { return path_; }

  // The next instance, or false after the last one. A corrupt record is a
  // DataLoss error naming the file and the record index.
  absl::StatusOr<bool> NextInstance(TrainingInstance* instance);

 private:
  ShardReader(std::string path, std::FILE* file, ShardHeader header);

  std::string path_;
  std::FILE* file_;
  ShardHeader header_;
  RecordLayout layout_;
  std::string record_buffer_;
  uint64_t next_index_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_PRETRAINING_DATA_SHARD_FORMAT_H_
