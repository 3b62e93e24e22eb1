#include "tasks/pretraining_data/shard_format.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/check.h"
#include "common/directory.h"
#include "common/file.h"
#include "common/fnv1a.h"
#include "common/status_macros.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

constexpr int kMagicBytes = 8;
// A header larger than this is corrupt (the config text is ~500 bytes).
constexpr uint32_t kMaxHeaderBytes = 1 << 20;
constexpr int kChecksumOffset = 16;
constexpr int kRecordFixedBytes = 16;
constexpr int kRecordChecksumOffset = 8;

void PutU16(uint32_t value, char* out) {
  out[0] = static_cast<char>(value & 0xff);
  out[1] = static_cast<char>((value >> 8) & 0xff);
}
void PutU32(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
void PutU64(uint64_t value, char* out) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}
uint32_t GetU16(const char* in) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  return uint32_t{bytes[0]} | (uint32_t{bytes[1]} << 8);
}
uint32_t GetU32(const char* in) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}
uint64_t GetU64(const char* in) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

void PutId(int id_bytes, uint32_t id, char* out) {
  if (id_bytes == 2) {
    PutU16(id, out);
  } else {
    PutU32(id, out);
  }
}
uint32_t GetId(int id_bytes, const char* in) {
  return id_bytes == 2 ? GetU16(in) : GetU32(in);
}

absl::string_view ControlCategoriesName(ControlCategories categories) {
  return categories == ControlCategories::kAllOther ? "all_other"
                                                    : "control_and_format";
}

// The header's checksum: FNV-1a 64 with the checksum field read as zeros.
uint64_t HeaderChecksum(absl::string_view header_bytes) {
  uint64_t hash = Fnv1a64(header_bytes.substr(0, kChecksumOffset));
  hash = Fnv1a64(absl::string_view("\0\0\0\0\0\0\0\0", 8), hash);
  return Fnv1a64(header_bytes.substr(kChecksumOffset + 8), hash);
}

// Parses "name: value" lines into a map; a malformed or repeated line is an
// error naming its line number.
absl::StatusOr<std::map<std::string, std::string>> ParseFieldLines(
    absl::string_view text) {
  std::map<std::string, std::string> fields;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++line_number;
    const size_t colon = line.find(": ");
    if (colon == absl::string_view::npos) {
      return absl::DataLossError(absl::StrCat("config text line ", line_number,
                                              " \"", line,
                                              "\" is not \"name: value\""));
    }
    std::string name(line.substr(0, colon));
    if (!fields.emplace(name, std::string(line.substr(colon + 2))).second) {
      return absl::DataLossError(
          absl::StrCat("config text repeats field ", name));
    }
  }
  return fields;
}

absl::StatusOr<TokenizerSettings> TokenizerSettingsFromFields(
    std::map<std::string, std::string>* fields) {
  TokenizerSettings settings;
  auto take = [fields](const char* name) -> absl::StatusOr<std::string> {
    auto it = fields->find(name);
    if (it == fields->end()) {
      return absl::DataLossError(
          absl::StrCat("config field ", name, " is missing"));
    }
    std::string value = std::move(it->second);
    fields->erase(it);
    return value;
  };
  ASSIGN_OR_RETURN(const std::string lower_case, take("tokenizer_lower_case"));
  if (lower_case != "true" && lower_case != "false") {
    return absl::DataLossError(absl::StrCat(
        "tokenizer_lower_case: \"", lower_case, "\" is not true or false"));
  }
  settings.lower_case = lower_case == "true";
  ASSIGN_OR_RETURN(const std::string control,
                   take("tokenizer_control_categories"));
  if (control == "all_other") {
    settings.control_categories = ControlCategories::kAllOther;
  } else if (control == "control_and_format") {
    settings.control_categories = ControlCategories::kControlAndFormat;
  } else {
    return absl::DataLossError(absl::StrCat(
        "tokenizer_control_categories: unknown value \"", control, "\""));
  }
  ASSIGN_OR_RETURN(const std::string max_chars,
                   take("tokenizer_max_input_chars_per_word"));
  if (!absl::SimpleAtoi(max_chars, &settings.max_input_chars_per_word)) {
    return absl::DataLossError(
        absl::StrCat("tokenizer_max_input_chars_per_word: \"", max_chars,
                     "\" is not an integer"));
  }
  return settings;
}

