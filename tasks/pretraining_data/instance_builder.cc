#include "tasks/pretraining_data/instance_builder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/parallel.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

uint32_t TensorId(uint32_t purpose, int dupe) {
  CHECK_GE(dupe, 0);
  CHECK_LT(dupe, kMaxDupeFactor);
  return (purpose << 24) | static_cast<uint32_t>(dupe);
}

// Runs body(task) for every task in [0, num_tasks) on NumThreads() threads,
// each taking the next task as it becomes free (documents vary in length, so
// a static split would leave a thread idle). Results must go to per-task
// slots, which keeps them independent of the scheduling. on_caller_task runs
// on the calling thread after each task it finishes (for progress).
void ForEachTask(int64_t num_tasks, const std::function<void(int64_t)>& body,
                 const std::function<void()>& on_caller_task) {
  std::atomic<int64_t> next_task{0};
  const ChunkPartition workers =
      PartitionRange(0, NumThreads(), /*min_chunk=*/1, NumThreads());
  ParallelForChunks(workers, [&](int chunk, int64_t, int64_t) {
    while (true) {
      const int64_t task = next_task.fetch_add(1);
      if (task >= num_tasks) break;
      body(task);
      if (chunk == 0 && on_caller_task) on_caller_task();
    }
  });
}

// Makes *instance [CLS] a [SEP] b [SEP] with segment ids 0 through the first
// [SEP] and 1 after, or [CLS] a [SEP] (all 0) without b (left-to-right).
void AssembleTokens(const VocabFacts& vocab, absl::Span<const int32_t> a,
                    absl::Span<const int32_t> b, bool has_b,
                    TrainingInstance* instance) {
  instance->input_ids.clear();
  instance->segment_ids.clear();
  instance->masked_lm_positions.clear();
  instance->masked_lm_ids.clear();
  instance->next_sentence_label = 0;
  instance->input_ids.push_back(vocab.cls_id);
  instance->input_ids.insert(instance->input_ids.end(), a.begin(), a.end());
  instance->input_ids.push_back(vocab.sep_id);
  instance->segment_ids.assign(instance->input_ids.size(), 0);
  if (has_b) {
    instance->input_ids.insert(instance->input_ids.end(), b.begin(), b.end());
    instance->input_ids.push_back(vocab.sep_id);
    instance->segment_ids.resize(instance->input_ids.size(), 1);
  }
}

void CreateLeftToRightInstances(const InstanceConfig& config,
                                const VocabFacts& vocab,
                                const TokenizedDocument& document, int dupe,
                                std::vector<TrainingInstance>* instances) {
  RandomDraws rng(StructureStream(config.seed, document.ordinal, dupe), 0);
  const int max_num_tokens = MaxNumTokens(config);
  int target_seq_length = max_num_tokens;
  if (rng.Uniform() < config.short_seq_prob) {
    target_seq_length = rng.UniformInt(2, max_num_tokens);
  }
  const absl::Span<const int32_t> tokens(document.tokens);
  for (size_t start = 0; start < tokens.size(); start += target_seq_length) {
    instances->emplace_back();
    AssembleTokens(vocab, tokens.subspan(start, target_seq_length), {},
                   /*has_b=*/false, &instances->back());
  }
}

