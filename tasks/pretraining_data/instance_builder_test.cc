// Exact semantics of the instance builder on hand-made documents whose ids
// say where each token came from: id = 100 + 10000 * document +
// 100 * sentence + position.
#include "tasks/pretraining_data/instance_builder.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/parallel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/pretraining_data/test_corpus.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kCls = 2;
constexpr int kSep = 3;
constexpr int kMask = 4;
constexpr int kHandMadeVocabSize = 1000000;

int32_t TokenId(int document, int sentence, int position) {
  return 100 + 10000 * document + 100 * sentence + position;
}
int DocumentOf(int32_t id) { return (id - 100) / 10000; }
int SentenceOf(int32_t id) { return (id - 100) % 10000 / 100; }
int PositionOf(int32_t id) { return (id - 100) % 100; }

TokenizedDocument MakeDocument(int document,
                               const std::vector<int>& sentence_lengths) {
  TokenizedDocument tokenized;
  tokenized.ordinal = static_cast<uint64_t>(document);
  for (int s = 0; s < static_cast<int>(sentence_lengths.size()); ++s) {
    std::vector<int32_t> ids;
    for (int p = 0; p < sentence_lengths[s]; ++p) {
      ids.push_back(TokenId(document, s, p));
    }
    tokenized.AddSentence(ids);
  }
  return tokenized;
}

// A block of `num_documents` documents with sentence lengths drawn from
// [min_length, max_length] and [1, max_sentences] sentences.
std::vector<TokenizedDocument> MakeBlock(int num_documents, int max_sentences,
                                         int min_length, int max_length,
                                         uint64_t seed) {
  RandomDraws rng(PhiloxStream{seed, 9, 9}, 0);
  std::vector<TokenizedDocument> block;
  for (int d = 0; d < num_documents; ++d) {
    std::vector<int> lengths(rng.UniformInt(1, max_sentences));
    for (int& length : lengths) length = rng.UniformInt(min_length, max_length);
    block.push_back(MakeDocument(d, lengths));
  }
  return block;
}

struct Segments {
  std::vector<int32_t> a;
  std::vector<int32_t> b;
};

// Checks the [CLS] A [SEP] B [SEP] layout and the segment ids; returns A and
// B with the masked ids put back.
Segments CheckLayout(const TrainingInstance& instance, int max_seq_length) {
  const std::vector<int32_t> ids = OriginalIds(instance);
  const int n = instance.num_tokens();
  EXPECT_LE(n, max_seq_length);
  EXPECT_EQ(instance.segment_ids.size(), ids.size());
  EXPECT_EQ(ids.front(), kCls);
  EXPECT_EQ(ids.back(), kSep);
  const auto first_sep = std::find(ids.begin(), ids.end(), kSep);
  const int a_length = static_cast<int>(first_sep - ids.begin()) - 1;
  EXPECT_GE(a_length, 1);
  EXPECT_LE(a_length + 3, n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(instance.segment_ids[i], i <= a_length + 1 ? 0 : 1) << i;
    if (i != 0 && i != a_length + 1 && i != n - 1) {
      EXPECT_NE(ids[i], kSep);
      EXPECT_NE(ids[i], kCls);
    }
  }
  Segments segments;
  segments.a.assign(ids.begin() + 1, ids.begin() + 1 + a_length);
  segments.b.assign(ids.begin() + 2 + a_length, ids.end() - 1);
  EXPECT_GE(segments.b.size(), 1u);
  return segments;
}

// The tokens of `document`'s sentences [first, last).
std::vector<int32_t> Sentences(const TokenizedDocument& document, int first,
                               int last) {
  return std::vector<int32_t>(
      document.tokens.begin() + document.sentence_starts[first],
      document.tokens.begin() + document.sentence_starts[last]);
}

// The number of whole sentences of `document` that `tokens` spans starting at
// sentence `first`, or -1 when `tokens` is not such a run.
int WholeSentencesFrom(const TokenizedDocument& document, int first,
                       const std::vector<int32_t>& tokens) {
  for (int last = first + 1; last <= document.num_sentences(); ++last) {
    if (Sentences(document, first, last) == tokens) return last - first;
  }
  return -1;
}

