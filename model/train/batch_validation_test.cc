// Host-side batch checks before a GPU upload (batch_validation.h). Plain C++,
// no GPU.
#include "model/train/batch_validation.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kBatch = 2;
constexpr int64_t kSeqLen = 5;

BertConfig SmallConfig() {
  BertConfig config;
  config.vocab_size = 37;
  config.type_vocab_size = 2;
  config.max_position_embeddings = 9;
  return config;
}

struct HostBatch {
  std::vector<int32_t> input_ids = {2, 5, 36, 0, 0, 2, 7, 8, 9, 3};
  std::vector<int32_t> token_type_ids = {0, 0, 1, 0, 0, 0, 0, 1, 1, 1};
  std::vector<int32_t> attention_mask = {1, 1, 1, 0, 0, 1, 1, 1, 1, 1};
  std::vector<int32_t> pooled_positions = {2, 4};

  EncoderBatch View() const {
    return EncoderBatch{
        input_ids.data(), token_type_ids.data(),  attention_mask.data(), kBatch,
        kSeqLen,          pooled_positions.data()};
  }
};

TEST(ValidateEncoderBatchTest, AcceptsAValidBatchWithAndWithoutOptionals) {
  const HostBatch host;
  EXPECT_TRUE(ValidateEncoderBatch(SmallConfig(), host.View()).ok());
  EncoderBatch bare = host.View();
  bare.attention_mask = nullptr;
  bare.pooled_positions = nullptr;
  EXPECT_TRUE(ValidateEncoderBatch(SmallConfig(), bare).ok());
}

TEST(ValidateEncoderBatchTest, NamesTheElementOutOfRange) {
  HostBatch host;
  host.input_ids[7] = 37;
  absl::Status status = ValidateEncoderBatch(SmallConfig(), host.View());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      status.message(),
      HasSubstr("input_ids[1][2] = 37 is outside [0, 37) (vocab_size)"));

  host = HostBatch();
  host.input_ids[0] = -1;
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), host.View()).message(),
              HasSubstr("input_ids[0][0] = -1"));

  host = HostBatch();
  host.token_type_ids[4] = 2;
  EXPECT_THAT(
      ValidateEncoderBatch(SmallConfig(), host.View()).message(),
      HasSubstr(
          "token_type_ids[0][4] = 2 is outside [0, 2) (type_vocab_size)"));

  host = HostBatch();
  host.attention_mask[9] = 2;
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), host.View()).message(),
              HasSubstr("attention_mask[1][4] = 2"));

  host = HostBatch();
  host.pooled_positions[1] = 5;
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), host.View()).message(),
              HasSubstr("pooled_positions[1] = 5 is outside [0, 5) (seq_len)"));
}

TEST(ValidateEncoderBatchTest, RejectsBadShapesAndMissingArrays) {
  const HostBatch host;
  EncoderBatch batch = host.View();
  batch.seq_len = 10;  // > max_position_embeddings 9
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), batch).message(),
              HasSubstr("seq_len 10 exceeds max_position_embeddings 9"));
  batch = host.View();
  batch.batch = 0;
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), batch).message(),
              HasSubstr("must be positive"));
  batch = host.View();
  batch.token_type_ids = nullptr;
  EXPECT_THAT(ValidateEncoderBatch(SmallConfig(), batch).message(),
              HasSubstr("token_type_ids is null"));
}

struct HostTargets {
  std::vector<int32_t> positions = {1, 2, 6, 9};
  std::vector<int32_t> labels = {4, kIgnoreLabel, 36, 0};
  std::vector<int32_t> next_sentence_labels = {0, kIgnoreLabel};

  PretrainingTargets View(bool next_sentence) const {
    return PretrainingTargets{
        positions.data(), labels.data(), static_cast<int64_t>(positions.size()),
        next_sentence ? next_sentence_labels.data() : nullptr};
  }
};

TEST(ValidatePretrainingTargetsTest, AcceptsValidTargets) {
  const HostTargets host;
  EXPECT_TRUE(ValidatePretrainingTargets(SmallConfig(), true, host.View(true),
                                         kBatch, kSeqLen, 4)
                  .ok());
  EXPECT_TRUE(ValidatePretrainingTargets(SmallConfig(), false, host.View(false),
                                         kBatch, kSeqLen, 4)
                  .ok());
  // No predictions at all: null arrays are fine.
  EXPECT_TRUE(ValidatePretrainingTargets(SmallConfig(), false,
                                         PretrainingTargets{}, kBatch, kSeqLen,
                                         4)
                  .ok());
}

