// The fine-tuning loop on synthetic tasks a tiny randomly initialised model
// can learn in a few hundred steps (so a broken gradient, schedule or batch
// layout shows as a failure to learn), determinism per seed, restarts that
// differ, checkpoint loading, and the errors for input the model cannot take.
#include "model/train/finetuner.h"

#include <stdint.h>

#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"
#include "model/train/toy_finetune_tasks.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

FinetuneOptions TinyOptions() {
  FinetuneOptions options;
  options.config = ToyBertConfig();
  options.max_seq_length = 16;
  options.batch_size = 16;
  options.num_epochs = 12;
  options.learning_rate = 2e-3;
  options.warmup_proportion = 0.1;
  options.clip_norm = 1.0;
  options.progress = false;
  options.seed = 7;
  return options;
}

TEST(FinetunerTest, LearnsSequenceClassification) {
  const auto train = MarkerTask(256, 1);
  const auto dev = MarkerTask(128, 2);
  auto tuner = Finetuner::Create(TinyOptions());
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Classification(&train)).ok());
  const FinetuneStats& stats = (*tuner)->stats();
  EXPECT_EQ(stats.steps, 12 * 16);
  EXPECT_EQ(stats.warmup_steps, 19);
  ASSERT_EQ(stats.epoch_losses.size(), 12u);
  EXPECT_LT(stats.epoch_losses.back(), 0.5 * stats.epoch_losses.front());
  auto logits = (*tuner)->PredictClassification(dev);
  ASSERT_TRUE(logits.ok());
  std::vector<int32_t> labels;
  for (const auto& e : dev) labels.push_back(e.label);
  EXPECT_GT(Accuracy(*logits, 2, labels), 0.9);
}

TEST(FinetunerTest, CausalModelLearnsThroughTheLastToken) {
  // The marker decides the label, and a causal encoder's [CLS] cannot see it:
  // only pooling the last real token makes this learnable.
  FinetuneOptions options = TinyOptions();
  options.config.attention_mode = AttentionMode::kCausal;
  const auto train = MarkerTask(256, 1);
  const auto dev = MarkerTask(128, 2);
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok());
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Classification(&train)).ok());
  auto logits = (*tuner)->PredictClassification(dev);
  ASSERT_TRUE(logits.ok());
  std::vector<int32_t> labels;
  for (const auto& e : dev) labels.push_back(e.label);
  EXPECT_GT(Accuracy(*logits, 2, labels), 0.85);
}

TEST(FinetunerTest, LearnsSpansWithAndWithoutBiLstm) {
  const std::vector<SpanFeature> all = MarkerSpans(320, 3);
  const std::vector<SpanFeature> train(all.begin(), all.begin() + 256);
  const std::vector<SpanFeature> dev(all.begin() + 256, all.end());
  for (const bool bilstm : {false, true}) {
    SCOPED_TRACE(bilstm ? "bilstm" : "encoder only");
    FinetuneOptions options = TinyOptions();
    options.model.head = FinetuneHead::kSpan;
    options.model.bilstm = bilstm;
    options.num_epochs = 8;
    auto tuner = Finetuner::Create(options);
    ASSERT_TRUE(tuner.ok());
    ASSERT_TRUE((*tuner)->Train(TrainingSet::Spans(&train)).ok());
    std::vector<float> start, end;
    ASSERT_TRUE((*tuner)->PredictSpans(dev, &start, &end).ok());
    ASSERT_EQ(start.size(), dev.size() * 16);
    int right = 0;
    for (size_t i = 0; i < dev.size(); ++i) {
      const auto row = start.begin() + i * 16;
      right += std::max_element(row, row + 16) - row == dev[i].start_position;
    }
    EXPECT_GT(right, 0.9 * dev.size());
  }
}