std::string TokenizerSettingsDescription(const TokenizerSettings& settings) {
  std::string text = TokenizerSettingsToText(settings);
  absl::StrReplaceAll({{"\n", "; "}}, &text);
  return std::string(absl::StripSuffix(text, "; "));
}

bool IsShardFileName(absl::string_view name) {
  return absl::StartsWith(name, "shard-") &&
         absl::EndsWith(name, kShardExtension);
}

bool IsInProgressName(absl::string_view name) {
  return absl::StartsWith(name, ".shard-");
}

absl::StatusOr<std::vector<std::string>> DirectoryEntries(
    const std::string& directory) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot list directory ", directory));
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) names.push_back(entry->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TokenizerSettings TokenizerSettingsOf(const FullTokenizerOptions& options) {
  TokenizerSettings settings;
  settings.lower_case = options.basic.lower_case;
  settings.control_categories = options.basic.control_categories;
  settings.max_input_chars_per_word =
      options.wordpiece.max_input_chars_per_word;
  return settings;
}

std::string TokenizerSettingsToText(const TokenizerSettings& settings) {
  return absl::StrCat(
      "tokenizer_lower_case: ", settings.lower_case ? "true" : "false",
      "\ntokenizer_control_categories: ",
      ControlCategoriesName(settings.control_categories),
      "\ntokenizer_max_input_chars_per_word: ",
      settings.max_input_chars_per_word, "\n");
}

RecordLayout RecordLayout::For(const InstanceConfig& config, int vocab_size) {
  RecordLayout layout;
  layout.max_seq_length = config.max_seq_length;
  layout.max_predictions_per_seq = config.max_predictions_per_seq;
  layout.id_bytes = vocab_size <= 65536 ? 2 : 4;
  return layout;
}

namespace {

// FNV-1a 64 of the record's bytes other than its checksum field.
uint64_t RecordChecksum(const RecordLayout& layout, const char* record) {
  const uint64_t head =
      Fnv1a64(absl::string_view(record, kRecordChecksumOffset));
  return Fnv1a64(absl::string_view(record + kRecordFixedBytes,
                                   static_cast<size_t>(layout.record_bytes() -
                                                       kRecordFixedBytes)),
                 head);
}

}  // namespace

void SealRecord(const RecordLayout& layout, char* record) {
  PutU64(RecordChecksum(layout, record), record + kRecordChecksumOffset);
}

void EncodeRecord(const RecordLayout& layout, const TrainingInstance& instance,
                  char* out) {
  const int num_tokens = instance.num_tokens();
  const int num_predictions =
      static_cast<int>(instance.masked_lm_positions.size());
  CHECK_LE(num_tokens, layout.max_seq_length);
  CHECK_EQ(instance.segment_ids.size(), instance.input_ids.size());
  CHECK_EQ(instance.masked_lm_ids.size(), instance.masked_lm_positions.size());
  CHECK_LE(num_predictions, layout.max_predictions_per_seq);
  int segment_b_start = num_tokens;
  for (int i = 0; i < num_tokens; ++i) {
    if (instance.segment_ids[i] != 0) {
      segment_b_start = i;
      break;
    }
  }
  for (int i = segment_b_start; i < num_tokens; ++i) {
    CHECK_EQ(instance.segment_ids[i], 1) << "segment ids must be 0...0 1...1";
  }
  CHECK(instance.next_sentence_label == 0 || instance.next_sentence_label == 1);

  std::memset(out, 0, static_cast<size_t>(layout.record_bytes()));
  PutU16(static_cast<uint32_t>(num_tokens), out);
  PutU16(static_cast<uint32_t>(segment_b_start), out + 2);
  PutU16(static_cast<uint32_t>(num_predictions), out + 4);
  out[6] = static_cast<char>(instance.next_sentence_label);
  char* ids = out + kRecordFixedBytes;
  for (int i = 0; i < num_tokens; ++i) {
    CHECK_GE(instance.input_ids[i], 0);
    PutId(layout.id_bytes, static_cast<uint32_t>(instance.input_ids[i]),
          ids + i * layout.id_bytes);
  }
  char* positions = ids + layout.max_seq_length * layout.id_bytes;
  char* labels = positions + layout.max_predictions_per_seq * 2;
  for (int i = 0; i < num_predictions; ++i) {
    CHECK_GE(instance.masked_lm_positions[i], 0);
    CHECK_LT(instance.masked_lm_positions[i], num_tokens);
    CHECK_GE(instance.masked_lm_ids[i], 0);
    PutU16(static_cast<uint32_t>(instance.masked_lm_positions[i]),
           positions + 2 * i);
    PutId(layout.id_bytes, static_cast<uint32_t>(instance.masked_lm_ids[i]),
          labels + i * layout.id_bytes);
  }
  SealRecord(layout, out);
}

absl::Status DecodeRecord(const RecordLayout& layout, int vocab_size,
                          const char* record, TrainingInstance* instance) {
  // First, so that a changed byte anywhere (a token id still inside the
  // vocabulary, say) is never read as data.
  const uint64_t stored = GetU64(record + kRecordChecksumOffset);
  const uint64_t computed = RecordChecksum(layout, record);
  if (stored != computed) {
    return absl::DataLossError(absl::StrFormat(
        "record checksum %016x does not match its contents (%016x)", stored,
        computed));
  }
  const int num_tokens = static_cast<int>(GetU16(record));
  const int segment_b_start = static_cast<int>(GetU16(record + 2));
  const int num_predictions = static_cast<int>(GetU16(record + 4));
  const int label = static_cast<unsigned char>(record[6]);
  if (num_tokens > layout.max_seq_length) {
    return absl::DataLossError(absl::StrCat("num_tokens ", num_tokens,
                                            " > max_seq_length ",
                                            layout.max_seq_length));
  }
  if (segment_b_start > num_tokens) {
    return absl::DataLossError(absl::StrCat("segment_b_start ", segment_b_start,
                                            " > num_tokens ", num_tokens));
  }
  if (num_predictions > layout.max_predictions_per_seq) {
    return absl::DataLossError(absl::StrCat("num_predictions ", num_predictions,
                                            " > max_predictions_per_seq ",
                                            layout.max_predictions_per_seq));
  }
  if (label > 1) {
    return absl::DataLossError(
        absl::StrCat("next_sentence_label ", label, " is not 0 or 1"));
  }
  if (record[7] != 0) return absl::DataLossError("reserved byte 7 is not 0");
  const char* ids = record + kRecordFixedBytes;
  const char* positions = ids + layout.max_seq_length * layout.id_bytes;
  const char* labels = positions + layout.max_predictions_per_seq * 2;
  instance->input_ids.resize(num_tokens);
  instance->segment_ids.resize(num_tokens);
  for (int i = 0; i < layout.max_seq_length; ++i) {
    const uint32_t id = GetId(layout.id_bytes, ids + i * layout.id_bytes);
    if (i >= num_tokens) {
      if (id != 0) {
        return absl::DataLossError(absl::StrCat(
            "input_ids padding at position ", i, " is ", id, ", not 0"));
      }
      continue;
    }
    if (id >= static_cast<uint32_t>(vocab_size)) {
      return absl::DataLossError(absl::StrCat(
          "input id ", id, " at position ", i, " >= vocab_size ", vocab_size));
    }
    instance->input_ids[i] = static_cast<int32_t>(id);
    instance->segment_ids[i] = i < segment_b_start ? 0 : 1;
  }
  instance->masked_lm_positions.resize(num_predictions);
  instance->masked_lm_ids.resize(num_predictions);
  for (int i = 0; i < layout.max_predictions_per_seq; ++i) {
    const uint32_t position = GetU16(positions + 2 * i);
    const uint32_t id = GetId(layout.id_bytes, labels + i * layout.id_bytes);
    if (i >= num_predictions) {
      if (position != 0 || id != 0) {
        return absl::DataLossError(absl::StrCat("masked-LM padding at slot ", i,
                                                " is (", position, ", ", id,
                                                "), not (0, 0)"));
      }
      continue;
    }
    if (position >= static_cast<uint32_t>(num_tokens) ||
        (i > 0 && position <= static_cast<uint32_t>(
                                  instance->masked_lm_positions[i - 1]))) {
      return absl::DataLossError(absl::StrCat(
          "masked_lm_positions[", i, "] = ", position,
          " is not ascending within [0, num_tokens = ", num_tokens, ")"));
    }
    if (id >= static_cast<uint32_t>(vocab_size)) {
      return absl::DataLossError(absl::StrCat("masked_lm_ids[", i, "] = ", id,
                                              " >= vocab_size ", vocab_size));
    }
    instance->masked_lm_positions[i] = static_cast<int32_t>(position);
    instance->masked_lm_ids[i] = static_cast<int32_t>(id);
  }
  instance->next_sentence_label = label;
  return absl::OkStatus();
}

std::string EncodeShardHeader(const ShardHeader& header) {
  const std::string config_text =
      absl::StrCat(InstanceConfigToText(header.config),
                   TokenizerSettingsToText(header.tokenizer));
  const RecordLayout layout = header.layout();
  const size_t header_bytes =
      (kShardFixedHeaderBytes + config_text.size() + 7) / 8 * 8;
  std::string bytes(header_bytes, '\0');
  char* out = bytes.data();
  std::memcpy(out, kShardMagic, kMagicBytes);
  PutU32(header.format_version, out + 8);
  PutU32(static_cast<uint32_t>(header_bytes), out + 12);
  PutU64(header.vocab_hash, out + 24);
  PutU32(static_cast<uint32_t>(header.vocab_size), out + 32);
  PutU32(static_cast<uint32_t>(layout.id_bytes), out + 36);
  PutU32(static_cast<uint32_t>(layout.record_bytes()), out + 40);
  PutU32(static_cast<uint32_t>(header.shard_index), out + 44);
  PutU64(header.instance_count, out + 48);
  PutU32(static_cast<uint32_t>(config_text.size()), out + 56);
  std::memcpy(out + kShardFixedHeaderBytes, config_text.data(),
              config_text.size());
  PutU64(HeaderChecksum(bytes), out + kChecksumOffset);
  return bytes;
}

// ShardWriter ---------------------------------------------------------------

std::string ShardFileName(int index, int num_shards) {
  return absl::StrFormat("shard-%05d-of-%05d%s", index, num_shards,
                         kShardExtension);
}

ShardWriter::ShardWriter(const ShardHeader& header, ShardWriterOptions options)
    : header_(header), options_(std::move(options)), layout_(header.layout()) {}

absl::StatusOr<std::unique_ptr<ShardWriter>> ShardWriter::Create(
    const ShardHeader& header, ShardWriterOptions options) {
  RETURN_IF_ERROR(ValidateInstanceConfig(header.config));
  if (header.vocab_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("vocab_size ", header.vocab_size, " must be positive"));
  }
  if (options.instances_per_shard < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("instances_per_shard = ", options.instances_per_shard,
                     " must be at least 1"));
  }
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError("the output directory is empty");
  }
  // Parents too, as the commands' --output_dir promises.
  RETURN_IF_ERROR(CreateDirectories(options.output_dir));
  ASSIGN_OR_RETURN(const std::vector<std::string> names,
                   DirectoryEntries(options.output_dir));
  for (const std::string& name : names) {
    if (IsShardFileName(name) || IsInProgressName(name)) {
      return absl::AlreadyExistsError(
          absl::StrCat(options.output_dir, " already holds shards (", name,
                       "); choose an empty output directory or remove them"));
    }
  }
  return std::unique_ptr<ShardWriter>(
      new ShardWriter(header, std::move(options)));
}