void CreateMaskedLmInstances(const InstanceConfig& config,
                             const VocabFacts& vocab,
                             absl::Span<const TokenizedDocument> block,
                             int document_index, int dupe,
                             std::vector<TrainingInstance>* instances) {
  const TokenizedDocument& document = block[document_index];
  const absl::Span<const int32_t> tokens(document.tokens);
  const int num_sentences = document.num_sentences();
  RandomDraws rng(StructureStream(config.seed, document.ordinal, dupe), 0);
  const int max_num_tokens = MaxNumTokens(config);
  int target_seq_length = max_num_tokens;
  if (rng.Uniform() < config.short_seq_prob) {
    target_seq_length = rng.UniformInt(2, max_num_tokens);
  }

  // The chunk is sentences [chunk_begin, chunk_begin + chunk_size).
  int chunk_begin = 0;
  int chunk_size = 0;
  int current_length = 0;
  uint64_t instance_in_document = 0;
  for (int i = 0; i < num_sentences; ++i) {
    if (chunk_size == 0) chunk_begin = i;
    ++chunk_size;
    current_length += document.sentence_length(i);
    if (i != num_sentences - 1 && current_length < target_seq_length) continue;

    int a_end = 1;
    if (chunk_size >= 2) a_end = rng.UniformInt(1, chunk_size - 1);
    const int a_first_token = document.sentence_starts[chunk_begin];
    const int a_last_token = document.sentence_starts[chunk_begin + a_end];
    absl::Span<const int32_t> tokens_a =
        tokens.subspan(a_first_token, a_last_token - a_first_token);

    absl::Span<const int32_t> tokens_b;
    bool is_random_next = false;
    if (chunk_size == 1 || rng.Uniform() < config.random_next_prob) {
      is_random_next = true;
      const int target_b_length =
          target_seq_length - static_cast<int>(tokens_a.size());
      // As in the reference: after kMaxRandomDocumentTries draws that all
      // hit the current document (a block of one document), use it.
      int random_document_index = 0;
      for (int attempt = 0; attempt < kMaxRandomDocumentTries; ++attempt) {
        random_document_index =
            rng.UniformInt(0, static_cast<int>(block.size()) - 1);
        if (random_document_index != document_index) break;
      }
      const TokenizedDocument& random_document = block[random_document_index];
      const int random_start =
          rng.UniformInt(0, random_document.num_sentences() - 1);
      int random_end = random_start;
      int b_length = 0;
      while (random_end < random_document.num_sentences()) {
        b_length += random_document.sentence_length(random_end);
        ++random_end;
        if (b_length >= target_b_length) break;
      }
      const int b_first_token = random_document.sentence_starts[random_start];
      tokens_b = absl::Span<const int32_t>(random_document.tokens)
                     .subspan(b_first_token, b_length);
      // Put the unused sentences back: the next chunk starts with them.
      i -= chunk_size - a_end;
    } else {
      const int b_last_token =
          document.sentence_starts[chunk_begin + chunk_size];
      tokens_b = tokens.subspan(a_last_token, b_last_token - a_last_token);
    }
    TruncateSeqPair(max_num_tokens, &rng, &tokens_a, &tokens_b);
    CHECK_GE(tokens_a.size(), 1u);
    CHECK_GE(tokens_b.size(), 1u);

    instances->emplace_back();
    TrainingInstance& instance = instances->back();
    AssembleTokens(vocab, tokens_a, tokens_b, /*has_b=*/true, &instance);
    instance.next_sentence_label = is_random_next ? 1 : 0;
    const PhiloxStream masking =
        MaskingStream(config.seed, document.ordinal, dupe);
    RandomDraws order_rng(masking, instance_in_document << 32);
    RandomDraws choice_rng(masking,
                           (instance_in_document << 32) | (uint64_t{1} << 31));
    ++instance_in_document;
    CreateMaskedLmPredictions(config, vocab, &order_rng, &choice_rng,
                              &instance);

    chunk_size = 0;
    current_length = 0;
  }
}

}  // namespace

int RandomDraws::UniformInt(int low, int high) {
  CHECK_LE(low, high);
  const uint32_t range = static_cast<uint32_t>(int64_t{high} - low + 1);
  CHECK_LE(range, uint32_t{1} << 31);
  uint64_t product = uint64_t{Bits()} * range;
  uint32_t low_bits = static_cast<uint32_t>(product);
  if (low_bits < range) {
    // Reject the 2^32 mod range values that would make some results more
    // likely than others.
    const uint32_t threshold = (0u - range) % range;
    while (low_bits < threshold) {
      product = uint64_t{Bits()} * range;
      low_bits = static_cast<uint32_t>(product);
    }
  }
  return low + static_cast<int>(product >> 32);
}

