#include "model/train/training_checkpoint.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/train/test_shards.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

std::string TempDir(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/", name);
}

TrainerState SomeState(int64_t step) {
  TrainerState state;
  state.step = step;
  state.skipped_steps = 2;
  state.phase = 1;
  state.data_position = {3, 17};
  state.seed = 12345;
  state.init_seed = 12345;
  state.dropout_seed = 0xfedcba9876543210ULL;  // above 2^63
  state.shuffle_seed = 42;
  state.run_config = "a: 1\nb: 2\n";
  state.run_config_hash = "0123456789abcdef";
  state.train_seconds = 1.25;
  state.tokens_seen = 4096;
  return state;
}

TEST(TrainerStateTest, JsonRoundTrips) {
  const TrainerState state = SomeState(100);
  absl::StatusOr<TrainerState> parsed =
      ParseTrainerStateJson(TrainerStateToJson(state), "state.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->step, 100);
  EXPECT_EQ(parsed->skipped_steps, 2);
  EXPECT_EQ(parsed->phase, 1);
  EXPECT_EQ(parsed->data_position, (DataPosition{3, 17}));
  EXPECT_EQ(parsed->dropout_seed, 0xfedcba9876543210ULL);
  EXPECT_EQ(parsed->shuffle_seed, 42u);
  EXPECT_EQ(parsed->run_config, state.run_config);
  EXPECT_EQ(parsed->run_config_hash, state.run_config_hash);
  EXPECT_EQ(parsed->train_seconds, 1.25);
  EXPECT_EQ(parsed->tokens_seen, 4096);
}

TEST(TrainerStateTest, ParsingIsStrict) {
  EXPECT_THAT(ParseTrainerStateJson("{", "s.json").status().message(),
              HasSubstr("s.json: malformed JSON"));
  EXPECT_THAT(ParseTrainerStateJson(R"({"format": "other"})", "s.json")
                  .status()
                  .message(),
              HasSubstr("format \"other\""));
  std::string text = TrainerStateToJson(SomeState(5));
  text.replace(text.find("\"step\": 5"), 9, "\"step\": \"5\"");
  EXPECT_THAT(ParseTrainerStateJson(text, "s.json").status().message(),
              HasSubstr("field \"step\" must be an integer"));
}

TEST(TrainerStateTest, CheckpointNames) {
  EXPECT_EQ(CheckpointName(100), "step-000100");
  EXPECT_EQ(CheckpointName(1234567), "step-1234567");
}

class CheckpointFilesTest : public ::testing::Test {
 protected:
  CheckpointFilesTest()
      : config_(TinyBertConfig(40, AttentionMode::kBidirectional)),
        model_(config_, true),
        params_(model_.layout().total_size()),
        optimizer_(model_.layout(), AdamWOptions{}) {
    InitializeParameters(model_.layout(), 5, params_.data());
  }

  BertConfig config_;
  BertForPretraining model_;
  std::vector<float> params_;
  AdamW<float> optimizer_;
};

TEST_F(CheckpointFilesTest, WritesListsKeepsAndLoads) {
  const std::string dir = TempDir("checkpoints_write");
  // A take-one step so the moments are not zero.
  std::vector<float> grads(params_.size(), 0.5f);
  optimizer_.Step(1e-3, grads.data(), params_.data());
  for (int64_t step : {2, 4, 10, 6}) {
    absl::StatusOr<std::string> path =
        WriteTrainingCheckpoint(dir, config_, model_.layout(), params_.data(),
                                optimizer_, SomeState(step));
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_EQ(*path, absl::StrCat(dir, "/", CheckpointName(step)));
  }
  // An interrupted write and stray entries are not checkpoints.
  std::filesystem::create_directories(dir + "/.tmp-step-000012");
  std::filesystem::create_directories(dir + "/step-000014");  // no state file
  ASSERT_TRUE(WriteFileAtomically(dir + "/step-notes", "x").ok());
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> listed =
      ListTrainingCheckpoints(dir);
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(*listed, ElementsAre(Pair(2, dir + "/step-000002"),
                                   Pair(4, dir + "/step-000004"),
                                   Pair(6, dir + "/step-000006"),
                                   Pair(10, dir + "/step-000010")));
  ASSERT_TRUE(RemoveIncompleteCheckpoints(dir).ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/.tmp-step-000012"));
  ASSERT_TRUE(KeepLastCheckpoints(dir, 2).ok());
  listed = ListTrainingCheckpoints(dir);
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(*listed, ElementsAre(Pair(6, dir + "/step-000006"),
                                   Pair(10, dir + "/step-000010")));
  EXPECT_FALSE(std::filesystem::exists(dir + "/step-000004"));

  const std::string newest = dir + "/step-000010";
  for (const char* file : {"config.json", "model.safetensors",
                           "optimizer.safetensors", "trainer_state.json"}) {
    EXPECT_TRUE(std::filesystem::exists(newest + "/" + file)) << file;
  }
  absl::StatusOr<TrainerState> state = ReadTrainerState(newest);
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->step, 10);

  std::vector<float> loaded(params_.size(), 0.0f);
  AdamW<float> loaded_optimizer(model_.layout(), AdamWOptions{});
  ASSERT_TRUE(LoadTrainingCheckpoint(newest, config_, model_.layout(),
                                     loaded.data(), &loaded_optimizer)
                  .ok());
  EXPECT_EQ(loaded, params_);
  EXPECT_EQ(loaded_optimizer.m(), optimizer_.m());
  EXPECT_EQ(loaded_optimizer.v(), optimizer_.v());
  EXPECT_EQ(loaded_optimizer.step(), 1);
}

TEST_F(CheckpointFilesTest, LoadRefusesAnotherModelNamingBoth) {
  const std::string dir = TempDir("checkpoints_mismatch");
  ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                      params_.data(), optimizer_, SomeState(1))
                  .ok());
  BertConfig causal = config_;
  causal.attention_mode = AttentionMode::kCausal;
  const absl::Status status =
      LoadTrainingCheckpoint(dir + "/step-000001", causal, model_.layout(),
                             params_.data(), &optimizer_);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("\"attention_mode\": \"causal\""));
  EXPECT_THAT(status.message(),
              HasSubstr("\"attention_mode\": \"bidirectional\""));
}

TEST_F(CheckpointFilesTest, ListingAMissingDirectoryIsEmpty) {
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> listed =
      ListTrainingCheckpoints(TempDir("never_written"));
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

}  // namespace
}  // namespace bertlab