TEST(FinetunerTest, LearnsMultipleChoice) {
  const std::vector<MultipleChoiceExample> all = MarkerChoices(200, 4);
  const std::vector<MultipleChoiceExample> train(all.begin(),
                                                 all.begin() + 160);
  const std::vector<MultipleChoiceExample> dev(all.begin() + 160, all.end());
  FinetuneOptions options = TinyOptions();
  options.model.head = FinetuneHead::kMultipleChoice;
  options.batch_size = 8;
  options.num_epochs = 6;
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok());
  ASSERT_TRUE((*tuner)->Train(TrainingSet::MultipleChoice(&train)).ok());
  auto scores = (*tuner)->PredictMultipleChoice(dev);
  ASSERT_TRUE(scores.ok());
  std::vector<int32_t> labels;
  for (const auto& e : dev) labels.push_back(e.label);
  EXPECT_GT(Accuracy(*scores, 4, labels), 0.9);
}

TEST(FinetunerTest, SameSeedSameParametersOtherSeedOthers) {
  const auto train = MarkerTask(48, 1);
  FinetuneOptions options = TinyOptions();
  options.num_epochs = 2;
  auto a = Finetuner::Create(options);
  auto b = Finetuner::Create(options);
  options.seed = 8;
  auto c = Finetuner::Create(options);
  for (auto* t : {&a, &b, &c}) {
    ASSERT_TRUE(t->ok());
    ASSERT_TRUE((**t)->Train(TrainingSet::Classification(&train)).ok());
  }
  EXPECT_EQ((*a)->parameters(), (*b)->parameters());
  EXPECT_NE((*a)->parameters(), (*c)->parameters());
}

TEST(FinetunerTest, LoadsAPretrainingCheckpointUnderTheNewHead) {
  const BertConfig config = ToyBertConfig();
  const BertForPretraining pretrained(config, /*next_sentence=*/true);
  std::vector<float> values(pretrained.layout().total_size());
  InitializeParameters(pretrained.layout(), 99, values.data());
  const std::string dir = ::testing::TempDir() + "/finetuner_checkpoint";
  ASSERT_TRUE(
      SaveCheckpointDirectory(dir, config, pretrained.layout(), values.data())
          .ok());
  FinetuneOptions options = TinyOptions();
  options.init_checkpoint = dir;
  options.model.bilstm = true;
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  const ParameterLayout& layout = (*tuner)->layout();
  for (const char* name :
       {"bert.embeddings.word_embeddings.weight", "bert.pooler.dense.bias"}) {
    const ParameterInfo& ours = *layout.Find(name);
    const ParameterInfo& theirs = *pretrained.layout().Find(name);
    for (int64_t i = 0; i < ours.size; ++i) {
      ASSERT_EQ((*tuner)->parameters()[ours.offset + i],
                values[theirs.offset + i])
          << name;
    }
  }
}

TEST(FinetunerTest, RejectsWhatTheModelCannotTake) {
  auto tuner = Finetuner::Create(TinyOptions());
  ASSERT_TRUE(tuner.ok());
  auto train = MarkerTask(8, 1);
  train[3].label = 5;
  EXPECT_THAT((*tuner)->Train(TrainingSet::Classification(&train)).message(),
              HasSubstr("training example 3 (3): label 5 outside [0, 2)"));
  train = MarkerTask(8, 1);
  train[2].sequence.input_ids.resize(20, 4);
  train[2].sequence.token_type_ids.resize(20, 1);
  EXPECT_THAT(
      (*tuner)->Train(TrainingSet::Classification(&train)).message(),
      HasSubstr("example 2: 20 tokens, expected 1 to max_seq_length 16"));
  std::vector<SpanFeature> spans(1);
  EXPECT_THAT((*tuner)->Train(TrainingSet::Spans(&spans)).message(),
              HasSubstr("not of the kind the model's head takes"));
  FinetuneOptions options = TinyOptions();
  options.max_seq_length = 64;
  EXPECT_THAT(Finetuner::Create(options).status().message(),
              HasSubstr("exceeds the model's max_position_embeddings 16"));
  options = TinyOptions();
  options.warmup_proportion = 1.5;
  EXPECT_THAT(ValidateFinetuneOptions(options).message(),
              HasSubstr("warmup_proportion"));
}

TEST(FinetunerDeathTest, InvalidOptionsAreABugInTheCaller) {
  FinetuneOptions options = TinyOptions();
  options.learning_rate = 0;  // what the experiment loader never lets through
  EXPECT_DEATH(Finetuner::Create(options).IgnoreError(),
               "invalid FinetuneOptions.*learning_rate must be finite and > 0");
}

}  // namespace
}  // namespace bertlab
