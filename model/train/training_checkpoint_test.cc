#include "model/train/training_checkpoint.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/train/checkpoint_manifest.h"
#include "model/train/test_shards.h"
#include "nlohmann/json.hpp"

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
  state.skipped_steps = step >= 2 ? 2 : 0;
  state.phase = 1;
  state.data_position = {3, 17};
  SetTrainerSeeds(12345, &state);  // the shuffle seed is above 2^63
  state.run_config = "a: 1\nb: 2\n";
  state.run_config_hash = "0123456789abcdef";
  state.train_seconds = 1.25;
  state.tokens_seen = 4096;
  state.predictions_seen = 640;
  state.training_flops = 2.5e12;
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
  EXPECT_EQ(parsed->dropout_seed, state.dropout_seed);
  EXPECT_GT(state.shuffle_seed, uint64_t{1} << 63);
  EXPECT_EQ(parsed->shuffle_seed, state.shuffle_seed);
  EXPECT_EQ(parsed->run_config, state.run_config);
  EXPECT_EQ(parsed->run_config_hash, state.run_config_hash);
  EXPECT_EQ(parsed->train_seconds, 1.25);
  EXPECT_EQ(parsed->tokens_seen, 4096);
  EXPECT_EQ(parsed->predictions_seen, 640);
  EXPECT_EQ(parsed->training_flops, 2.5e12);
}

// Checkpoints written before the compute was counted still resume; the
// compute is then unknown (-1), not zero.
TEST(TrainerStateTest, ACheckpointWithoutComputeCountsReadsAsUnknown) {
  nlohmann::json json =
      nlohmann::json::parse(TrainerStateToJson(SomeState(100)));
  json.erase("predictions_seen");
  json.erase("training_flops");
  absl::StatusOr<TrainerState> parsed =
      ParseTrainerStateJson(json.dump(), "state.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->predictions_seen, -1);
  EXPECT_EQ(parsed->training_flops, -1);
  json["predictions_seen"] = 5;  // one without the other is damage
  EXPECT_THAT(
      ParseTrainerStateJson(json.dump(), "state.json").status().message(),
      HasSubstr("training_flops"));
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

  // SomeState(step) with skipped_steps making it agree with the optimizer's
  // update count.
  TrainerState ConsistentState(int64_t step) const {
    TrainerState state = SomeState(step);
    state.skipped_steps = step - optimizer_.step();
    return state;
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

// Replaces the first `from` in dir/file with `to`.
void Edit(const std::string& path, const std::string& from,
          const std::string& to) {
  std::string text = ReadFileToString(path).value();
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " in " << path;
  text.replace(at, from.size(), to);
  ASSERT_TRUE(WriteFileAtomically(path, text).ok());
}

TEST_F(CheckpointFilesTest, EditedFilesAreFoundBeforeTheyAreTrusted) {
  const std::string dir = TempDir("checkpoints_edited");
  ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                      params_.data(), optimizer_,
                                      ConsistentState(10))
                  .ok());
  const std::string checkpoint = dir + "/step-000010";
  EXPECT_TRUE(std::filesystem::exists(checkpoint + "/manifest.json"));
  ASSERT_TRUE(ReadVerifiedTrainerState(checkpoint).ok());

  // One byte of trainer_state.json: step 10 -> 18.
  Edit(checkpoint + "/trainer_state.json", "\"step\": 10", "\"step\": 18");
  absl::StatusOr<TrainerState> state = ReadVerifiedTrainerState(checkpoint);
  EXPECT_EQ(state.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(state.status().message(),
              HasSubstr("trainer_state.json: SHA-256 "));
  // The same edit with a manifest made to match: the files still disagree.
  ASSERT_TRUE(
      WriteCheckpointManifest(checkpoint, TrainingCheckpointFiles()).ok());
  state = ReadVerifiedTrainerState(checkpoint);
  EXPECT_EQ(state.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(state.status().message(),
              HasSubstr("rng.dropout_step 10 disagrees with step 18"));
  Edit(checkpoint + "/trainer_state.json", "\"dropout_step\": 10",
       "\"dropout_step\": 18");
  ASSERT_TRUE(
      WriteCheckpointManifest(checkpoint, TrainingCheckpointFiles()).ok());
  state = ReadVerifiedTrainerState(checkpoint);
  EXPECT_THAT(state.status().message(),
              HasSubstr("step 18 disagrees with the directory's name (step "
                        "10)"));
  // Under the matching name, the optimizer's metadata disagrees.
  std::filesystem::rename(checkpoint, dir + "/step-000018");
  state = ReadVerifiedTrainerState(dir + "/step-000018");
  EXPECT_THAT(state.status().message(),
              HasSubstr("optimizer.safetensors: metadata step 10 disagrees "
                        "with trainer_state.json's step 18"));
}

TEST_F(CheckpointFilesTest, TheOptimizersStepMustBeTheUpdatesDone) {
  const std::string dir = TempDir("checkpoints_updates");
  std::vector<float> grads(params_.size(), 0.5f);
  for (int i = 0; i < 8; ++i) {
    optimizer_.Step(1e-3, grads.data(), params_.data());
  }
  // 10 steps of which 2 skipped: 8 updates.
  ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                      params_.data(), optimizer_, SomeState(10))
                  .ok());
  EXPECT_TRUE(ReadVerifiedTrainerState(dir + "/step-000010").ok());
  ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                      params_.data(), optimizer_, SomeState(12))
                  .ok());
  const absl::Status status =
      ReadVerifiedTrainerState(dir + "/step-000012").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr("optimizer.safetensors: the optimizer's step is 8 but "
                        "trainer_state.json has 12 steps of which 2 were "
                        "skipped (10 updates)"));
}

