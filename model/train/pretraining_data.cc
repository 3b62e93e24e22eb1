#include "model/train/pretraining_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/fnv1a.h"
#include "common/philox.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

uint32_t ReadU32(const unsigned char* bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 |
         uint32_t{bytes[2]} << 16 | uint32_t{bytes[3]} << 24;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShardDataset>> ShardDataset::Open(
    const std::vector<std::string>& directories,
    const ShardExpectations& expectations) {
  if (directories.empty()) {
    return absl::InvalidArgumentError("no shard directory given");
  }
  std::unique_ptr<ShardDataset> dataset(new ShardDataset());
  dataset->directories_ = directories;
  ShardExpectations same = expectations;
  bool first = true;
  for (const std::string& directory : directories) {
    ASSIGN_OR_RETURN(std::vector<std::string> paths, ListShards(directory));
    for (const std::string& path : paths) {
      ASSIGN_OR_RETURN(std::unique_ptr<ShardReader> reader,
                       ShardReader::Open(path, same));
      const ShardHeader& header = reader->header();
      if (first) {
        dataset->header_ = header;
        dataset->layout_ = header.layout();
        // Every later shard must be made the same way as the first.
        same.config = header.config;
        same.vocab_hash = header.vocab_hash;
        same.vocab_size = header.vocab_size;
        same.tokenizer = header.tokenizer;
        first = false;
      }
      Shard shard;
      shard.path = path;
      shard.first_index = dataset->size_;
      shard.count = static_cast<int64_t>(header.instance_count);
      if (shard.count > 0) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
          return absl::ErrnoToStatus(errno,
                                     absl::StrCat("cannot open shard ", path));
        }
        struct stat info;
        if (::fstat(fd, &info) != 0) {
          const int error = errno;
          ::close(fd);
          return absl::ErrnoToStatus(error,
                                     absl::StrCat("cannot stat shard ", path));
        }
        shard.mapping_bytes = static_cast<size_t>(info.st_size);
        void* mapping =
            ::mmap(nullptr, shard.mapping_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
        const int error = errno;
        ::close(fd);
        if (mapping == MAP_FAILED) {
          return absl::ErrnoToStatus(error,
                                     absl::StrCat("cannot map shard ", path));
        }
        shard.mapping = mapping;
        // ShardReader::Open checked the header and that the file holds
        // header_bytes + count * record_bytes bytes exactly.
        const uint32_t header_bytes =
            ReadU32(static_cast<const unsigned char*>(mapping) + 12);
        CHECK_EQ(uint64_t{header_bytes} +
                     static_cast<uint64_t>(shard.count) *
                         static_cast<uint64_t>(dataset->layout_.record_bytes()),
                 uint64_t{shard.mapping_bytes})
            << path;
        shard.records = static_cast<const char*>(mapping) + header_bytes;
        ::madvise(mapping, shard.mapping_bytes, MADV_RANDOM);
      }
      dataset->size_ += shard.count;
      dataset->shards_.push_back(std::move(shard));
    }
  }
  if (dataset->size_ >= int64_t{std::numeric_limits<uint32_t>::max()}) {
    return absl::InvalidArgumentError(
        absl::StrCat(dataset->Describe(), ": more than 2^32 - 1 instances"));
  }
  return dataset;
}

ShardDataset::~ShardDataset() {
  for (const Shard& shard : shards_) {
    if (shard.mapping != nullptr) ::munmap(shard.mapping, shard.mapping_bytes);
  }
}

std::string ShardDataset::Describe() const {
  return absl::StrCat(size_, " instances in ", shards_.size(), " shard",
                      shards_.size() == 1 ? "" : "s", " of ",
                      absl::StrJoin(directories_, ", "), " (",
                      LanguageModelName(header_.config.objective),
                      ", max_seq_length ", header_.config.max_seq_length,
                      ", vocabulary ", Fnv1a64Hex(header_.vocab_hash), ")");
}

absl::Status ShardDataset::Get(int64_t index,
                               TrainingInstance* instance) const {
  CHECK(index >= 0 && index < size_) << "instance " << index << " of " << size_;
  // The last shard whose first index is <= index, skipping empty shards.
  auto it = std::upper_bound(shards_.begin(), shards_.end(), index,
                             [](int64_t value, const Shard& shard) {
                               return value < shard.first_index;
                             });
  --it;
  while (it->count == 0 || index >= it->first_index + it->count) ++it;
  const int64_t record = index - it->first_index;
  const absl::Status status =
      DecodeRecord(layout_, header_.vocab_size,
                   it->records + record * layout_.record_bytes(), instance);
  if (!status.ok()) {
    return absl::DataLossError(absl::StrCat("shard ", it->path, " record ",
                                            record,
                                            " is corrupt: ", status.message()));
  }
  return absl::OkStatus();
}

std::vector<uint32_t> EpochPermutation(uint64_t shuffle_seed,
                                       uint32_t tensor_id, int64_t epoch,
                                       int64_t n) {
  CHECK(n >= 0 && n < int64_t{std::numeric_limits<uint32_t>::max()}) << n;
  CHECK(epoch >= 0 && epoch <= int64_t{std::numeric_limits<uint32_t>::max()})
      << epoch;
  std::vector<uint32_t> permutation(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) permutation[i] = static_cast<uint32_t>(i);
  const PhiloxStream stream{shuffle_seed, static_cast<uint32_t>(epoch),
                            tensor_id};
  for (int64_t i = n - 1; i >= 1; --i) {
    // Elements 2i and 2i+1 are the two halves of one Philox block.
    const PhiloxBlock block =
        PhiloxStreamBlock(stream, static_cast<uint64_t>(i) / 2);
    const int lane = static_cast<int>((2 * i) % 4);
    const uint64_t random =
        uint64_t{block.v[lane]} << 32 | uint64_t{block.v[lane + 1]};
    const int64_t j =
        static_cast<int64_t>((static_cast<unsigned __int128>(random) *
                              static_cast<uint64_t>(i + 1)) >>
                             64);
    std::swap(permutation[i], permutation[j]);
  }
  return permutation;
}