TEST(RandomDrawsTest, UniformIntCoversItsRangeAndNothingElse) {
  RandomDraws rng(PhiloxStream{1, 2, 3}, 0);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const int value = rng.UniformInt(3, 9);
    ASSERT_GE(value, 3);
    ASSERT_LE(value, 9);
    ++counts[value - 3];
  }
  // Binomial(7000, 1/7): mean 1000, sd 29; 5 sd.
  for (int count : counts) EXPECT_NEAR(count, 1000, 5 * 29.3);
  EXPECT_EQ(rng.UniformInt(5, 5), 5);
  // The same stream and index give the same numbers.
  RandomDraws again(PhiloxStream{1, 2, 3}, 0);
  RandomDraws fresh(PhiloxStream{1, 2, 3}, 0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(again.Bits(), fresh.Bits());
  EXPECT_EQ(RandomDraws(PhiloxStream{1, 2, 3}, 5).Bits(),
            PhiloxBits(PhiloxStream{1, 2, 3}, 5));
}

TEST(InstanceBuilderTest, OneChunkIsSplitIntoAAndItsActualNext) {
  // Three short sentences: one chunk (9 tokens < target 125), split at
  // a_end; with the actual next, A + B is the whole document.
  InstanceConfig config;
  config.short_seq_prob = 0;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block = {MakeDocument(0, {2, 3, 4}),
                                                MakeDocument(1, {5, 5})};
  bool saw_actual_next = false;
  for (int dupe = 0; dupe < 40; ++dupe) {
    std::vector<TrainingInstance> instances;
    CreateInstancesFromDocument(config, vocab, block, 0, dupe, &instances);
    ASSERT_FALSE(instances.empty());
    if (instances[0].next_sentence_label != 0) continue;
    saw_actual_next = true;
    ASSERT_EQ(instances.size(), 1u);
    const Segments segments = CheckLayout(instances[0], config.max_seq_length);
    std::vector<int32_t> whole = segments.a;
    whole.insert(whole.end(), segments.b.begin(), segments.b.end());
    EXPECT_EQ(whole, block[0].tokens);
    EXPECT_TRUE(segments.a.size() == 2 || segments.a.size() == 5);
    EXPECT_EQ(instances[0].num_tokens(), 12);
  }
  EXPECT_TRUE(saw_actual_next);
}

TEST(InstanceBuilderTest, UnusedSentencesArePutBack) {
  // No truncation happens here (documents have at most 60 tokens), so every
  // instance consists of whole sentences. Walking a document's instances in
  // order: A starts where the previous instance left off; an actual next B
  // follows A; a random B leaves the rest of the chunk for the next
  // instance. Together the A's and actual B's cover the document once.
  InstanceConfig config;
  config.short_seq_prob = 0;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block =
      MakeBlock(30, /*max_sentences=*/12, /*min_length=*/1, /*max_length=*/5,
                /*seed=*/1);
  int put_back_instances = 0;
  for (int dupe = 0; dupe < 3; ++dupe) {
    for (int d = 0; d < static_cast<int>(block.size()); ++d) {
      const TokenizedDocument& document = block[d];
      std::vector<TrainingInstance> instances;
      CreateInstancesFromDocument(config, vocab, block, d, dupe, &instances);
      int cursor = 0;
      for (const TrainingInstance& instance : instances) {
        const Segments segments = CheckLayout(instance, config.max_seq_length);
        const int a_sentences =
            WholeSentencesFrom(document, cursor, segments.a);
        ASSERT_GE(a_sentences, 1) << "A must start at sentence " << cursor;
        if (instance.next_sentence_label == 0) {
          const int b_sentences =
              WholeSentencesFrom(document, cursor + a_sentences, segments.b);
          ASSERT_GE(b_sentences, 1);
          cursor += a_sentences + b_sentences;
        } else {
          const int source = DocumentOf(segments.b[0]);
          EXPECT_NE(source, d) << "a random B comes from another document";
          const TokenizedDocument& random_document = block[source];
          const int start = SentenceOf(segments.b[0]);
          const int b_sentences =
              WholeSentencesFrom(random_document, start, segments.b);
          ASSERT_GE(b_sentences, 1);
          // B grows until it reaches target - len(A) or its document ends.
          const int target_b = 125 - static_cast<int>(segments.a.size());
          if (start + b_sentences < random_document.num_sentences()) {
            EXPECT_GE(static_cast<int>(segments.b.size()), target_b);
          }
          // Put back: the chunk ended at the document's last sentence; what
          // A did not use comes next.
          if (cursor + a_sentences < document.num_sentences()) {
            ++put_back_instances;
          }
          cursor += a_sentences;
        }
      }
      EXPECT_EQ(cursor, document.num_sentences());
    }
  }
  EXPECT_GT(put_back_instances, 10);
}