TEST_F(CheckpointFilesTest, ResumeFallsBackToTheNewestIntactCheckpoint) {
  const std::string dir = TempDir("checkpoints_fallback");
  for (int64_t step : {4, 8, 12}) {
    ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                        params_.data(), optimizer_,
                                        ConsistentState(step))
                    .ok());
  }
  const auto accept = [](const ResumePoint&) { return absl::OkStatus(); };
  std::vector<std::string> notes;
  auto found = FindResumableCheckpoint(dir, accept, &notes);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->state.step, 12);
  EXPECT_TRUE(notes.empty());

  // A flipped byte in the newest weights; a run check refusing step 8 as
  // corrupt: step 4 it is, and the notes say why.
  std::string weights =
      ReadFileToString(dir + "/step-000012/model.safetensors").value();
  weights[weights.size() / 2] ^= 0x10;
  ASSERT_TRUE(
      WriteFileAtomically(dir + "/step-000012/model.safetensors", weights)
          .ok());
  const auto refuse_8 = [](const ResumePoint& point) {
    return point.state.step == 8
               ? absl::DataLossError("data position 1 does not follow")
               : absl::OkStatus();
  };
  found = FindResumableCheckpoint(dir, refuse_8, &notes);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->state.step, 4);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_THAT(notes[0], HasSubstr("step-000012 is corrupt: "));
  EXPECT_THAT(notes[0], HasSubstr("model.safetensors: SHA-256"));
  EXPECT_THAT(notes[1], HasSubstr("step-000008 is corrupt: data position 1"));
  EXPECT_THAT(notes[2], HasSubstr("falling back to " + dir + "/step-000004"));

  // Any other refusal is not corruption: it is returned as it is.
  const auto other_run = [](const ResumePoint&) {
    return absl::FailedPreconditionError("another run's checkpoint");
  };
  notes.clear();
  found = FindResumableCheckpoint(dir, other_run, &notes);
  EXPECT_EQ(found.status().code(), absl::StatusCode::kFailedPrecondition);

  const auto corrupt = [](const ResumePoint&) {
    return absl::DataLossError("bad");
  };
  found = FindResumableCheckpoint(dir, corrupt, &notes);
  EXPECT_EQ(found.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(found.status().message(),
              HasSubstr("every checkpoint in " + dir + " is corrupt"));
}

TEST_F(CheckpointFilesTest, NonFiniteOptimizerStateIsRefused) {
  const std::string dir = TempDir("checkpoints_nan_moment");
  std::vector<float> grads(params_.size(), 0.5f);
  grads[3] = NAN;
  optimizer_.Step(1e-3, grads.data(), params_.data());
  params_[3] = 0.0f;  // the weights stay finite; the moments do not
  ASSERT_TRUE(WriteTrainingCheckpoint(dir, config_, model_.layout(),
                                      params_.data(), optimizer_, SomeState(1))
                  .ok());
  std::vector<float> loaded(params_.size(), 0.0f);
  AdamW<float> loaded_optimizer(model_.layout(), AdamWOptions{});
  const absl::Status status =
      LoadTrainingCheckpoint(dir + "/step-000001", config_, model_.layout(),
                             loaded.data(), &loaded_optimizer);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("optimizer.safetensors: optimizer.m.bert.embeddings."
                        "word_embeddings.weight: element 3 (index [0, 3]) is "
                        "nan; optimizer state must be finite"));
}

TEST_F(CheckpointFilesTest, ListingAMissingDirectoryIsEmpty) {
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> listed =
      ListTrainingCheckpoints(TempDir("never_written"));
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

}  // namespace
}  // namespace bertlab
