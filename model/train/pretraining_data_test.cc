#include "model/train/pretraining_data.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/train/test_shards.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string TempDir(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/", name);
}

TEST(ShardDatasetTest, NumbersInstancesAcrossShardsAndDirectories) {
  TinyShardOptions options;
  options.num_instances = 23;
  options.instances_per_shard = 5;  // 5 shards, the last with 3
  const std::string first = TempDir("dataset_a");
  ASSERT_TRUE(WriteTinyShards(first, options).ok());
  TinyShardOptions more = options;
  more.num_instances = 4;
  const std::string second = TempDir("dataset_b");
  ASSERT_TRUE(WriteTinyShards(second, more).ok());

  absl::StatusOr<std::unique_ptr<ShardDataset>> dataset =
      ShardDataset::Open({first, second}, {});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ((*dataset)->size(), 27);
  EXPECT_EQ((*dataset)->num_shards(), 6);
  EXPECT_THAT((*dataset)->Describe(), HasSubstr("27 instances in 6 shards"));
  TrainingInstance instance;
  for (int64_t i = 0; i < 27; ++i) {
    ASSERT_TRUE((*dataset)->Get(i, &instance).ok());
    EXPECT_EQ(instance, TinyInstance(options, i < 23 ? i : i - 23)) << i;
  }
}

TEST(ShardDatasetTest, RefusesShardsMadeDifferentlyFromTheFirst) {
  TinyShardOptions options;
  options.num_instances = 6;
  const std::string first = TempDir("differ_a");
  ASSERT_TRUE(WriteTinyShards(first, options).ok());
  TinyShardOptions other = options;
  other.max_predictions_per_seq = 4;
  const std::string second = TempDir("differ_b");
  ASSERT_TRUE(WriteTinyShards(second, other).ok());
  absl::StatusOr<std::unique_ptr<ShardDataset>> dataset =
      ShardDataset::Open({first, second}, {});
  ASSERT_FALSE(dataset.ok());
  EXPECT_THAT(dataset.status().message(), HasSubstr("max_predictions_per_seq"));
}

TEST(ShardDatasetTest, RandomAccessMatchesTheWrittenInstances) {
  TinyShardOptions options;
  options.num_instances = 23;
  options.instances_per_shard = 5;
  const std::string dir = TempDir("random_access");
  ASSERT_TRUE(WriteTinyShards(dir, options).ok());
  absl::StatusOr<std::unique_ptr<ShardDataset>> dataset =
      ShardDataset::Open({dir}, {});
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ((*dataset)->size(), 23);
  EXPECT_EQ((*dataset)->num_shards(), 5);
  TrainingInstance instance;
  for (int64_t i : {22, 0, 7, 5, 4, 19, 20}) {
    ASSERT_TRUE((*dataset)->Get(i, &instance).ok());
    EXPECT_EQ(instance, TinyInstance(options, i)) << i;
  }
}

TEST(ShardDatasetTest, ChecksExpectations) {
  TinyShardOptions options;
  options.num_instances = 3;
  const std::string dir = TempDir("expectations");
  ASSERT_TRUE(WriteTinyShards(dir, options).ok());
  ShardExpectations expectations;
  expectations.objective = LanguageModel::kLeftToRight;
  absl::StatusOr<std::unique_ptr<ShardDataset>> dataset =
      ShardDataset::Open({dir}, expectations);
  ASSERT_FALSE(dataset.ok());
  EXPECT_THAT(dataset.status().message(), HasSubstr("objective mlm"));
  expectations = {};
  expectations.max_seq_length = 32;
  dataset = ShardDataset::Open({dir}, expectations);
  ASSERT_FALSE(dataset.ok());
  EXPECT_THAT(dataset.status().message(), HasSubstr("max_seq_length 16"));
  EXPECT_FALSE(ShardDataset::Open({TempDir("no_such_dir")}, {}).ok());
}