TEST(InstanceBuilderTest, TruncationKeepsContiguousRunsWithinTheLimit) {
  InstanceConfig config;
  config.max_seq_length = 32;
  config.max_predictions_per_seq = 5;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block =
      MakeBlock(20, /*max_sentences=*/6, /*min_length=*/10, /*max_length=*/60,
                /*seed=*/2);
  int full_length = 0;
  int total = 0;
  for (int dupe = 0; dupe < 5; ++dupe) {
    for (int d = 0; d < static_cast<int>(block.size()); ++d) {
      std::vector<TrainingInstance> instances;
      CreateInstancesFromDocument(config, vocab, block, d, dupe, &instances);
      for (const TrainingInstance& instance : instances) {
        ++total;
        const Segments segments = CheckLayout(instance, config.max_seq_length);
        if (instance.num_tokens() == 32) ++full_length;
        // Each side is a run of consecutive tokens of one document.
        for (const std::vector<int32_t>* side : {&segments.a, &segments.b}) {
          const TokenizedDocument& source = block[DocumentOf((*side)[0])];
          auto start =
              std::find(source.tokens.begin(), source.tokens.end(), (*side)[0]);
          ASSERT_NE(start, source.tokens.end());
          ASSERT_LE(side->size(),
                    static_cast<size_t>(source.tokens.end() - start));
          EXPECT_TRUE(std::equal(side->begin(), side->end(), start));
        }
        EXPECT_EQ(DocumentOf(segments.a[0]), d);
        if (instance.next_sentence_label == 0) {
          EXPECT_EQ(DocumentOf(segments.b[0]), d);
          EXPECT_LT(std::make_pair(SentenceOf(segments.a.back()),
                                   PositionOf(segments.a.back())),
                    std::make_pair(SentenceOf(segments.b[0]),
                                   PositionOf(segments.b[0])));
        }
      }
    }
  }
  // Long sentences fill almost every instance up to the limit.
  EXPECT_GT(full_length, total * 8 / 10);
}

TEST(InstanceBuilderTest, TruncateSeqPairShortensTheLongerSideFromEitherEnd) {
  const std::vector<int32_t> a_tokens = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<int32_t> b_tokens = {11, 12, 13};
  int front_removals = 0;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    RandomDraws rng(PhiloxStream{seed, 0, 0}, 0);
    absl::Span<const int32_t> a(a_tokens);
    absl::Span<const int32_t> b(b_tokens);
    TruncateSeqPair(8, &rng, &a, &b);
    EXPECT_EQ(a.size(), 5u);
    EXPECT_EQ(b.size(), 3u);
    EXPECT_GE(a.data(), a_tokens.data());
    front_removals += static_cast<int>(a.data() - a_tokens.data());
  }
  // 250 removals, each from the front with p = 0.5: 125 +- 5 sd (7.9).
  EXPECT_NEAR(front_removals, 125, 5 * 7.91);
  // On a tie the reference trims B first.
  RandomDraws rng(PhiloxStream{0, 0, 0}, 0);
  absl::Span<const int32_t> a(a_tokens.data(), 4);
  absl::Span<const int32_t> b(b_tokens.data(), 3);
  absl::Span<const int32_t> b_longer(a_tokens.data() + 4, 4);
  TruncateSeqPair(7, &rng, &a, &b_longer);
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(b_longer.size(), 3u);
  TruncateSeqPair(7, &rng, &a, &b);  // already fits
  EXPECT_EQ(a.size() + b.size(), 7u);
}

