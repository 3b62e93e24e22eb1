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

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr int32_t kCls = 1, kSep = 2, kMarker = 3;

BertConfig TinyConfig() {
  BertConfig config;
  config.vocab_size = 24;
  config.hidden_size = 16;
  config.num_attention_heads = 2;
  config.intermediate_size = 32;
  config.num_hidden_layers = 1;
  config.max_position_embeddings = 16;
  config.hidden_dropout_prob = 0.1;
  config.attention_probs_dropout_prob = 0.1;
  return config;
}

// [CLS] a... [SEP] b... [SEP] with random tokens in [4, 24); `marker_at`
// >= 0 puts the marker token there.
EncodedSequence RandomPair(std::mt19937* rng, int length_a, int length_b,
                           int marker_at) {
  std::uniform_int_distribution<int32_t> token(4, 23);
  EncodedSequence s;
  s.input_ids.push_back(kCls);
  for (int i = 0; i < length_a; ++i) s.input_ids.push_back(token(*rng));
  s.input_ids.push_back(kSep);
  const size_t second = s.input_ids.size();
  for (int i = 0; i < length_b; ++i) s.input_ids.push_back(token(*rng));
  s.input_ids.push_back(kSep);
  for (size_t t = 0; t < s.input_ids.size(); ++t) {
    s.token_type_ids.push_back(t >= second ? 1 : 0);
  }
  if (marker_at >= 0) s.input_ids[marker_at] = kMarker;
  return s;
}

// Label 1 when the marker is somewhere in segment B.
std::vector<ClassificationExample> MarkerTask(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<ClassificationExample> examples;
  for (int i = 0; i < n; ++i) {
    const int length_a = 2 + i % 4, length_b = 3 + (i / 4) % 4;
    const bool positive = i % 2 == 0;
    ClassificationExample e;
    e.guid = std::to_string(i);
    e.sequence = RandomPair(&rng, length_a, length_b,
                            positive ? length_a + 2 + (i / 2) % length_b : -1);
    e.label = positive ? 1 : 0;
    e.has_label = true;
    examples.push_back(e);
  }
  return examples;
}

FinetuneOptions TinyOptions() {
  FinetuneOptions options;
  options.config = TinyConfig();
  options.max_seq_length = 16;
  options.batch_size = 16;
  options.num_epochs = 12;
  options.learning_rate = 2e-3;
  options.progress = false;
  options.seed = 7;
  return options;
}

double Accuracy(const std::vector<float>& logits, int64_t classes,
                const std::vector<int32_t>& labels) {
  int correct = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    int best = 0;
    for (int c = 1; c < classes; ++c) {
      if (logits[i * classes + c] > logits[i * classes + best]) best = c;
    }
    correct += best == labels[i];
  }
  return static_cast<double>(correct) / labels.size();
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
  // The answer is the single marker token.
  std::mt19937 rng(3);
  std::vector<SpanFeature> train, dev;
  for (int i = 0; i < 320; ++i) {
    const int at = 5 + i % 9;
    SpanFeature f;
    f.example_index = i;
    f.sequence = RandomPair(&rng, 2, 10, at);
    f.start_position = f.end_position = at;
    (i < 256 ? train : dev).push_back(f);
  }
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
  // The right choice is the one with the marker.
  std::mt19937 rng(4);
  std::vector<MultipleChoiceExample> train, dev;
  for (int i = 0; i < 200; ++i) {
    MultipleChoiceExample e;
    e.label = i % 4;
    for (int c = 0; c < 4; ++c) {
      e.choices.push_back(RandomPair(&rng, 3, 2 + c, c == e.label ? 6 : -1));
    }
    (i < 160 ? train : dev).push_back(e);
  }
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
  const BertConfig config = TinyConfig();
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
  const ParameterLayout& layout = (*tuner)->model().layout();
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
  EXPECT_THAT(Finetuner::Create(options).status().message(),
              HasSubstr("warmup_proportion"));
}

}  // namespace
}  // namespace bertlab