absl::Status ShardWriter::AddRecord(absl::string_view record) {
  CHECK(!finished_) << "AddRecord after Finish";
  CHECK_EQ(static_cast<int64_t>(record.size()), layout_.record_bytes());
  pending_records_.append(record.data(), record.size());
  ++pending_count_;
  ++instances_written_;
  if (pending_count_ >= options_.instances_per_shard) return FlushShard();
  return absl::OkStatus();
}

absl::Status ShardWriter::AddInstance(const TrainingInstance& instance) {
  std::string record(static_cast<size_t>(layout_.record_bytes()), '\0');
  EncodeRecord(layout_, instance, record.data());
  return AddRecord(record);
}

absl::Status ShardWriter::FlushShard() {
  ShardHeader header = header_;
  header.shard_index = static_cast<int>(in_progress_paths_.size());
  header.instance_count = static_cast<uint64_t>(pending_count_);
  std::string contents = EncodeShardHeader(header);
  contents.append(pending_records_);
  const std::string path = absl::StrFormat(
      "%s/.shard-%05d.inprogress", options_.output_dir, header.shard_index);
  RETURN_IF_ERROR(WriteFileAtomically(path, contents));
  in_progress_paths_.push_back(path);
  pending_records_.clear();
  pending_records_.shrink_to_fit();
  pending_count_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ShardWriter::Finish() {
  CHECK(!finished_) << "Finish called twice";
  finished_ = true;
  if (pending_count_ > 0 || in_progress_paths_.empty()) {
    RETURN_IF_ERROR(FlushShard());
  }
  const int num_shards = static_cast<int>(in_progress_paths_.size());
  std::vector<std::string> paths;
  for (int index = 0; index < num_shards; ++index) {
    std::string path = absl::StrCat(options_.output_dir, "/",
                                    ShardFileName(index, num_shards));
    if (::rename(in_progress_paths_[index].c_str(), path.c_str()) != 0) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("cannot rename ", in_progress_paths_[index],
                              " to ", path));
    }
    paths.push_back(std::move(path));
  }
  return paths;
}