TEST(InstanceBuilderTest, RandomNextNeverComesFromTheSameDocument) {
  InstanceConfig config;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block =
      MakeBlock(3, /*max_sentences=*/10, /*min_length=*/5, /*max_length=*/30,
                /*seed=*/3);
  int random_next = 0;
  for (int dupe = 0; dupe < 100; ++dupe) {
    for (int d = 0; d < 3; ++d) {
      std::vector<TrainingInstance> instances;
      CreateInstancesFromDocument(config, vocab, block, d, dupe, &instances);
      for (const TrainingInstance& instance : instances) {
        if (instance.next_sentence_label == 0) continue;
        ++random_next;
        // With 3 documents, 10 draws all hitting the current one has
        // probability 3^-10 per instance.
        EXPECT_NE(DocumentOf(OriginalIds(instance)[instance.num_tokens() - 2]),
                  d);
      }
    }
  }
  EXPECT_GT(random_next, 100);
  // A block of one document: after 10 draws the reference settles for it.
  const std::vector<TokenizedDocument> alone = {MakeDocument(0, {3, 3, 3})};
  std::vector<TrainingInstance> instances;
  CreateInstancesFromDocument(config, vocab, alone, 0, 0, &instances);
  for (const TrainingInstance& instance : instances) {
    EXPECT_EQ(DocumentOf(OriginalIds(instance)[instance.num_tokens() - 2]), 0);
  }
}

TEST(InstanceBuilderTest, ShortTargetsComeFromShortSeqProb) {
  // Sentences of 4 tokens, documents of 200 tokens. With target 125 a chunk
  // holds >= 125 tokens unless it ends the document, and a random B grows to
  // the target, so most instances are full (128). With short_seq_prob = 1
  // the targets are random in [2, 125].
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  constexpr int kDocuments = 100;
  std::vector<TokenizedDocument> block;
  for (int d = 0; d < kDocuments; ++d) {
    block.push_back(MakeDocument(d, std::vector<int>(50, 4)));
  }
  for (const double short_seq_prob : {0.0, 1.0}) {
    InstanceConfig config;
    config.short_seq_prob = short_seq_prob;
    int64_t tokens = 0;
    int64_t instances_made = 0;
    for (int d = 0; d < kDocuments; ++d) {
      std::vector<TrainingInstance> instances;
      CreateInstancesFromDocument(config, vocab, block, d, 0, &instances);
      instances_made += static_cast<int64_t>(instances.size());
      for (const TrainingInstance& instance : instances) {
        tokens += instance.num_tokens();
      }
    }
    const double mean_length = static_cast<double>(tokens) / instances_made;
    // Full instances (128) except at document ends; with random targets
    // short documents-and-passes yield many short instances.
    if (short_seq_prob == 0) {
      EXPECT_GT(mean_length, 95);
    } else {
      EXPECT_LT(mean_length, 50);
    }
  }
}

TEST(InstanceBuilderTest, MaskedLmCountRoundsHalfToEvenLikePython3) {
  // round(len(tokens) * 0.15): 10 -> 1.5 -> 2, 30 -> 4.5 -> 4,
  // 50 -> 7.5 -> 8, 3 -> 0.45 -> max(1, 0) = 1, 200 -> 30 -> 20 (cap).
  InstanceConfig config;
  config.max_seq_length = 256;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  for (const auto& [length, expected] : std::vector<std::pair<int, int>>{
           {10, 2}, {30, 4}, {50, 8}, {3, 1}, {200, 20}, {20, 3}}) {
    TrainingInstance instance;
    instance.input_ids.push_back(kCls);
    for (int i = 0; i < length - 2; ++i) instance.input_ids.push_back(1000 + i);
    instance.input_ids.push_back(kSep);
    instance.segment_ids.assign(length, 0);
    RandomDraws order(PhiloxStream{1, 1, 1}, 0);
    RandomDraws choice(PhiloxStream{1, 1, 2}, 0);
    CreateMaskedLmPredictions(config, vocab, &order, &choice, &instance);
    EXPECT_EQ(instance.masked_lm_positions.size(),
              static_cast<size_t>(expected))
        << "length " << length;
    EXPECT_TRUE(std::is_sorted(instance.masked_lm_positions.begin(),
                               instance.masked_lm_positions.end()));
    for (size_t k = 0; k < instance.masked_lm_positions.size(); ++k) {
      const int position = instance.masked_lm_positions[k];
      EXPECT_GT(position, 0);
      EXPECT_LT(position, length - 1);
      EXPECT_EQ(instance.masked_lm_ids[k], 1000 + position - 1);
    }
  }
}

