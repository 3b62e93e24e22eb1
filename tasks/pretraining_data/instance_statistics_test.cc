// Statistical checks of the masking and next-sentence draws on a large
// synthetic sample. Every bound is 5 standard deviations of the binomial
// count (or of a sum of independent Bernoulli variables) it checks, so a
// correct builder fails one with probability below 1e-6, and the sample is
// fixed by the seed anyway.
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/pretraining_data/instance_builder.h"
#include "tasks/pretraining_data/test_corpus.h"

namespace bertlab {
namespace {

constexpr double kSigmas = 5.0;
constexpr int kCls = 2;
constexpr int kSep = 3;
constexpr int kMask = 4;

// The synthetic corpus, tokenized once: 1000 documents, about 200 tokens
// each.
const std::vector<TokenizedDocument>& Block() {
  static const std::vector<TokenizedDocument>* const block = [] {
    const FullTokenizer tokenizer = SyntheticTokenizer();
    SyntheticCorpusOptions options;
    options.num_documents = 1000;
    std::vector<Document> documents = SyntheticDocuments(options);
    auto* tokenized = new std::vector<TokenizedDocument>;
    for (size_t i = 0; i < documents.size(); ++i) {
      tokenized->push_back(TokenizeDocument(tokenizer, documents[i], i));
    }
    return tokenized;
  }();
  return *block;
}

const VocabFacts& Facts() {
  static const VocabFacts* const facts =
      new VocabFacts(*VocabFacts::FromVocab(SyntheticTokenizer().vocab()));
  return *facts;
}

// Every instance of every pass over Block().
std::vector<TrainingInstance> BuildAll(const InstanceConfig& config) {
  std::vector<TrainingInstance> instances;
  for (int dupe = 0; dupe < config.dupe_factor; ++dupe) {
    for (int d = 0; d < static_cast<int>(Block().size()); ++d) {
      CreateInstancesFromDocument(config, Facts(), Block(), d, dupe,
                                  &instances);
    }
  }
  return instances;
}

// Checks that `count` of `n` trials is within kSigmas of Binomial(n, p).
void ExpectBinomial(int64_t count, int64_t n, double p, const char* what) {
  const double mean = n * p;
  const double sd = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(count), mean, kSigmas * sd + 1e-9)
      << what << ": " << count << " of " << n << ", expected p = " << p;
}

struct MixCounts {
  int64_t selected = 0;
  int64_t masked = 0;     // became [MASK]
  int64_t unchanged = 0;  // kept the original id
  int64_t other = 0;      // became another id
};

MixCounts CountMix(const std::vector<TrainingInstance>& instances) {
  MixCounts counts;
  for (const TrainingInstance& instance : instances) {
    for (size_t k = 0; k < instance.masked_lm_positions.size(); ++k) {
      const int32_t now = instance.input_ids[instance.masked_lm_positions[k]];
      ++counts.selected;
      if (now == kMask) {
        ++counts.masked;
      } else if (now == instance.masked_lm_ids[k]) {
        ++counts.unchanged;
      } else {
        ++counts.other;
      }
    }
  }
  return counts;
}

// Expected shares of [MASK] / unchanged / other for a mix: a random id is
// uniform over the V ids, so it is [MASK] or the original with 1/V each.
void ExpectMix(const MixCounts& counts, double mask, double keep,
               double random) {
  const double v = kSyntheticVocabSize;
  ExpectBinomial(counts.masked, counts.selected, mask + random / v, "[MASK]");
  ExpectBinomial(counts.unchanged, counts.selected, keep + random / v,
                 "unchanged");
  ExpectBinomial(counts.other, counts.selected, random * (v - 2) / v,
                 "random other id");
}

TEST(InstanceStatisticsTest, SampleIsLarge) {
  InstanceConfig config;
  const size_t instances = BuildAll(config).size();
  ::testing::Test::RecordProperty("instances", static_cast<int>(instances));
  EXPECT_GT(instances, 20000u);
}

TEST(InstanceStatisticsTest, SelectsFifteenPercentUniformlyNeverSpecials) {
  InstanceConfig config;
  const std::vector<TrainingInstance> instances = BuildAll(config);
  int64_t selected = 0;
  int64_t tokens = 0;
  // Classes of eligible positions: the first token of A, the B side. Within
  // an instance each of the e eligible positions is chosen with p = k / e;
  // the bound uses sum p (1 - p), which overstates the variance of sampling
  // without replacement.
  double first_expected = 0, first_variance = 0;
  double b_expected = 0, b_variance = 0;
  int64_t first_selected = 0, b_selected = 0;
  for (const TrainingInstance& instance : instances) {
    const std::vector<int32_t> ids = OriginalIds(instance);
    const int n = instance.num_tokens();
    const int k = static_cast<int>(instance.masked_lm_positions.size());
    EXPECT_EQ(
        k,
        std::min(20, std::max(1, static_cast<int>(std::nearbyint(n * 0.15)))));
    selected += k;
    tokens += n;
    int eligible = 0;
    int b_eligible = 0;
    for (int i = 0; i < n; ++i) {
      if (ids[i] == kCls || ids[i] == kSep) continue;
      ++eligible;
      if (instance.segment_ids[i] == 1) ++b_eligible;
    }
    const double p = static_cast<double>(k) / eligible;
    first_expected += p;
    first_variance += p * (1 - p);
    b_expected += p * b_eligible;
    b_variance += b_eligible * p * (1 - p);
    for (int position : instance.masked_lm_positions) {
      ASSERT_NE(ids[position], kCls);
      ASSERT_NE(ids[position], kSep);
      if (position == 1) ++first_selected;
      if (instance.segment_ids[position] == 1) ++b_selected;
    }
  }
  // round() moves each count by at most 0.5, so the overall fraction of
  // len(tokens) is 0.15 to within 0.5 / mean length.
  const double mean_length = static_cast<double>(tokens) / instances.size();
  EXPECT_NEAR(static_cast<double>(selected) / tokens, 0.15, 0.5 / mean_length);
  EXPECT_NEAR(first_selected, first_expected,
              kSigmas * std::sqrt(first_variance));
  EXPECT_NEAR(b_selected, b_expected, kSigmas * std::sqrt(b_variance));
}

TEST(InstanceStatisticsTest, EightyTenTenSplit) {
  InstanceConfig config;
  const MixCounts counts = CountMix(BuildAll(config));
  ::testing::Test::RecordProperty("selected",
                                  static_cast<int>(counts.selected));
  EXPECT_GT(counts.selected, 300000);
  ExpectMix(counts, 0.8, 0.1, 0.1);
}

TEST(InstanceStatisticsTest, MaskingMixIsConfigurable) {
  InstanceConfig all_mask;
  all_mask.dupe_factor = 3;
  all_mask.mask_fraction = 1;
  all_mask.random_fraction = 0;
  all_mask.keep_fraction = 0;
  const MixCounts mask_counts = CountMix(BuildAll(all_mask));
  EXPECT_EQ(mask_counts.masked, mask_counts.selected);

  // Table 8's "0% MASK, 20% SAME, 80% RND" row.
  InstanceConfig mostly_random;
  mostly_random.dupe_factor = 3;
  mostly_random.mask_fraction = 0;
  mostly_random.keep_fraction = 0.2;
  mostly_random.random_fraction = 0.8;
  ExpectMix(CountMix(BuildAll(mostly_random)), 0, 0.2, 0.8);
}

TEST(InstanceStatisticsTest, RandomNextCoinIsFair) {
  // Documents of two short sentences form one two-sentence chunk, so the
  // first instance of each document shows the coin: label 1 with p =
  // random_next_prob.
  std::vector<TokenizedDocument> block;
  for (int d = 0; d < 500; ++d) {
    TokenizedDocument document;
    document.ordinal = static_cast<uint64_t>(d);
    document.AddSentence(std::vector<int32_t>{100, 101, 102});
    document.AddSentence(std::vector<int32_t>{103, 104});
    block.push_back(std::move(document));
  }
  for (const double random_next_prob : {0.5, 0.2}) {
    InstanceConfig config;
    config.random_next_prob = random_next_prob;
    int64_t coins = 0;
    int64_t random_next = 0;
    for (int dupe = 0; dupe < 40; ++dupe) {
      for (int d = 0; d < 500; ++d) {
        std::vector<TrainingInstance> instances;
        CreateInstancesFromDocument(config, Facts(), block, d, dupe,
                                    &instances);
        ++coins;
        random_next += instances[0].next_sentence_label;
        // Random next puts the second sentence back: it becomes a
        // one-sentence chunk, which always takes a random B.
        ASSERT_EQ(instances.size(),
                  instances[0].next_sentence_label == 1 ? 2u : 1u);
      }
    }
    ExpectBinomial(random_next, coins, random_next_prob, "random next");
  }
}

TEST(InstanceStatisticsTest, WholeWordMaskingSelectsWholeWords) {
  // A word is a candidate group of the reference: a piece and the "##"
  // pieces after it ([CLS]/[SEP] skipped). With whole-word masking every
  // group is chosen entirely or not at all; without it, some are split.
  for (const bool whole_word : {true, false}) {
    InstanceConfig config;
    config.dupe_factor = 2;
    config.do_whole_word_mask = whole_word;
    int64_t split_groups = 0;
    int64_t chosen_groups = 0;
    for (const TrainingInstance& instance : BuildAll(config)) {
      const std::vector<int32_t> ids = OriginalIds(instance);
      std::vector<bool> chosen(ids.size(), false);
      for (int position : instance.masked_lm_positions) chosen[position] = true;
      std::vector<std::vector<int>> groups;
      for (int i = 0; i < static_cast<int>(ids.size()); ++i) {
        if (ids[i] == kCls || ids[i] == kSep) continue;
        if (!groups.empty() && Facts().is_continuation[ids[i]]) {
          groups.back().push_back(i);
        } else {
          groups.push_back({i});
        }
      }
      for (const std::vector<int>& group : groups) {
        int count = 0;
        for (int i : group) count += chosen[i] ? 1 : 0;
        if (count > 0) ++chosen_groups;
        if (count > 0 && count < static_cast<int>(group.size())) ++split_groups;
      }
    }
    EXPECT_GT(chosen_groups, 10000);
    if (whole_word) {
      EXPECT_EQ(split_groups, 0);
    } else {
      EXPECT_GT(split_groups, 100);
    }
  }
}

}  // namespace
}  // namespace bertlab