absl::StatusOr<std::vector<std::string>> ListShards(
    const std::string& directory) {
  ASSIGN_OR_RETURN(const std::vector<std::string> names,
                   DirectoryEntries(directory));
  std::vector<std::string> shards;
  for (const std::string& name : names) {
    if (IsShardFileName(name)) shards.push_back(name);
  }
  if (shards.empty()) {
    return absl::NotFoundError(absl::StrCat(
        directory, " holds no shards (shard-*-of-*", kShardExtension, ")"));
  }
  // The count comes from the first name: shard-00000-of-NNNNN.blshard.
  int num_shards = 0;
  const size_t of = shards[0].find("-of-");
  if (of == std::string::npos ||
      !absl::SimpleAtoi(
          absl::StripSuffix(absl::string_view(shards[0]).substr(of + 4),
                            kShardExtension),
          &num_shards) ||
      num_shards < 1) {
    return absl::DataLossError(
        absl::StrCat(directory, "/", shards[0],
                     " is not named shard-INDEX-of-COUNT", kShardExtension));
  }
  std::vector<std::string> paths;
  for (int index = 0; index < num_shards; ++index) {
    const std::string expected = ShardFileName(index, num_shards);
    if (!std::binary_search(shards.begin(), shards.end(), expected)) {
      return absl::DataLossError(absl::StrCat(directory, " lacks ", expected,
                                              ": the data set is incomplete"));
    }
    paths.push_back(absl::StrCat(directory, "/", expected));
  }
  if (static_cast<int>(shards.size()) != num_shards) {
    return absl::DataLossError(absl::StrCat(directory, " holds ", shards.size(),
                                            " shard files but their names say ",
                                            num_shards,
                                            ": two data sets are mixed"));
  }
  return paths;
}