TEST(InstanceBuilderTest, SpecialTokensAreNeverCandidatesWhereverTheyAre) {
  // The reference compares token strings, so a [SEP] inside the text is no
  // candidate either.
  InstanceConfig config;
  config.masked_lm_prob = 1.0;
  config.max_predictions_per_seq = 10;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  TrainingInstance instance;
  instance.input_ids = {kCls, 500, kSep, 501, kCls, 502, kSep};
  instance.segment_ids = {0, 0, 0, 1, 1, 1, 1};
  RandomDraws order(PhiloxStream{5, 0, 0}, 0);
  RandomDraws choice(PhiloxStream{5, 0, 1}, 0);
  CreateMaskedLmPredictions(config, vocab, &order, &choice, &instance);
  EXPECT_THAT(instance.masked_lm_positions, ElementsAre(1, 3, 5));
  EXPECT_THAT(instance.masked_lm_ids, ElementsAre(500, 501, 502));
}

TEST(InstanceBuilderTest, WholeWordGroupsIncludeContinuationsAcrossSep) {
  // With whole-word masking "##" pieces join the candidate before them, even
  // across a [SEP] as in the reference. Ids 10, 11 are continuations.
  InstanceConfig config;
  config.do_whole_word_mask = true;
  config.masked_lm_prob = 0.3;  // 9 tokens -> round(2.7) = 3
  config.max_predictions_per_seq = 3;
  VocabFacts vocab = HandMadeVocabFacts(100);
  vocab.is_continuation[10] = vocab.is_continuation[11] = true;
  int whole_group_chosen = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    TrainingInstance instance;
    // [CLS] w ##a [SEP] ##b v ##a x [SEP]: groups {1, 2, 4}, {5, 6}, {7}.
    instance.input_ids = {kCls, 50, 10, kSep, 11, 51, 10, 52, kSep};
    instance.segment_ids = {0, 0, 0, 0, 1, 1, 1, 1, 1};
    RandomDraws order(PhiloxStream{seed, 0, 0}, 0);
    RandomDraws choice(PhiloxStream{seed, 0, 1}, 0);
    CreateMaskedLmPredictions(config, vocab, &order, &choice, &instance);
    const std::vector<int32_t>& p = instance.masked_lm_positions;
    // 3 predictions: {1, 2, 4} alone, or {5, 6} + {7}; a group that would
    // overflow is skipped, never cut.
    if (p == std::vector<int32_t>{1, 2, 4}) {
      ++whole_group_chosen;
    } else {
      EXPECT_THAT(p, ElementsAre(5, 6, 7));
    }
  }
  // {1, 2, 4} is chosen exactly when it comes first: Binomial(200, 1/3),
  // 66.7 +- 5 sd (6.67).
  EXPECT_NEAR(whole_group_chosen, 66.7, 5 * 6.67);
}