InstanceOrder::InstanceOrder(int64_t begin, int64_t end, uint64_t shuffle_seed,
                             uint32_t tensor_id, DataPosition start)
    : begin_(begin),
      size_(end - begin),
      shuffle_seed_(shuffle_seed),
      tensor_id_(tensor_id),
      position_(start) {
  CHECK_GE(size_, 1);
  CHECK(start.index >= 0 && start.index <= size_) << start.index;
  permutation_ =
      EpochPermutation(shuffle_seed_, tensor_id_, position_.epoch, size_);
}

int64_t InstanceOrder::Next() {
  if (position_.index == size_) {
    ++position_.epoch;
    position_.index = 0;
    permutation_ =
        EpochPermutation(shuffle_seed_, tensor_id_, position_.epoch, size_);
  }
  return begin_ + permutation_[position_.index++];
}

PretrainingBatch::PretrainingBatch(LanguageModel objective, bool next_sentence,
                                   int64_t batch, int64_t seq_len,
                                   int64_t max_predictions_per_seq)
    : objective_(objective),
      next_sentence_(next_sentence && objective == LanguageModel::kMaskedLm),
      batch_(batch),
      seq_len_(seq_len),
      max_predictions_per_seq_(max_predictions_per_seq) {
  CHECK_GE(batch, 1);
  CHECK_GE(seq_len, 2);
  max_predictions_ = objective == LanguageModel::kMaskedLm
                         ? batch * max_predictions_per_seq
                         : batch * (seq_len - 1);
  CHECK_GE(max_predictions_, 1);
  input_ids_.resize(batch * seq_len);
  token_type_ids_.resize(batch * seq_len);
  attention_mask_.resize(batch * seq_len);
  positions_.reserve(max_predictions_);
  labels_.reserve(max_predictions_);
  next_sentence_labels_.reserve(batch);
  Clear();
}

void PretrainingBatch::Clear() {
  size_ = 0;
  real_tokens_ = 0;
  std::fill(input_ids_.begin(), input_ids_.end(), 0);
  std::fill(token_type_ids_.begin(), token_type_ids_.end(), 0);
  std::fill(attention_mask_.begin(), attention_mask_.end(), 0);
  positions_.clear();
  labels_.clear();
  next_sentence_labels_.clear();
}

void PretrainingBatch::Add(const TrainingInstance& instance) {
  CHECK_LT(size_, batch_) << "batch is full";
  const int64_t n = instance.num_tokens();
  CHECK(n >= 1 && n <= seq_len_)
      << "instance of " << n << " tokens in a batch of length " << seq_len_;
  CHECK_EQ(instance.segment_ids.size(), static_cast<size_t>(n));
  const int64_t row = size_ * seq_len_;
  for (int64_t t = 0; t < n; ++t) {
    input_ids_[row + t] = instance.input_ids[t];
    token_type_ids_[row + t] = instance.segment_ids[t];
    attention_mask_[row + t] = 1;
  }
  if (objective_ == LanguageModel::kMaskedLm) {
    const size_t predictions = instance.masked_lm_positions.size();
    CHECK_LE(static_cast<int64_t>(predictions), max_predictions_per_seq_);
    CHECK_EQ(instance.masked_lm_ids.size(), predictions);
    for (size_t k = 0; k < predictions; ++k) {
      const int32_t position = instance.masked_lm_positions[k];
      CHECK(position >= 0 && position < n) << position;
      positions_.push_back(static_cast<int32_t>(row + position));
      labels_.push_back(instance.masked_lm_ids[k]);
    }
    if (next_sentence_) {
      next_sentence_labels_.push_back(instance.next_sentence_label);
    }
  } else if (objective_ == LanguageModel::kLeftToRight) {
    for (int64_t t = 0; t + 1 < n; ++t) {
      positions_.push_back(static_cast<int32_t>(row + t));
      labels_.push_back(instance.input_ids[t + 1]);
    }
  } else {
    // Right-to-left: position t predicts token t - 1, so [CLS] predicts
    // nothing and the final [SEP] predicts the last word.
    for (int64_t t = 1; t < n; ++t) {
      positions_.push_back(static_cast<int32_t>(row + t));
      labels_.push_back(instance.input_ids[t - 1]);
    }
  }
  real_tokens_ += n;
  ++size_;
}

void PretrainingBatch::PadWithEmptyRows() {
  // Clear() zeroed the rows.
  for (; size_ < batch_; ++size_) {
    if (next_sentence_) next_sentence_labels_.push_back(kIgnoreLabel);
  }
}

EncoderBatch PretrainingBatch::encoder_batch() const {
  CHECK_EQ(size_, batch_) << "the batch is not full";
  return EncoderBatch{input_ids_.data(), token_type_ids_.data(),
                      attention_mask_.data(), batch_, seq_len_};
}

PretrainingTargets PretrainingBatch::targets() const {
  CHECK_EQ(size_, batch_) << "the batch is not full";
  PretrainingTargets targets;
  targets.positions = positions_.data();
  targets.labels = labels_.data();
  targets.num_predictions = static_cast<int64_t>(positions_.size());
  targets.next_sentence_labels =
      next_sentence_ ? next_sentence_labels_.data() : nullptr;
  return targets;
}

}  // namespace bertlab
