// Instance creation into shards, end to end: determinism (seed, thread
// count), round trips, the objectives.
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/file.h"
#include "common/parallel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/pretraining_data/instance_builder.h"
#include "tasks/pretraining_data/shard_format.h"
#include "tasks/pretraining_data/test_corpus.h"

namespace bertlab {
namespace {

std::string FreshDirectory(absl::string_view name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string path =
      absl::StrCat(root != nullptr ? root : "/tmp", "/", name);
  ::mkdir(path.c_str(), 0777);
  return path;
}

InstanceConfig SmallConfig() {
  InstanceConfig config;
  config.dupe_factor = 3;
  config.max_seq_length = 64;
  config.max_predictions_per_seq = 10;
  config.max_block_documents = 50;
  return config;
}

struct Shards {
  std::vector<std::string> paths;
  std::string bytes;  // every file, concatenated in order
  BuildStats stats;
};

// Builds shards of 100 instances from 200 synthetic documents into a new
// directory `name` with `threads` threads.
Shards MakeShards(const InstanceConfig& config, int threads,
                  absl::string_view name) {
  const FullTokenizer tokenizer = SyntheticTokenizer();
  SyntheticCorpusOptions corpus;
  corpus.num_documents = 200;
  VectorDocumentReader reader(SyntheticDocuments(corpus));
  ShardHeader header;
  header.config = config;
  header.tokenizer = TokenizerSettingsOf(UncasedOptions());
  header.vocab_hash = tokenizer.vocab().content_hash();
  header.vocab_size = tokenizer.vocab().size();
  ShardWriterOptions options;
  options.output_dir = FreshDirectory(name);
  options.instances_per_shard = 100;
  auto writer = ShardWriter::Create(header, options);
  CHECK_OK(writer.status());
  SetNumThreads(threads);
  absl::StatusOr<BuildStats> stats =
      CreatePretrainingInstances(config, tokenizer, &reader, writer->get());
  CHECK_OK(stats.status());
  auto paths = (*writer)->Finish();
  CHECK_OK(paths.status());
  Shards shards;
  shards.paths = *paths;
  shards.stats = *stats;
  for (const std::string& path : shards.paths) {
    auto contents = ReadFileToString(path);
    CHECK_OK(contents.status());
    shards.bytes += *contents;
  }
  return shards;
}

std::vector<TrainingInstance> ReadAll(const std::vector<std::string>& paths,
                                      const ShardExpectations& expectations) {
  std::vector<TrainingInstance> instances;
  for (const std::string& path : paths) {
    auto reader = ShardReader::Open(path, expectations);
    CHECK_OK(reader.status());
    TrainingInstance instance;
    while (true) {
      absl::StatusOr<bool> more = (*reader)->NextInstance(&instance);
      CHECK_OK(more.status());
      if (!*more) break;
      instances.push_back(instance);
    }
  }
  return instances;
}

TEST(CreateShardsTest, SameSeedGivesIdenticalBytesWithOneOrTwoThreads) {
  const Shards one_thread = MakeShards(SmallConfig(), 1, "one_thread");
  const Shards two_threads = MakeShards(SmallConfig(), 2, "two_threads");
  const Shards again = MakeShards(SmallConfig(), 2, "two_threads_again");
  EXPECT_GT(one_thread.stats.instances, 1000);
  EXPECT_GT(one_thread.paths.size(), 10u);
  EXPECT_EQ(one_thread.stats.blocks, 4);
  EXPECT_TRUE(one_thread.bytes == two_threads.bytes);
  EXPECT_TRUE(two_threads.bytes == again.bytes);
}

TEST(CreateShardsTest, DifferentSeedOrBlocksGiveDifferentData) {
  const Shards base = MakeShards(SmallConfig(), 2, "base");
  InstanceConfig other_seed = SmallConfig();
  other_seed.seed = 54321;
  const Shards reseeded = MakeShards(other_seed, 2, "reseeded");
  EXPECT_NE(base.bytes, reseeded.bytes);
  // Same corpus, so the instance count differs only through the draws.
  EXPECT_NEAR(reseeded.stats.instances, base.stats.instances,
              base.stats.instances / 10);
  InstanceConfig one_block = SmallConfig();
  one_block.max_block_documents = 1000;
  const Shards single = MakeShards(one_block, 2, "single_block");
  EXPECT_EQ(single.stats.blocks, 1);
  EXPECT_NE(base.bytes, single.bytes);
}

TEST(CreateShardsTest, ShardsReadBackAsWrittenWithTheirContract) {
  const InstanceConfig config = SmallConfig();
  const Shards shards = MakeShards(config, 2, "read_back");
  ShardExpectations expectations;
  expectations.vocab_hash = SyntheticTokenizer().vocab().content_hash();
  expectations.config = config;
  expectations.tokenizer = TokenizerSettingsOf(UncasedOptions());
  const std::vector<TrainingInstance> instances =
      ReadAll(shards.paths, expectations);
  ASSERT_EQ(static_cast<int64_t>(instances.size()), shards.stats.instances);
  int random_next = 0;
  for (const TrainingInstance& instance : instances) {
    EXPECT_LE(instance.num_tokens(), 64);
    EXPECT_EQ(instance.input_ids[0], 2);  // [CLS]
    EXPECT_GE(instance.masked_lm_positions.size(), 1u);
    EXPECT_LE(instance.masked_lm_positions.size(), 10u);
    random_next += instance.next_sentence_label;
  }
  // Short documents take a random B more often than half the time.
  EXPECT_GT(random_next, static_cast<int>(instances.size()) * 4 / 10);

  // The same instances as a sink that decodes in memory.
  const FullTokenizer tokenizer = SyntheticTokenizer();
  SyntheticCorpusOptions corpus;
  corpus.num_documents = 200;
  VectorDocumentReader reader(SyntheticDocuments(corpus));
  CollectingSink sink(RecordLayout::For(config, kSyntheticVocabSize),
                      kSyntheticVocabSize);
  ASSERT_TRUE(
      CreatePretrainingInstances(config, tokenizer, &reader, &sink).ok());
  EXPECT_TRUE(sink.instances() == instances);
}

TEST(CreateShardsTest, NoNspHasTheSameInstancesAndADifferentHeader) {
  InstanceConfig no_nsp = SmallConfig();
  no_nsp.next_sentence = false;
  const Shards with_nsp = MakeShards(SmallConfig(), 2, "with_nsp");
  const Shards without_nsp = MakeShards(no_nsp, 2, "without_nsp");
  ASSERT_EQ(with_nsp.paths.size(), without_nsp.paths.size());
  EXPECT_NE(with_nsp.bytes, without_nsp.bytes);
  const auto records = [](const Shards& shards) {
    std::vector<TrainingInstance> instances = ReadAll(shards.paths, {});
    return instances;
  };
  EXPECT_TRUE(records(with_nsp) == records(without_nsp));
  auto reader = ShardReader::Open(without_nsp.paths[0]);
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE((*reader)->header().config.next_sentence);
}

TEST(CreateShardsTest, LeftToRightShardsHoldContiguousText) {
  InstanceConfig config = SmallConfig();
  config.objective = LanguageModel::kLeftToRight;
  config.max_predictions_per_seq = 0;
  config.short_seq_prob = 0;
  config.dupe_factor = 1;
  const Shards shards = MakeShards(config, 2, "left_to_right");
  ShardExpectations expectations;
  expectations.objective = LanguageModel::kLeftToRight;
  const std::vector<TrainingInstance> instances =
      ReadAll(shards.paths, expectations);
  ASSERT_EQ(static_cast<int64_t>(instances.size()), shards.stats.instances);
  int64_t text_tokens = 0;
  int full = 0;
  for (const TrainingInstance& instance : instances) {
    EXPECT_EQ(instance.input_ids.front(), 2);
    EXPECT_EQ(instance.input_ids.back(), 3);
    EXPECT_THAT(instance.segment_ids, ::testing::Each(0));
    EXPECT_TRUE(instance.masked_lm_positions.empty());
    EXPECT_EQ(instance.next_sentence_label, 0);
    text_tokens += instance.num_tokens() - 2;
    if (instance.num_tokens() == 64) ++full;
  }
  // Every token of the corpus appears exactly once (one pass).
  EXPECT_EQ(text_tokens, shards.stats.tokens);
  EXPECT_GT(full, 0);
}

}  // namespace
}  // namespace bertlab