TEST(EpochPermutationTest, IsADeterministicPermutationPerEpoch) {
  const std::vector<uint32_t> a = EpochPermutation(7, 3, 0, 1000);
  const std::vector<uint32_t> again = EpochPermutation(7, 3, 0, 1000);
  const std::vector<uint32_t> next_epoch = EpochPermutation(7, 3, 1, 1000);
  const std::vector<uint32_t> other_seed = EpochPermutation(8, 3, 0, 1000);
  EXPECT_EQ(a, again);
  EXPECT_NE(a, next_epoch);
  EXPECT_NE(a, other_seed);
  std::vector<uint32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint32_t> identity(1000);
  std::iota(identity.begin(), identity.end(), 0u);
  EXPECT_EQ(sorted, identity);
  EXPECT_NE(a, identity);
  EXPECT_THAT(EpochPermutation(7, 3, 0, 1), ElementsAre(0u));
  EXPECT_TRUE(EpochPermutation(7, 3, 0, 0).empty());
}

TEST(InstanceOrderTest, WalksEpochsAndResumesFromAPosition) {
  InstanceOrder order(10, 15, 99, 4, {});
  std::vector<int64_t> walk;
  std::vector<DataPosition> positions;
  for (int i = 0; i < 12; ++i) {
    positions.push_back(order.position());
    walk.push_back(order.Next());
  }
  // Each epoch visits [10, 15) once.
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::set<int64_t> seen(walk.begin() + 5 * epoch,
                           walk.begin() + 5 * epoch + 5);
    EXPECT_EQ(seen, (std::set<int64_t>{10, 11, 12, 13, 14}));
  }
  EXPECT_EQ(order.position(), (DataPosition{2, 2}));
  // Starting from any recorded position continues the same walk.
  for (int start : {0, 3, 5, 7}) {
    InstanceOrder resumed(10, 15, 99, 4, positions[start]);
    for (int i = start; i < 12; ++i) {
      EXPECT_EQ(resumed.Next(), walk[i]) << "from " << start << " at " << i;
    }
  }
}

TrainingInstance MaskedInstance() {
  TrainingInstance instance;
  instance.input_ids = {2, 10, 4, 3, 12, 4, 3};
  instance.segment_ids = {0, 0, 0, 0, 1, 1, 1};
  instance.masked_lm_positions = {2, 5};
  instance.masked_lm_ids = {11, 13};
  instance.next_sentence_label = 1;
  return instance;
}

TEST(PretrainingBatchTest, MaskedLmWithNextSentence) {
  PretrainingBatch batch(LanguageModel::kMaskedLm, true, 2, 8, 3);
  EXPECT_EQ(batch.max_predictions(), 6);
  TrainingInstance second = MaskedInstance();
  second.next_sentence_label = 0;
  batch.Add(MaskedInstance());
  batch.Add(second);
  ASSERT_TRUE(batch.full());
  const EncoderBatch encoder = batch.encoder_batch();
  EXPECT_EQ(encoder.batch, 2);
  EXPECT_EQ(encoder.seq_len, 8);
  EXPECT_THAT(std::vector<int32_t>(encoder.input_ids, encoder.input_ids + 8),
              ElementsAre(2, 10, 4, 3, 12, 4, 3, 0));
  EXPECT_THAT(
      std::vector<int32_t>(encoder.token_type_ids, encoder.token_type_ids + 8),
      ElementsAre(0, 0, 0, 0, 1, 1, 1, 0));
  EXPECT_THAT(std::vector<int32_t>(encoder.attention_mask + 8,
                                   encoder.attention_mask + 16),
              ElementsAre(1, 1, 1, 1, 1, 1, 1, 0));
  const PretrainingTargets targets = batch.targets();
  ASSERT_EQ(targets.num_predictions, 4);
  EXPECT_THAT(std::vector<int32_t>(targets.positions, targets.positions + 4),
              ElementsAre(2, 5, 10, 13));
  EXPECT_THAT(std::vector<int32_t>(targets.labels, targets.labels + 4),
              ElementsAre(11, 13, 11, 13));
  ASSERT_NE(targets.next_sentence_labels, nullptr);
  EXPECT_THAT(std::vector<int32_t>(targets.next_sentence_labels,
                                   targets.next_sentence_labels + 2),
              ElementsAre(1, 0));
  EXPECT_EQ(batch.real_tokens(), 14);
}