TEST(InstanceBuilderTest, MaskingMixOnlyChangesWhatChosenPositionsBecome) {
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block =
      MakeBlock(10, /*max_sentences=*/10, /*min_length=*/3, /*max_length=*/25,
                /*seed=*/4);
  InstanceConfig bert;
  InstanceConfig all_mask = bert;
  all_mask.mask_fraction = 1;
  all_mask.random_fraction = 0;
  all_mask.keep_fraction = 0;
  InstanceConfig all_random = bert;
  all_random.mask_fraction = 0;
  all_random.random_fraction = 1;
  all_random.keep_fraction = 0;
  for (int d = 0; d < 10; ++d) {
    std::vector<TrainingInstance> with_bert, with_mask, with_random;
    CreateInstancesFromDocument(bert, vocab, block, d, 0, &with_bert);
    CreateInstancesFromDocument(all_mask, vocab, block, d, 0, &with_mask);
    CreateInstancesFromDocument(all_random, vocab, block, d, 0, &with_random);
    ASSERT_EQ(with_bert.size(), with_mask.size());
    ASSERT_EQ(with_bert.size(), with_random.size());
    for (size_t i = 0; i < with_bert.size(); ++i) {
      EXPECT_EQ(OriginalIds(with_bert[i]), OriginalIds(with_mask[i]));
      EXPECT_EQ(OriginalIds(with_bert[i]), OriginalIds(with_random[i]));
      EXPECT_EQ(with_bert[i].masked_lm_positions,
                with_mask[i].masked_lm_positions);
      EXPECT_EQ(with_bert[i].masked_lm_positions,
                with_random[i].masked_lm_positions);
      for (int position : with_mask[i].masked_lm_positions) {
        EXPECT_EQ(with_mask[i].input_ids[position], kMask);
      }
      for (int position : with_random[i].masked_lm_positions) {
        EXPECT_NE(with_random[i].input_ids[position], kMask);
      }
    }
  }
}

TEST(InstanceBuilderTest, LeftToRightCutsTheDocumentIntoContiguousWindows) {
  InstanceConfig config;
  config.objective = LanguageModel::kLeftToRight;
  config.max_seq_length = 16;
  config.short_seq_prob = 0;
  const VocabFacts vocab = HandMadeVocabFacts(kHandMadeVocabSize);
  const std::vector<TokenizedDocument> block = {
      MakeDocument(0, {5, 7, 9, 3, 11, 2})};  // 37 tokens
  std::vector<TrainingInstance> instances;
  CreateInstancesFromDocument(config, vocab, block, 0, 0, &instances);
  ASSERT_EQ(instances.size(), 3u);  // 14 + 14 + 9
  std::vector<int32_t> text;
  for (const TrainingInstance& instance : instances) {
    EXPECT_EQ(instance.input_ids.front(), kCls);
    EXPECT_EQ(instance.input_ids.back(), kSep);
    EXPECT_LE(instance.num_tokens(), 16);
    EXPECT_THAT(instance.segment_ids, ::testing::Each(0));
    EXPECT_TRUE(instance.masked_lm_positions.empty());
    EXPECT_EQ(instance.next_sentence_label, 0);
    text.insert(text.end(), instance.input_ids.begin() + 1,
                instance.input_ids.end() - 1);
  }
  EXPECT_EQ(instances[0].num_tokens(), 16);
  EXPECT_EQ(text, block[0].tokens);
  // A short target cuts shorter windows, still covering everything.
  config.short_seq_prob = 1;
  for (int dupe = 0; dupe < 20; ++dupe) {
    instances.clear();
    CreateInstancesFromDocument(config, vocab, block, 0, dupe, &instances);
    text.clear();
    for (const TrainingInstance& instance : instances) {
      EXPECT_GE(instance.num_tokens(), 3);
      text.insert(text.end(), instance.input_ids.begin() + 1,
                  instance.input_ids.end() - 1);
    }
    EXPECT_EQ(text, block[0].tokens);
  }
}

TEST(InstanceBuilderTest, VocabFactsNeedTheSpecialTokens) {
  absl::StatusOr<Vocab> vocab =
      Vocab::FromTokens({"[PAD]", "[CLS]", "[SEP]", "a", "##b"}, "tiny.txt");
  ASSERT_TRUE(vocab.ok());
  EXPECT_THAT(std::string(VocabFacts::FromVocab(*vocab).status().message()),
              HasSubstr("vocabulary tiny.txt has no [MASK] token"));
  absl::StatusOr<VocabFacts> facts =
      VocabFacts::FromVocab(SyntheticTokenizer().vocab());
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->cls_id, kCls);
  EXPECT_EQ(facts->sep_id, kSep);
  EXPECT_EQ(facts->mask_id, kMask);
  EXPECT_FALSE(facts->is_continuation[305]);  // s0
  EXPECT_TRUE(facts->is_continuation[355]);   // ##p0
}

