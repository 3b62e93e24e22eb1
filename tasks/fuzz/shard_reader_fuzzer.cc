// Fuzz target: any bytes as a pre-training shard
// (tasks/pretraining_data/shard_format.h) for ShardReader, read to the end.
// The bytes go to an in-memory file, opened as /proc/self/fd/N.
//
// Invariants, each a CHECK:
//   * An error names the file; a record error also names the record index.
//   * An open shard's header re-encodes to exactly the bytes it was read
//     from, and the file holds exactly its records after it.
//   * Every record read is a well-formed instance for the header's layout
//     (lengths, id ranges, segment ids 0...0 1...1, ascending positions
//     inside the tokens, a 0/1 label) and encodes back to exactly its bytes:
//     nothing a record holds is lost or invented by decoding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/fuzz/memory_file.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/pretraining_data/training_instance.h"

namespace bertlab {
namespace {

void CheckInstance(const RecordLayout& layout, int vocab_size,
                   const TrainingInstance& instance) {
  const int tokens = instance.num_tokens();
  CHECK_LE(tokens, layout.max_seq_length);
  CHECK_EQ(instance.segment_ids.size(), instance.input_ids.size());
  bool in_b = false;
  for (int i = 0; i < tokens; ++i) {
    CHECK_GE(instance.input_ids[i], 0);
    CHECK_LT(instance.input_ids[i], vocab_size);
    CHECK(instance.segment_ids[i] == 0 || instance.segment_ids[i] == 1);
    if (instance.segment_ids[i] == 1) in_b = true;
    CHECK(!in_b || instance.segment_ids[i] == 1)
        << "segment ids not 0...0 1...1";
  }
  CHECK_EQ(instance.masked_lm_positions.size(), instance.masked_lm_ids.size());
  CHECK_LE(static_cast<int>(instance.masked_lm_positions.size()),
           layout.max_predictions_per_seq);
  int previous = -1;
  for (size_t i = 0; i < instance.masked_lm_positions.size(); ++i) {
    CHECK_GT(instance.masked_lm_positions[i], previous);
    CHECK_LT(instance.masked_lm_positions[i], tokens);
    previous = instance.masked_lm_positions[i];
    CHECK_GE(instance.masked_lm_ids[i], 0);
    CHECK_LT(instance.masked_lm_ids[i], vocab_size);
  }
  CHECK(instance.next_sentence_label == 0 || instance.next_sentence_label == 1);
}

void ReadShard(const MemoryFile& file, absl::string_view bytes) {
  absl::StatusOr<std::unique_ptr<ShardReader>> reader =
      ShardReader::Open(file.path());
  if (!reader.ok()) {
    CHECK(absl::StrContains(reader.status().message(), file.path()))
        << reader.status();
    return;
  }
  const ShardHeader& header = (*reader)->header();
  const std::string header_bytes = EncodeShardHeader(header);
  CHECK(absl::StartsWith(bytes, header_bytes)) << "the header does not "
                                                  "re-encode to its bytes";
  const RecordLayout layout = header.layout();
  const int64_t record_bytes = layout.record_bytes();
  CHECK_EQ(static_cast<int64_t>(bytes.size()),
           static_cast<int64_t>(header_bytes.size()) +
               static_cast<int64_t>(header.instance_count) * record_bytes);
  TrainingInstance instance;
  std::string encoded(static_cast<size_t>(record_bytes), '\0');
  for (uint64_t index = 0;; ++index) {
    absl::StatusOr<bool> more = (*reader)->NextInstance(&instance);
    if (!more.ok()) {
      CHECK(absl::StrContains(more.status().message(), file.path()));
      CHECK(absl::StrContains(more.status().message(),
                              absl::StrCat("record ", index)))
          << more.status();
      return;
    }
    if (!*more) {
      CHECK_EQ(index, header.instance_count);
      return;
    }
    CheckInstance(layout, header.vocab_size, instance);
    EncodeRecord(layout, instance, encoded.data());
    const absl::string_view original = bytes.substr(
        header_bytes.size() + index * static_cast<uint64_t>(record_bytes),
        static_cast<size_t>(record_bytes));
    CHECK(original == encoded)
        << "record " << index << " does not encode back to its bytes";
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bertlab::MemoryFile* const file =
      new bertlab::MemoryFile("shard_fuzz_input");
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  file->Set(bytes);
  bertlab::ReadShard(*file, bytes);
  return 0;
}