PhiloxStream StructureStream(uint64_t seed, uint64_t document_ordinal,
                             int dupe) {
  CHECK_LT(document_ordinal, uint64_t{1} << 32);
  return PhiloxStream{seed, static_cast<uint32_t>(document_ordinal),
                      TensorId(kStructureStreamPurpose, dupe)};
}

PhiloxStream MaskingStream(uint64_t seed, uint64_t document_ordinal, int dupe) {
  CHECK_LT(document_ordinal, uint64_t{1} << 32);
  return PhiloxStream{seed, static_cast<uint32_t>(document_ordinal),
                      TensorId(kMaskingStreamPurpose, dupe)};
}

PhiloxStream ShuffleStream(uint64_t seed, int64_t block_index) {
  CHECK_GE(block_index, 0);
  CHECK_LT(block_index, int64_t{1} << 32);
  return PhiloxStream{seed, static_cast<uint32_t>(block_index),
                      kShuffleStreamPurpose << 24};
}

absl::StatusOr<VocabFacts> VocabFacts::FromVocab(const Vocab& vocab) {
  VocabFacts facts;
  const auto special =
      [&vocab](absl::string_view token) -> absl::StatusOr<int> {
    std::optional<int> id = vocab.TokenToId(token);
    if (!id.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("vocabulary ", vocab.source(), " has no ", token,
                       " token, which pre-training instances need"));
    }
    return *id;
  };
  ASSIGN_OR_RETURN(facts.cls_id, special("[CLS]"));
  ASSIGN_OR_RETURN(facts.sep_id, special("[SEP]"));
  ASSIGN_OR_RETURN(facts.mask_id, special("[MASK]"));
  facts.vocab_size = vocab.size();
  facts.is_continuation.resize(vocab.size());
  for (int id = 0; id < vocab.size(); ++id) {
    facts.is_continuation[id] = absl::StartsWith(vocab.IdToToken(id), "##");
  }
  return facts;
}

void TokenizedDocument::AddSentence(absl::Span<const int32_t> ids) {
  if (ids.empty()) return;
  tokens.insert(tokens.end(), ids.begin(), ids.end());
  sentence_starts.push_back(static_cast<int32_t>(tokens.size()));
}

TokenizedDocument TokenizeDocument(const FullTokenizer& tokenizer,
                                   const Document& document, uint64_t ordinal) {
  TokenizedDocument tokenized;
  tokenized.ordinal = ordinal;
  for (const std::string& sentence : document.sentences) {
    const std::vector<int> ids = tokenizer.TokenizeToIds(sentence);
    static_assert(sizeof(int) == sizeof(int32_t));
    tokenized.AddSentence(absl::Span<const int32_t>(ids));
  }
  return tokenized;
}

void TruncateSeqPair(int max_num_tokens, RandomDraws* rng,
                     absl::Span<const int32_t>* a,
                     absl::Span<const int32_t>* b) {
  while (static_cast<int>(a->size() + b->size()) > max_num_tokens) {
    absl::Span<const int32_t>* longer = a->size() > b->size() ? a : b;
    CHECK_GE(longer->size(), 1u);
    if (rng->Uniform() < 0.5) {
      longer->remove_prefix(1);
    } else {
      longer->remove_suffix(1);
    }
  }
}

