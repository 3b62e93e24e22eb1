#include "model/train/test_shards.h"

#include <algorithm>
#include <memory>

#include "common/check.h"
#include "common/philox.h"
#include "common/status_macros.h"
#include "tasks/pretraining_data/instance_config.h"
#include "tasks/pretraining_data/shard_format.h"

namespace bertlab {
namespace {

// Draws from one instance's stream, in order.
class Draws {
 public:
  Draws(uint64_t seed, int64_t index)
      : stream_{seed, static_cast<uint32_t>(index), 0} {}
  // Uniform in [0, n).
  int Below(int n) {
    return static_cast<int>(PhiloxBits(stream_, next_++) %
                            static_cast<uint32_t>(n));
  }

 private:
  PhiloxStream stream_;
  uint64_t next_ = 0;
};

// Word `position` (taken cyclically) of document `document`: random words
// from Philox stream (seed, 0xffffffff, document), the same for every
// instance.
int32_t DocumentWord(const TinyShardOptions& options, int document,
                     int position) {
  const PhiloxStream stream{options.seed, 0xffffffffu,
                            static_cast<uint32_t>(document)};
  const int words = options.vocab_size - kTinyFirstWordId;
  return kTinyFirstWordId +
         static_cast<int32_t>(
             PhiloxBits(stream, position % options.document_length) %
             static_cast<uint32_t>(words));
}

void AppendText(const TinyShardOptions& options, int document, int start,
                int count, std::vector<int32_t>* ids) {
  for (int i = 0; i < count; ++i) {
    ids->push_back(DocumentWord(options, document, start + i));
  }
}

}  // namespace

TrainingInstance TinyInstance(const TinyShardOptions& options, int64_t index) {
  CHECK_GE(options.vocab_size, kTinyFirstWordId + 2);
  CHECK_GE(options.num_documents, 1);
  CHECK_GE(options.document_length, 1);
  Draws draws(options.seed, index);
  TrainingInstance instance;
  if (options.objective != LanguageModel::kMaskedLm) {
    // [CLS] text [SEP], 2 to max_seq_length - 2 words (both directions read
    // the same instances).
    const int length = 2 + draws.Below(options.max_seq_length - 3);
    instance.input_ids.push_back(kTinyClsId);
    const int document = draws.Below(options.num_documents);
    AppendText(options, document, draws.Below(options.document_length), length,
               &instance.input_ids);
    instance.input_ids.push_back(kTinySepId);
    instance.segment_ids.assign(instance.input_ids.size(), 0);
    return instance;
  }
  // [CLS] A [SEP] B [SEP] with |A| in [1, budget - 1], |B| >= 1.
  const int budget = options.full_length
                         ? options.max_seq_length - 3
                         : 2 + draws.Below(options.max_seq_length - 4);
  const int length_a = 1 + draws.Below(budget - 1);
  const int length_b = budget - length_a;
  const int document_a = draws.Below(options.num_documents);
  const int start_a = draws.Below(options.document_length);
  const bool random_next = draws.Below(2) == 1;
  const int document_b =
      random_next ? draws.Below(options.num_documents) : document_a;
  const int start_b =
      random_next ? draws.Below(options.document_length) : start_a + length_a;
  std::vector<int32_t>& ids = instance.input_ids;
  ids.push_back(kTinyClsId);
  AppendText(options, document_a, start_a, length_a, &ids);
  ids.push_back(kTinySepId);
  const int segment_b_start = static_cast<int>(ids.size());
  AppendText(options, document_b, start_b, length_b, &ids);
  ids.push_back(kTinySepId);
  instance.segment_ids.assign(ids.size(), 0);
  std::fill(instance.segment_ids.begin() + segment_b_start,
            instance.segment_ids.end(), 1);
  instance.next_sentence_label = random_next ? 1 : 0;
  // Mask about 15% of the words, choosing among the candidates.
  std::vector<int32_t> candidates;
  for (int t = 0; t < static_cast<int>(ids.size()); ++t) {
    if (ids[t] != kTinyClsId && ids[t] != kTinySepId) candidates.push_back(t);
  }
  const int wanted = std::min<int>(
      options.max_predictions_per_seq,
      std::max<int>(1,
                    static_cast<int>(options.masked_lm_prob * budget + 0.5)));
  for (int k = 0; k < wanted; ++k) {
    const int pick = k + draws.Below(static_cast<int>(candidates.size()) - k);
    std::swap(candidates[k], candidates[pick]);
  }
  std::sort(candidates.begin(), candidates.begin() + wanted);
  for (int k = 0; k < wanted; ++k) {
    const int32_t position = candidates[k];
    instance.masked_lm_positions.push_back(position);
    instance.masked_lm_ids.push_back(ids[position]);
    ids[position] = kTinyMaskId;
  }
  return instance;
}

absl::Status WriteTinyShards(const std::string& dir,
                             const TinyShardOptions& options) {
  ShardHeader header;
  header.config.objective = InstanceLanguageModel(options.objective);
  header.config.max_seq_length = options.max_seq_length;
  header.config.max_predictions_per_seq = options.max_predictions_per_seq;
  header.config.next_sentence = options.next_sentence;
  header.config.dupe_factor = 1;
  header.config.seed = options.seed;
  header.vocab_hash = 0x7e57da7a00000000ULL + options.vocab_size;
  header.vocab_size = options.vocab_size;
  ShardWriterOptions writer_options;
  writer_options.output_dir = dir;
  writer_options.instances_per_shard = options.instances_per_shard;
  ASSIGN_OR_RETURN(std::unique_ptr<ShardWriter> writer,
                   ShardWriter::Create(header, writer_options));
  for (int64_t i = 0; i < options.num_instances; ++i) {
    RETURN_IF_ERROR(writer->AddInstance(TinyInstance(options, i)));
  }
  return writer->Finish().status();
}

BertConfig TinyBertConfig(int64_t vocab_size, AttentionMode attention_mode) {
  BertConfig config;
  config.vocab_size = vocab_size;
  config.hidden_size = 16;
  config.num_hidden_layers = 1;
  config.num_attention_heads = 2;
  config.intermediate_size = 32;
  config.max_position_embeddings = 64;
  config.attention_mode = attention_mode;
  return config;
}

}  // namespace bertlab