TEST(InstanceBuilderTest, TokenizeDocumentDropsSentencesWithoutTokens) {
  const FullTokenizer tokenizer = SyntheticTokenizer();
  Document document;
  document.sentences = {"w1 s3p7", "   ", "W2"};
  const TokenizedDocument tokenized = TokenizeDocument(tokenizer, document, 7);
  EXPECT_EQ(tokenized.ordinal, 7u);
  EXPECT_EQ(tokenized.num_sentences(), 2);
  EXPECT_THAT(tokenized.tokens, ElementsAre(6, 308, 362, 7));
  EXPECT_THAT(tokenized.sentence_starts, ElementsAre(0, 3, 4));
}

TEST(InstanceBuilderTest, BuildsEveryPassOfEveryDocumentInBlocks) {
  // End to end through the reader: documents with no tokens are dropped, a
  // block of two documents still pairs them, and the instance count is the
  // sum over passes.
  const FullTokenizer tokenizer = SyntheticTokenizer();
  SyntheticCorpusOptions corpus;
  corpus.num_documents = 30;
  std::vector<Document> documents = SyntheticDocuments(corpus);
  documents.insert(documents.begin() + 5, Document{{"", "  "}, "empty"});
  InstanceConfig config;
  config.dupe_factor = 3;
  config.max_block_documents = 2;
  VectorDocumentReader reader(documents);
  CollectingSink sink(RecordLayout::For(config, kSyntheticVocabSize),
                      kSyntheticVocabSize);
  absl::StatusOr<BuildStats> stats =
      CreatePretrainingInstances(config, tokenizer, &reader, &sink);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->documents_read, 31);
  EXPECT_EQ(stats->documents_used, 30);
  EXPECT_EQ(stats->blocks, 16);
  EXPECT_EQ(stats->instances, static_cast<int64_t>(sink.instances().size()));

  // The same instances as building every document of every block directly
  // (block boundaries: ordinals [0, 2), [2, 4), ...).
  const absl::StatusOr<VocabFacts> vocab =
      VocabFacts::FromVocab(tokenizer.vocab());
  ASSERT_TRUE(vocab.ok());
  std::multiset<std::vector<int32_t>> expected;
  for (size_t first = 0; first < documents.size(); first += 2) {
    std::vector<TokenizedDocument> block;
    for (size_t i = first; i < first + 2 && i < documents.size(); ++i) {
      TokenizedDocument tokenized =
          TokenizeDocument(tokenizer, documents[i], i);
      if (tokenized.num_sentences() > 0) block.push_back(std::move(tokenized));
    }
    for (int dupe = 0; dupe < 3; ++dupe) {
      for (int d = 0; d < static_cast<int>(block.size()); ++d) {
        std::vector<TrainingInstance> instances;
        CreateInstancesFromDocument(config, *vocab, block, d, dupe, &instances);
        for (const TrainingInstance& instance : instances) {
          expected.insert(instance.input_ids);
        }
      }
    }
  }
  std::multiset<std::vector<int32_t>> actual;
  for (const TrainingInstance& instance : sink.instances()) {
    actual.insert(instance.input_ids);
  }
  EXPECT_TRUE(actual == expected);
}

TEST(InstanceBuilderTest, ReportsReaderErrors) {
  class FailingReader : public DocumentReader {
   public:
    absl::StatusOr<bool> NextDocument(Document*) override {
      return absl::DataLossError("corpus.txt:3: bad line");
    }
  };
  FailingReader reader;
  InstanceConfig config;
  CollectingSink sink(RecordLayout::For(config, kSyntheticVocabSize),
                      kSyntheticVocabSize);
  absl::StatusOr<BuildStats> stats =
      CreatePretrainingInstances(config, SyntheticTokenizer(), &reader, &sink);
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(stats.status().message()), HasSubstr("corpus.txt:3"));
  config.max_seq_length = 2;
  EXPECT_THAT(std::string(CreatePretrainingInstances(
                              config, SyntheticTokenizer(), &reader, &sink)
                              .status()
                              .message()),
              HasSubstr("max_seq_length = 2"));
}

}  // namespace
}  // namespace bertlab