void CreateMaskedLmPredictions(const InstanceConfig& config,
                               const VocabFacts& vocab, RandomDraws* order_rng,
                               RandomDraws* choice_rng,
                               TrainingInstance* instance) {
  std::vector<int32_t>& ids = instance->input_ids;
  const int num_tokens = static_cast<int>(ids.size());
  // Candidate groups: group g holds candidate_indexes[group_starts[g],
  // group_starts[g + 1]). As in the reference, a "##" piece joins the group
  // before it even across a [SEP].
  std::vector<int32_t> candidate_indexes;
  std::vector<int32_t> group_starts;
  for (int i = 0; i < num_tokens; ++i) {
    if (ids[i] == vocab.cls_id || ids[i] == vocab.sep_id) continue;
    if (!(config.do_whole_word_mask && !group_starts.empty() &&
          vocab.is_continuation[ids[i]])) {
      group_starts.push_back(static_cast<int32_t>(candidate_indexes.size()));
    }
    candidate_indexes.push_back(i);
  }
  const int num_groups = static_cast<int>(group_starts.size());
  group_starts.push_back(static_cast<int32_t>(candidate_indexes.size()));
  // Python 3's round() rounds half to even, as nearbyint does by default.
  const int num_to_predict = std::min(
      config.max_predictions_per_seq,
      std::max(1, static_cast<int>(
                      std::nearbyint(num_tokens * config.masked_lm_prob))));
  const double keep_share =
      config.keep_fraction + config.random_fraction > 0
          ? config.keep_fraction /
                (config.keep_fraction + config.random_fraction)
          : 1.0;

  std::vector<int32_t> order(num_groups);
  for (int g = 0; g < num_groups; ++g) order[g] = g;
  std::vector<std::pair<int32_t, int32_t>> predictions;  // (position, label)
  for (int step = 0; step < num_groups; ++step) {
    if (static_cast<int>(predictions.size()) >= num_to_predict) break;
    std::swap(order[step], order[order_rng->UniformInt(step, num_groups - 1)]);
    const int group = order[step];
    const int group_size = group_starts[group + 1] - group_starts[group];
    if (static_cast<int>(predictions.size()) + group_size > num_to_predict) {
      continue;
    }
    for (int k = group_starts[group]; k < group_starts[group + 1]; ++k) {
      const int index = candidate_indexes[k];
      const int32_t original = ids[index];
      if (choice_rng->Uniform() < config.mask_fraction) {
        ids[index] = vocab.mask_id;
      } else if (choice_rng->Uniform() >= keep_share) {
        ids[index] = choice_rng->UniformInt(0, vocab.vocab_size - 1);
      }
      predictions.emplace_back(index, original);
    }
  }
  std::sort(predictions.begin(), predictions.end());
  instance->masked_lm_positions.clear();
  instance->masked_lm_ids.clear();
  for (const auto& [position, label] : predictions) {
    instance->masked_lm_positions.push_back(position);
    instance->masked_lm_ids.push_back(label);
  }
}

void CreateInstancesFromDocument(const InstanceConfig& config,
                                 const VocabFacts& vocab,
                                 absl::Span<const TokenizedDocument> block,
                                 int document_index, int dupe,
                                 std::vector<TrainingInstance>* instances) {
  CHECK_GE(document_index, 0);
  CHECK_LT(static_cast<size_t>(document_index), block.size());
  CHECK_GE(block[document_index].num_sentences(), 1);
  if (config.objective == LanguageModel::kLeftToRight) {
    CreateLeftToRightInstances(config, vocab, block[document_index], dupe,
                               instances);
  } else {
    CreateMaskedLmInstances(config, vocab, block, document_index, dupe,
                            instances);
  }
}