TEST(PretrainingBatchTest, NoNspHasNoNextSentenceLabels) {
  PretrainingBatch batch(LanguageModel::kMaskedLm, false, 1, 8, 3);
  batch.Add(MaskedInstance());
  EXPECT_EQ(batch.targets().next_sentence_labels, nullptr);
  EXPECT_EQ(batch.targets().num_predictions, 2);
}

// Two [CLS] text [SEP] rows (5 and 4 tokens) in a batch of 2 x 6, as both
// LM directions read them.
PretrainingBatch TwoLanguageModelRows(LanguageModel objective) {
  PretrainingBatch batch(objective, false, 2, 6, 0);
  EXPECT_EQ(batch.max_predictions(), 10);
  TrainingInstance a;
  a.input_ids = {2, 7, 8, 9, 3};
  a.segment_ids.assign(5, 0);
  TrainingInstance b;
  b.input_ids = {2, 20, 21, 3};
  b.segment_ids.assign(4, 0);
  batch.Add(a);
  batch.Add(b);
  return batch;
}

TEST(PretrainingBatchTest, LeftToRightPredictsEveryNextToken) {
  const PretrainingBatch batch =
      TwoLanguageModelRows(LanguageModel::kLeftToRight);
  const PretrainingTargets targets = batch.targets();
  ASSERT_EQ(targets.num_predictions, 7);
  EXPECT_THAT(std::vector<int32_t>(targets.positions, targets.positions + 7),
              ElementsAre(0, 1, 2, 3, 6, 7, 8));
  EXPECT_THAT(std::vector<int32_t>(targets.labels, targets.labels + 7),
              ElementsAre(7, 8, 9, 3, 20, 21, 3));
  EXPECT_EQ(targets.next_sentence_labels, nullptr);
}

TEST(PretrainingBatchTest, RightToLeftPredictsEveryPreviousToken) {
  const PretrainingBatch batch =
      TwoLanguageModelRows(LanguageModel::kRightToLeft);
  const PretrainingTargets targets = batch.targets();
  // [CLS] (positions 0 and 6) and the padding (5, 10, 11) predict nothing.
  ASSERT_EQ(targets.num_predictions, 7);
  EXPECT_THAT(std::vector<int32_t>(targets.positions, targets.positions + 7),
              ElementsAre(1, 2, 3, 4, 7, 8, 9));
  EXPECT_THAT(std::vector<int32_t>(targets.labels, targets.labels + 7),
              ElementsAre(2, 7, 8, 9, 2, 20, 21));
  EXPECT_EQ(targets.next_sentence_labels, nullptr);
}

TEST(PretrainingBatchTest, PaddedRowsCarryNoTargets) {
  PretrainingBatch batch(LanguageModel::kMaskedLm, true, 3, 8, 3);
  batch.Add(MaskedInstance());
  batch.PadWithEmptyRows();
  ASSERT_TRUE(batch.full());
  const PretrainingTargets targets = batch.targets();
  EXPECT_EQ(targets.num_predictions, 2);
  EXPECT_THAT(std::vector<int32_t>(targets.next_sentence_labels,
                                   targets.next_sentence_labels + 3),
              ElementsAre(1, kIgnoreLabel, kIgnoreLabel));
  const EncoderBatch encoder = batch.encoder_batch();
  EXPECT_EQ(
      std::count(encoder.attention_mask + 8, encoder.attention_mask + 24, 1),
      0);
  // Clear() starts over.
  batch.Clear();
  EXPECT_EQ(batch.size(), 0);
  batch.Add(MaskedInstance());
  EXPECT_EQ(batch.real_tokens(), 7);
}

}  // namespace
}  // namespace bertlab