// ShardReader ---------------------------------------------------------------

ShardReader::ShardReader(std::string path, std::FILE* file, ShardHeader header)
    : path_(std::move(path)),
      file_(file),
      header_(std::move(header)),
      layout_(header_.layout()),
      record_buffer_(static_cast<size_t>(layout_.record_bytes()), '\0') {}

ShardReader::~ShardReader() { std::fclose(file_); }

absl::StatusOr<std::unique_ptr<ShardReader>> ShardReader::Open(
    const std::string& path, const ShardExpectations& expectations) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open shard ", path));
  }
  // Closes `file` on every early return; released on success.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(file, &std::fclose);
  struct stat info;
  if (::fstat(::fileno(file), &info) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat shard ", path));
  }
  const uint64_t file_bytes = static_cast<uint64_t>(info.st_size);
  const auto truncated = [&](absl::string_view what, uint64_t needed) {
    return absl::DataLossError(
        absl::StrCat("shard ", path, " is truncated: ", what, " needs ", needed,
                     " bytes but the file has ", file_bytes));
  };

  char fixed[kShardFixedHeaderBytes];
  const size_t got = std::fread(fixed, 1, sizeof(fixed), file);
  if (got < static_cast<size_t>(kMagicBytes)) {
    return truncated("the magic number", kMagicBytes);
  }
  if (std::memcmp(fixed, kShardMagic, kMagicBytes) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a bertlab shard: it starts with \"",
                     absl::CHexEscape(absl::string_view(fixed, kMagicBytes)),
                     "\", not the magic \"", kShardMagic, "\""));
  }
  if (got < 12) return truncated("the format version", 12);
  const uint32_t version = GetU32(fixed + 8);
  if (version != kShardFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("shard ", path, " has format version ", version,
                     "; this build reads version ", kShardFormatVersion,
                     " (version 2 added per-record checksums; regenerate it "
                     "with //tasks/pretraining_data:create_pretraining_data, "
                     "or let run_experiment prepare its data again)"));
  }
  if (got < static_cast<size_t>(kShardFixedHeaderBytes)) {
    return truncated("the fixed header", kShardFixedHeaderBytes);
  }
  const uint32_t header_bytes = GetU32(fixed + 12);
  const uint32_t config_text_bytes = GetU32(fixed + 56);
  if (header_bytes > kMaxHeaderBytes || header_bytes % 8 != 0 ||
      header_bytes < kShardFixedHeaderBytes + uint64_t{config_text_bytes}) {
    return absl::DataLossError(
        absl::StrCat("shard ", path, " has a corrupt header: header_bytes ",
                     header_bytes, " does not hold ", kShardFixedHeaderBytes,
                     " + ", config_text_bytes, " bytes"));
  }
  if (file_bytes < header_bytes) return truncated("the header", header_bytes);
  std::string header_data(fixed, sizeof(fixed));
  header_data.resize(header_bytes);
  if (std::fread(header_data.data() + kShardFixedHeaderBytes, 1,
                 header_bytes - kShardFixedHeaderBytes,
                 file) != header_bytes - kShardFixedHeaderBytes) {
    return absl::DataLossError(
        absl::StrCat("cannot read the header of ", path));
  }
  const uint64_t stored_checksum = GetU64(fixed + kChecksumOffset);
  const uint64_t checksum = HeaderChecksum(header_data);
  if (stored_checksum != checksum) {
    return absl::DataLossError(
        absl::StrCat("shard ", path, " has a corrupt header: checksum ",
                     Fnv1a64Hex(checksum), " does not match the stored ",
                     Fnv1a64Hex(stored_checksum)));
  }

  ShardHeader header;
  header.format_version = version;
  header.vocab_hash = GetU64(fixed + 24);
  header.vocab_size = static_cast<int>(GetU32(fixed + 32));
  const uint32_t id_bytes = GetU32(fixed + 36);
  const uint32_t record_bytes = GetU32(fixed + 40);
  header.shard_index = static_cast<int>(GetU32(fixed + 44));
  header.instance_count = GetU64(fixed + 48);
  const std::string config_text =
      header_data.substr(kShardFixedHeaderBytes, config_text_bytes);
  const auto corrupt = [&path](const absl::Status& status) {
    return absl::DataLossError(absl::StrCat(
        "shard ", path, " has a corrupt header: ", status.message()));
  };
  absl::StatusOr<std::map<std::string, std::string>> fields =
      ParseFieldLines(config_text);
  if (!fields.ok()) return corrupt(fields.status());
  absl::StatusOr<InstanceConfig> config = InstanceConfigFromFields(&*fields);
  if (!config.ok()) return corrupt(config.status());
  header.config = *config;
  absl::StatusOr<TokenizerSettings> tokenizer =
      TokenizerSettingsFromFields(&*fields);
  if (!tokenizer.ok()) return corrupt(tokenizer.status());
  header.tokenizer = *tokenizer;
  if (!fields->empty()) {
    return corrupt(absl::DataLossError(
        absl::StrCat("unknown config field ", fields->begin()->first)));
  }
  if (absl::Status valid = ValidateInstanceConfig(header.config); !valid.ok()) {
    return corrupt(valid);
  }
  if (header.vocab_size < 1) {
    return corrupt(absl::DataLossError("vocab_size is 0"));
  }
  const RecordLayout layout = header.layout();
  if (id_bytes != static_cast<uint32_t>(layout.id_bytes) ||
      record_bytes != layout.record_bytes()) {
    return corrupt(absl::DataLossError(absl::StrCat(
        "id_bytes ", id_bytes, " and record_bytes ", record_bytes,
        " disagree with vocab_size ", header.vocab_size, " and the config (",
        layout.id_bytes, ", ", layout.record_bytes(), ")")));
  }
  // A corrupt count must not overflow the size computation below.
  if (header.instance_count >
      (std::numeric_limits<uint64_t>::max() - header_bytes) / record_bytes) {
    return absl::DataLossError(absl::StrCat(
        "shard ", path, " has a corrupt header: it promises ",
        header.instance_count, " instances of ", record_bytes, " bytes"));
  }
  const uint64_t expected_bytes =
      header_bytes + header.instance_count * record_bytes;
  if (file_bytes < expected_bytes) {
    return truncated(
        absl::StrCat("its header promises ", header.instance_count,
                     " instances of ", record_bytes, " bytes, which"),
        expected_bytes);
  }
  if (file_bytes > expected_bytes) {
    return absl::DataLossError(
        absl::StrCat("shard ", path, " has ", file_bytes - expected_bytes,
                     " bytes after its ", header.instance_count, " instances"));
  }

  // What the consumer requires.
  if (expectations.vocab_hash.has_value() &&
      *expectations.vocab_hash != header.vocab_hash) {
    return absl::FailedPreconditionError(absl::StrCat(
        "vocabulary hash ", Fnv1a64Hex(header.vocab_hash), " in shard ", path,
        " does not match the expected ", Fnv1a64Hex(*expectations.vocab_hash),
        ": the shards were made with another vocab.txt"));
  }
  if (expectations.vocab_size.has_value() &&
      *expectations.vocab_size != header.vocab_size) {
    return absl::FailedPreconditionError(absl::StrCat(
        "vocab_size ", header.vocab_size, " in shard ", path,
        " does not match the expected ", *expectations.vocab_size));
  }
  if (expectations.config.has_value()) {
    const std::string difference =
        FirstInstanceConfigDifference(header.config, *expectations.config);
    if (!difference.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the config of shard ", path,
          " does not match the expected one; first difference (shard vs "
          "expected) ",
          difference));
    }
  }
  const auto mismatch = [&path](absl::string_view field, auto shard_value,
                                auto expected_value) {
    return absl::FailedPreconditionError(
        absl::StrCat(field, " ", shard_value, " in shard ", path,
                     " does not match the expected ", expected_value));
  };
  if (expectations.objective.has_value() &&
      *expectations.objective != header.config.objective) {
    return mismatch("objective", LanguageModelName(header.config.objective),
                    LanguageModelName(*expectations.objective));
  }
  if (expectations.max_seq_length.has_value() &&
      *expectations.max_seq_length != header.config.max_seq_length) {
    return mismatch("max_seq_length", header.config.max_seq_length,
                    *expectations.max_seq_length);
  }
  if (expectations.max_predictions_per_seq.has_value() &&
      *expectations.max_predictions_per_seq !=
          header.config.max_predictions_per_seq) {
    return mismatch("max_predictions_per_seq",
                    header.config.max_predictions_per_seq,
                    *expectations.max_predictions_per_seq);
  }
  if (expectations.tokenizer.has_value() &&
      !(*expectations.tokenizer == header.tokenizer)) {
    return mismatch("tokenizer settings",
                    TokenizerSettingsDescription(header.tokenizer),
                    TokenizerSettingsDescription(*expectations.tokenizer));
  }

  closer.release();
  std::setvbuf(file, nullptr, _IOFBF, 1 << 20);
  return std::unique_ptr<ShardReader>(
      new ShardReader(path, file, std::move(header)));
}

absl::StatusOr<bool> ShardReader::NextInstance(TrainingInstance* instance) {
  if (next_index_ >= header_.instance_count) return false;
  if (std::fread(record_buffer_.data(), 1, record_buffer_.size(), file_) !=
      record_buffer_.size()) {
    return absl::DataLossError(absl::StrCat("cannot read record ", next_index_,
                                            " of shard ", path_,
                                            " (was the file truncated?)"));
  }
  if (absl::Status status = DecodeRecord(layout_, header_.vocab_size,
                                         record_buffer_.data(), instance);
      !status.ok()) {
    return absl::DataLossError(absl::StrCat("shard ", path_, " record ",
                                            next_index_,
                                            " is corrupt: ", status.message()));
  }
  ++next_index_;
  return true;
}

}  // namespace bertlab