absl::StatusOr<BuildStats> CreatePretrainingInstances(
    const InstanceConfig& config, const FullTokenizer& tokenizer,
    DocumentReader* reader, RecordSink* sink, const BuildProgress& progress) {
  RETURN_IF_ERROR(ValidateInstanceConfig(config));
  ASSIGN_OR_RETURN(const VocabFacts vocab,
                   VocabFacts::FromVocab(tokenizer.vocab()));
  const RecordLayout layout = RecordLayout::For(config, vocab.vocab_size);
  const size_t record_bytes = static_cast<size_t>(layout.record_bytes());

  BuildStats stats;
  std::atomic<int64_t> tasks_done{0};
  const auto report = [&] {
    if (progress) progress(stats);
  };
  bool end_of_corpus = false;
  while (!end_of_corpus) {
    // Read one block.
    std::vector<Document> documents;
    int64_t block_bytes = 0;
    while (static_cast<int64_t>(documents.size()) <
               config.max_block_documents &&
           block_bytes < config.max_block_bytes) {
      Document document;
      ASSIGN_OR_RETURN(const bool got, reader->NextDocument(&document));
      if (!got) {
        end_of_corpus = true;
        break;
      }
      for (const std::string& sentence : document.sentences) {
        block_bytes += static_cast<int64_t>(sentence.size()) + 1;
      }
      documents.push_back(std::move(document));
    }
    if (documents.empty()) break;
    if (stats.documents_read + static_cast<int64_t>(documents.size()) >
        (int64_t{1} << 32)) {
      return absl::OutOfRangeError(
          "more than 2^32 documents: the random streams are addressed by a "
          "32-bit document ordinal");
    }
    const uint64_t first_ordinal = static_cast<uint64_t>(stats.documents_read);
    const int64_t block_index = stats.blocks++;
    stats.documents_read += static_cast<int64_t>(documents.size());
    stats.text_bytes += block_bytes;
    report();

    // Tokenize.
    std::vector<TokenizedDocument> block(documents.size());
    const int64_t tokenized_before = stats.documents_tokenized;
    tasks_done = 0;
    ForEachTask(
        static_cast<int64_t>(documents.size()),
        [&](int64_t index) {
          block[index] = TokenizeDocument(tokenizer, documents[index],
                                          first_ordinal + index);
          std::vector<std::string>().swap(documents[index].sentences);
          tasks_done.fetch_add(1);
        },
        [&] {
          stats.documents_tokenized = tokenized_before + tasks_done.load();
          report();
        });
    stats.documents_tokenized = tokenized_before + tasks_done.load();
    documents.clear();
    documents.shrink_to_fit();
    block.erase(std::remove_if(block.begin(), block.end(),
                               [](const TokenizedDocument& document) {
                                 return document.num_sentences() == 0;
                               }),
                block.end());
    for (const TokenizedDocument& document : block) {
      stats.sentences += document.num_sentences();
      stats.tokens += static_cast<int64_t>(document.tokens.size());
    }
    stats.documents_used += static_cast<int64_t>(block.size());
    if (block.empty()) continue;

    // Build every pass of every document; task = dupe * documents + index.
    const int64_t num_documents = static_cast<int64_t>(block.size());
    const int64_t num_tasks = config.dupe_factor * num_documents;
    std::vector<std::string> task_records(num_tasks);
    ForEachTask(
        num_tasks,
        [&](int64_t task) {
          std::vector<TrainingInstance> instances;
          CreateInstancesFromDocument(
              config, vocab, block, static_cast<int>(task % num_documents),
              static_cast<int>(task / num_documents), &instances);
          std::string& records = task_records[task];
          records.resize(instances.size() * record_bytes);
          for (size_t i = 0; i < instances.size(); ++i) {
            EncodeRecord(layout, instances[i],
                         records.data() + i * record_bytes);
          }
        },
        [&] { report(); });

    // Shuffle all instances of the block (Fisher-Yates) and write them.
    std::vector<const char*> records;
    for (const std::string& task : task_records) {
      for (size_t offset = 0; offset < task.size(); offset += record_bytes) {
        records.push_back(task.data() + offset);
      }
    }
    if (records.size() >= (size_t{1} << 31)) {
      return absl::OutOfRangeError(absl::StrCat(
          "block ", block_index, " holds ", records.size(),
          " instances, more than the shuffle handles (2^31 - 1); lower "
          "max_block_bytes or max_block_documents"));
    }
    RandomDraws shuffle_rng(ShuffleStream(config.seed, block_index), 0);
    for (int i = static_cast<int>(records.size()) - 1; i > 0; --i) {
      std::swap(records[i], records[shuffle_rng.UniformInt(0, i)]);
    }
    for (const char* record : records) {
      RETURN_IF_ERROR(sink->AddRecord(absl::string_view(record, record_bytes)));
      ++stats.instances;
    }
    report();
  }
  return stats;
}

}  // namespace bertlab