TEST(ValidatePretrainingTargetsTest, RejectsEachKindOfBadTarget) {
  const BertConfig config = SmallConfig();
  HostTargets host;
  EXPECT_THAT(ValidatePretrainingTargets(config, true, host.View(true), kBatch,
                                         kSeqLen, 3)
                  .message(),
              HasSubstr("num_predictions 4 is outside [0, 3]"));

  host.positions[3] = 10;  // B*T = 10
  EXPECT_THAT(ValidatePretrainingTargets(config, true, host.View(true), kBatch,
                                         kSeqLen, 4)
                  .message(),
              HasSubstr("positions[3] = 10 is outside [0, 10) (B*T = 2*5)"));

  host = HostTargets();
  host.labels[2] = 37;
  EXPECT_THAT(
      ValidatePretrainingTargets(config, true, host.View(true), kBatch, kSeqLen,
                                 4)
          .message(),
      HasSubstr("labels[2] = 37 is outside [0, 37) (vocab_size) and is not "
                "-100 (ignored)"));

  host = HostTargets();
  host.next_sentence_labels[1] = 2;
  EXPECT_THAT(ValidatePretrainingTargets(config, true, host.View(true), kBatch,
                                         kSeqLen, 4)
                  .message(),
              HasSubstr("next_sentence_labels[1] = 2"));

  host = HostTargets();
  EXPECT_THAT(ValidatePretrainingTargets(config, false, host.View(true), kBatch,
                                         kSeqLen, 4)
                  .message(),
              HasSubstr("no next-sentence head"));

  PretrainingTargets missing = host.View(false);
  missing.labels = nullptr;
  EXPECT_THAT(
      ValidatePretrainingTargets(config, false, missing, kBatch, kSeqLen, 4)
          .message(),
      HasSubstr("labels is null"));
}

TEST(ValidateSpanTargetsTest, AllowsIgnoredAndOutOfWindowPositions) {
  const std::vector<int32_t> start = {0, kIgnoreLabel};
  const std::vector<int32_t> end = {7, 3};  // 7 >= T: ignored, not an error
  EXPECT_TRUE(ValidateSpanTargets({start.data(), end.data()}, kBatch).ok());
  EXPECT_TRUE(ValidateSpanTargets({}, kBatch).ok());
}

TEST(ValidateSpanTargetsTest, RejectsNegativePositionsAndHalfTargets) {
  const std::vector<int32_t> start = {0, 1};
  const std::vector<int32_t> end = {2, -3};
  EXPECT_THAT(ValidateSpanTargets({start.data(), end.data()}, kBatch).message(),
              HasSubstr("end_positions[1] = -3 is negative"));
  EXPECT_THAT(ValidateSpanTargets({start.data(), nullptr}, kBatch).message(),
              HasSubstr("both start_positions and end_positions"));
}

TEST(ValidateFinetuneTargetsTest, ChecksTheHeadsTargetsOnly) {
  FinetuneModelOptions classifier;
  classifier.num_labels = 3;
  const std::vector<int32_t> labels = {2, kIgnoreLabel, 3};
  FinetuneTargets targets;
  targets.labels = labels.data();
  EXPECT_TRUE(ValidateFinetuneTargets(classifier, targets, 2).ok());
  EXPECT_THAT(ValidateFinetuneTargets(classifier, targets, 3).message(),
              HasSubstr("labels[2] = 3 is outside [0, 3)"));
  EXPECT_TRUE(ValidateFinetuneTargets(classifier, FinetuneTargets{}, 3).ok());

  FinetuneModelOptions regression;
  regression.num_labels = 1;
  const std::vector<float> scores = {0.5f, std::nanf("")};
  FinetuneTargets scored;
  scored.scores = scores.data();
  scored.labels = labels.data();  // not read by a regression head
  EXPECT_TRUE(ValidateFinetuneTargets(regression, scored, 1).ok());
  EXPECT_THAT(ValidateFinetuneTargets(regression, scored, 2).message(),
              HasSubstr("scores[1] = nan is not finite"));

  FinetuneModelOptions choices;
  choices.head = FinetuneHead::kMultipleChoice;
  choices.num_choices = 2;
  // Rows 4 = two examples: labels {2, ...}: 2 is not a choice of 2.
  EXPECT_THAT(ValidateFinetuneTargets(choices, targets, 4).message(),
              HasSubstr("labels[0] = 2 is outside [0, 2)"));
  EXPECT_THAT(ValidateFinetuneTargets(choices, targets, 3).message(),
              HasSubstr("3 rows are not whole examples of 2 choices"));

  FinetuneModelOptions span;
  span.head = FinetuneHead::kSpan;
  const std::vector<int32_t> start = {0, -3};
  FinetuneTargets positions;
  positions.start_positions = start.data();
  positions.end_positions = start.data();
  EXPECT_THAT(ValidateFinetuneTargets(span, positions, 2).message(),
              HasSubstr("start_positions[1] = -3 is negative"));
}

}  // namespace
}  // namespace bertlab
