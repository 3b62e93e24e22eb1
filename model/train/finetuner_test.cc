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

// The epoch-end hook: called once per epoch with the count done, free to
// predict mid-training without changing what training computes; the
// parameters kept at an epoch restore that epoch's predictions, and an
// error from the hook stops training.
TEST(FinetunerTest, EpochEndSeesEachEpochAndItsParametersRestore) {
  const auto train = MarkerTask(48, 1);
  const auto dev = MarkerTask(16, 2);
  FinetuneOptions options = TinyOptions();
  options.num_epochs = 3;
  auto plain = Finetuner::Create(options);
  auto hooked = Finetuner::Create(options);
  ASSERT_TRUE(plain.ok() && hooked.ok());
  ASSERT_TRUE((*plain)->Train(TrainingSet::Classification(&train)).ok());
  std::vector<int64_t> calls;
  std::vector<float> kept, kept_logits;
  Finetuner* tuner = hooked->get();
  ASSERT_TRUE(tuner
                  ->Train(TrainingSet::Classification(&train),
                          [&](int64_t epochs) -> absl::Status {
                            calls.push_back(epochs);
                            auto logits = tuner->PredictClassification(dev);
                            if (!logits.ok()) return logits.status();
                            if (epochs == 2) {
                              kept = tuner->parameters();
                              kept_logits = *logits;
                            }
                            return absl::OkStatus();
                          })
                  .ok());
  EXPECT_EQ(calls, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(tuner->parameters(), (*plain)->parameters());
  EXPECT_NE(kept, tuner->parameters());
  ASSERT_TRUE(tuner->RestoreParameters(kept).ok());
  auto again = tuner->PredictClassification(dev);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, kept_logits);
  EXPECT_FALSE(tuner->RestoreParameters({1.0f, 2.0f}).ok());

  auto stopped = Finetuner::Create(options);
  ASSERT_TRUE(stopped.ok());
  int stopped_calls = 0;
  const absl::Status status =
      (*stopped)->Train(TrainingSet::Classification(&train), [&](int64_t) {
        ++stopped_calls;
        return absl::InternalError("tune failed");
      });
  EXPECT_THAT(status.message(), HasSubstr("tune failed"));
  EXPECT_EQ(stopped_calls, 1);
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

// The no-pre-training control: the checkpoint gives the config (here one
// with two layers, where options.config has one), not the weights; the
// encoder is the fresh initialisation from the seed, bit for bit.
TEST(FinetunerTest, RandomInitTakesTheCheckpointsConfigNotItsWeights) {
  BertConfig config = ToyBertConfig();
  config.num_hidden_layers = 2;
  const BertForPretraining pretrained(config, /*next_sentence=*/true);
  std::vector<float> values(pretrained.layout().total_size());
  InitializeParameters(pretrained.layout(), 99, values.data());
  const std::string dir = ::testing::TempDir() + "/random_init_checkpoint";
  ASSERT_TRUE(
      SaveCheckpointDirectory(dir, config, pretrained.layout(), values.data())
          .ok());
  FinetuneOptions options = TinyOptions();
  options.init_checkpoint = dir;
  options.random_init = true;
  ASSERT_EQ(options.config.num_hidden_layers, 1);
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  // The pre-trained row's model: the same shape, the checkpoint's weights.
  FinetuneOptions loaded_options = options;
  loaded_options.random_init = false;
  auto loaded = Finetuner::Create(loaded_options);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  // A fresh model of the checkpoint's config from the same seed, and from
  // another.
  FinetuneOptions fresh_options = TinyOptions();
  fresh_options.config = config;
  auto fresh = Finetuner::Create(fresh_options);
  fresh_options.seed = 8;
  auto other_seed = Finetuner::Create(fresh_options);
  ASSERT_TRUE(fresh.ok() && other_seed.ok());

  const ParameterLayout& layout = (*tuner)->layout();
  ASSERT_NE(layout.Find("bert.encoder.layer.1.output.dense.weight"), nullptr);
  EXPECT_EQ(layout.total_size(), (*loaded)->layout().total_size());
  EXPECT_EQ((*tuner)->parameters(), (*fresh)->parameters());
  EXPECT_NE((*tuner)->parameters(), (*other_seed)->parameters());
  EXPECT_NE((*tuner)->parameters(), (*loaded)->parameters());
  for (const char* name : {"bert.embeddings.word_embeddings.weight",
                           "bert.encoder.layer.1.attention.self.query.weight",
                           "bert.pooler.dense.weight"}) {
    SCOPED_TRACE(name);
    const ParameterInfo& ours = *layout.Find(name);
    const ParameterInfo& theirs = *pretrained.layout().Find(name);
    const std::vector<float> checkpoint(
        values.begin() + theirs.offset,
        values.begin() + theirs.offset + theirs.size);
    const auto tensor = [&](const Finetuner& t) {
      return std::vector<float>(
          t.parameters().begin() + ours.offset,
          t.parameters().begin() + ours.offset + ours.size);
    };
    EXPECT_EQ(tensor(**loaded), checkpoint);
    EXPECT_NE(tensor(**tuner), checkpoint);
    EXPECT_NE(tensor(**tuner), tensor(**other_seed));
  }

  // And it still learns the toy task from scratch.
  const auto train = MarkerTask(256, 1);
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Classification(&train)).ok());
  const FinetuneStats& stats = (*tuner)->stats();
  EXPECT_LT(stats.epoch_losses.back(), 0.5 * stats.epoch_losses.front());
}

TEST(FinetunerTest, RandomInitNeedsOneCheckpoint) {
  FinetuneOptions options = TinyOptions();
  options.random_init = true;
  EXPECT_THAT(ValidateFinetuneOptions(options).message(),
              HasSubstr("random_init needs init_checkpoint"));
  options.init_checkpoint = "ltr";
  options.rtl_checkpoint = "rtl";
  EXPECT_THAT(ValidateFinetuneOptions(options).message(),
              HasSubstr("rtl_checkpoint and random_init cannot both be set"));
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
