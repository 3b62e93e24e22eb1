// The Finetuner with two encoders (FinetuneOptions::rtl_checkpoint, the
// ELMo-style LTR & RTL model): tiny LTR and RTL pre-training checkpoints,
// then
//  - the training loss falls and the model learns a toy task whose label
//    only the whole input decides;
//  - right after Create the two encoder blocks hold the checkpoints' tensors
//    exactly and the head its initialisation from the seed;
//  - the three Predict* functions equal TwoEncoderForward run directly on the
//    same parameters and batch, exactly;
//  - options the model cannot take are refused, naming the problem;
//  - a run is a pure function of the seed.
#include <stdint.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/split_mix.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/testing/finetune_fixture.h"
#include "model/train/finetuner.h"
#include "model/train/toy_finetune_tasks.h"
#include "model/two_encoder_for_finetuning.h"

namespace bertlab {
namespace {

using ::bertlab::testing::SaveTinyPretrainingCheckpoint;
using ::bertlab::testing::TestDir;
using ::testing::HasSubstr;

constexpr int64_t kMaxSeqLength = 16;

// The two pre-training checkpoints and their values (the encoder's first, in
// AddEncoderParameters' order).
struct Checkpoints {
  std::string ltr_dir = TestDir("two_encoder_finetuner_ltr");
  std::string rtl_dir = TestDir("two_encoder_finetuner_rtl");
  std::vector<float> ltr, rtl;
};

const Checkpoints& TinyCheckpoints() {
  static const Checkpoints* const checkpoints = [] {
    auto* c = new Checkpoints;
    c->ltr = SaveTinyPretrainingCheckpoint(c->ltr_dir, ToyBertConfig(),
                                           AttentionMode::kCausal, 21);
    c->rtl = SaveTinyPretrainingCheckpoint(c->rtl_dir, ToyBertConfig(),
                                           AttentionMode::kReverseCausal, 22);
    return c;
  }();
  return *checkpoints;
}

FinetuneOptions TwoEncoderOptions(FinetuneHead head) {
  FinetuneOptions options;
  options.init_checkpoint = TinyCheckpoints().ltr_dir;
  options.rtl_checkpoint = TinyCheckpoints().rtl_dir;
  options.model.head = head;
  options.model.num_labels = 2;
  options.model.num_choices = 4;
  options.max_seq_length = kMaxSeqLength;
  options.batch_size = 16;
  options.num_epochs = 12;
  options.learning_rate = 2e-3;
  options.warmup_proportion = 0.1;
  options.clip_norm = 1.0;
  options.predict_batch_size = 512;
  options.progress = false;
  options.seed = 7;
  return options;
}

// Sequences padded to kMaxSeqLength, each pooling (for the LTR encoder) its
// last real token: the batch the Finetuner builds when every sequence of a
// prediction batch is longer than 8 tokens (it pads to the longest rounded
// up to 8) and the batch holds them all.
struct PaddedRows {
  explicit PaddedRows(const std::vector<const EncodedSequence*>& sequences)
      : rows(static_cast<int64_t>(sequences.size())) {
    ids.assign(rows * kMaxSeqLength, 0);
    types.assign(rows * kMaxSeqLength, 0);
    mask.assign(rows * kMaxSeqLength, 0);
    for (int64_t r = 0; r < rows; ++r) {
      const EncodedSequence& s = *sequences[r];
      std::copy(s.input_ids.begin(), s.input_ids.end(),
                ids.begin() + r * kMaxSeqLength);
      std::copy(s.token_type_ids.begin(), s.token_type_ids.end(),
                types.begin() + r * kMaxSeqLength);
      std::fill(mask.begin() + r * kMaxSeqLength,
                mask.begin() + r * kMaxSeqLength + s.input_ids.size(), 1);
      pooled.push_back(static_cast<int32_t>(s.input_ids.size()) - 1);
      longest = std::max<int64_t>(longest, s.input_ids.size());
    }
  }
  EncoderBatch View() const {
    EncoderBatch batch;
    batch.input_ids = ids.data();
    batch.token_type_ids = types.data();
    batch.attention_mask = mask.data();
    batch.pooled_positions = pooled.data();
    batch.batch = rows;
    batch.seq_len = kMaxSeqLength;
    return batch;
  }
  int64_t rows;
  int64_t longest = 0;
  std::vector<int32_t> ids, types, mask, pooled;
};

// The model a Finetuner with `options` builds, run directly.
struct DirectModel {
  explicit DirectModel(const FinetuneOptions& options)
      : model(*ReadTwoEncoderCheckpointConfig(options.init_checkpoint,
                                              options.rtl_checkpoint),
              options.model) {}
  TwoEncoderForFinetuning model;
};

TEST(TwoEncoderFinetunerTest, LossFallsAndTheModelLearns) {
  const auto train = MarkerTask(256, 1);
  const auto dev = MarkerTask(128, 2);
  auto tuner = Finetuner::Create(TwoEncoderOptions(FinetuneHead::kClassifier));
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Classification(&train)).ok());
  const FinetuneStats& stats = (*tuner)->stats();
  EXPECT_EQ(stats.steps, 12 * 16);
  ASSERT_EQ(stats.epoch_losses.size(), 12u);
  EXPECT_LT(stats.epoch_losses.back(), 0.5 * stats.epoch_losses.front());
  auto logits = (*tuner)->PredictClassification(dev);
  ASSERT_TRUE(logits.ok()) << logits.status();
  std::vector<int32_t> labels;
  for (const auto& e : dev) labels.push_back(e.label);
  EXPECT_GT(Accuracy(*logits, 2, labels), 0.85);
}

TEST(TwoEncoderFinetunerTest, CreateLoadsEachCheckpointIntoItsEncoder) {
  const FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kClassifier);
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  const ParameterLayout& layout = (*tuner)->layout();
  const std::vector<float>& params = (*tuner)->parameters();
  const Checkpoints& checkpoints = TinyCheckpoints();
  ParameterLayout encoder;
  AddEncoderParameters(ToyBertConfig(), &encoder);
  int64_t loaded = 0;
  for (const ParameterInfo& info : encoder.parameters()) {
    const ParameterInfo* ltr = layout.Find(kLeftToRightPrefix + info.name);
    const ParameterInfo* rtl = layout.Find(kRightToLeftPrefix + info.name);
    ASSERT_NE(ltr, nullptr) << info.name;
    ASSERT_NE(rtl, nullptr) << info.name;
    ASSERT_EQ(ltr->size, info.size);
    for (int64_t i = 0; i < info.size; ++i) {
      ASSERT_EQ(params[ltr->offset + i], checkpoints.ltr[info.offset + i])
          << "ltr." << info.name << " [" << i << "]";
      ASSERT_EQ(params[rtl->offset + i], checkpoints.rtl[info.offset + i])
          << "rtl." << info.name << " [" << i << "]";
    }
    loaded += 2 * info.size;
  }
  // Everything else is the head, initialised from the seed.
  std::vector<float> initial(layout.total_size());
  InitializeParameters(layout, SplitMix64(options.seed), initial.data());
  for (const char* name : {"classifier.weight", "classifier.bias"}) {
    const ParameterInfo* head = layout.Find(name);
    ASSERT_NE(head, nullptr) << name;
    for (int64_t i = 0; i < head->size; ++i) {
      ASSERT_EQ(params[head->offset + i], initial[head->offset + i]) << name;
    }
    loaded += head->size;
  }
  EXPECT_EQ(loaded, layout.total_size());
  EXPECT_EQ(layout.Find("classifier.weight")->shape,
            (std::vector<int64_t>{2, 2 * ToyBertConfig().hidden_size}));
}

TEST(TwoEncoderFinetunerTest, PredictClassificationIsTwoEncoderForward) {
  const FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kClassifier);
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  const auto train = MarkerTask(32, 3);
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Classification(&train)).ok());
  const auto dev = MarkerTask(40, 4);
  auto logits = (*tuner)->PredictClassification(dev);
  ASSERT_TRUE(logits.ok()) << logits.status();

  std::vector<const EncodedSequence*> sequences;
  for (const auto& e : dev) sequences.push_back(&e.sequence);
  const PaddedRows rows(sequences);
  ASSERT_GT(rows.longest, 8);
  const DirectModel direct(options);
  ASSERT_EQ(direct.model.layout().total_size(),
            (*tuner)->layout().total_size());
  TwoEncoderStepBuffers<float> buffers(direct.model, rows.rows, kMaxSeqLength);
  TwoEncoderForward(direct.model, (*tuner)->parameters().data(), rows.View(),
                    FinetuneTargets{}, DropoutSettings{}, &buffers);
  const std::vector<float> expected(
      buffers.classifier->logits(),
      buffers.classifier->logits() + dev.size() * 2);
  EXPECT_EQ(*logits, expected);
}

TEST(TwoEncoderFinetunerTest, PredictSpansIsTwoEncoderForward) {
  const FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kSpan);
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  const auto train = MarkerSpans(32, 5);
  ASSERT_TRUE((*tuner)->Train(TrainingSet::Spans(&train)).ok());
  const auto dev = MarkerSpans(24, 6);
  std::vector<float> start, end;
  ASSERT_TRUE((*tuner)->PredictSpans(dev, &start, &end).ok());

  std::vector<const EncodedSequence*> sequences;
  for (const auto& f : dev) sequences.push_back(&f.sequence);
  const PaddedRows rows(sequences);
  const DirectModel direct(options);
  TwoEncoderStepBuffers<float> buffers(direct.model, rows.rows, kMaxSeqLength);
  TwoEncoderForward(direct.model, (*tuner)->parameters().data(), rows.View(),
                    FinetuneTargets{}, DropoutSettings{}, &buffers);
  const int64_t n = rows.rows * kMaxSeqLength;
  EXPECT_EQ(start, std::vector<float>(buffers.span->start_logits(),
                                      buffers.span->start_logits() + n));
  EXPECT_EQ(end, std::vector<float>(buffers.span->end_logits(),
                                    buffers.span->end_logits() + n));
}

TEST(TwoEncoderFinetunerTest, PredictMultipleChoiceIsTwoEncoderForward) {
  FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kMultipleChoice);
  options.batch_size = 8;
  auto tuner = Finetuner::Create(options);
  ASSERT_TRUE(tuner.ok()) << tuner.status();
  const auto train = MarkerChoices(16, 7);
  ASSERT_TRUE((*tuner)->Train(TrainingSet::MultipleChoice(&train)).ok());
  const auto dev = MarkerChoices(20, 8);
  auto scores = (*tuner)->PredictMultipleChoice(dev);
  ASSERT_TRUE(scores.ok()) << scores.status();

  std::vector<const EncodedSequence*> sequences;
  for (const auto& e : dev) {
    for (const auto& choice : e.choices) sequences.push_back(&choice);
  }
  const PaddedRows rows(sequences);
  ASSERT_GT(rows.longest, 8);
  const DirectModel direct(options);
  TwoEncoderStepBuffers<float> buffers(direct.model, rows.rows, kMaxSeqLength);
  TwoEncoderForward(direct.model, (*tuner)->parameters().data(), rows.View(),
                    FinetuneTargets{}, DropoutSettings{}, &buffers);
  EXPECT_EQ(*scores, std::vector<float>(
                         buffers.multiple_choice->scores(),
                         buffers.multiple_choice->scores() + dev.size() * 4));
}

TEST(TwoEncoderFinetunerTest, RefusesWhatTheModelCannotTake) {
  const Checkpoints& checkpoints = TinyCheckpoints();
  FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kClassifier);
  options.init_checkpoint.clear();
  absl::Status status = ValidateFinetuneOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("rtl_checkpoint needs init_checkpoint"));

  options = TwoEncoderOptions(FinetuneHead::kClassifier);
  options.model.bilstm = true;
  status = ValidateFinetuneOptions(options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("rtl_checkpoint and model.bilstm cannot both be set"));

  // Swapped: the RTL checkpoint as init_checkpoint, the LTR one as
  // rtl_checkpoint.
  options = TwoEncoderOptions(FinetuneHead::kClassifier);
  std::swap(options.init_checkpoint, options.rtl_checkpoint);
  status = Finetuner::Create(options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("init_checkpoint (left-to-right) and rtl_checkpoint "
                        "(right-to-left): the LTR checkpoint " +
                        checkpoints.rtl_dir +
                        " has attention_mode \"reverse_causal\""));

  // The LTR checkpoint given as the RTL one too.
  options = TwoEncoderOptions(FinetuneHead::kClassifier);
  options.rtl_checkpoint = checkpoints.ltr_dir;
  status = Finetuner::Create(options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("the RTL checkpoint " + checkpoints.ltr_dir +
                        " has attention_mode \"causal\"; the two-encoder "
                        "model's RTL encoder needs \"reverse_causal\""));
}

TEST(TwoEncoderFinetunerTest, SameSeedSameParametersOtherSeedOthers) {
  const auto train = MarkerTask(48, 1);
  FinetuneOptions options = TwoEncoderOptions(FinetuneHead::kClassifier);
  options.num_epochs = 2;
  auto a = Finetuner::Create(options);
  auto b = Finetuner::Create(options);
  options.seed = 8;
  auto c = Finetuner::Create(options);
  for (auto* t : {&a, &b, &c}) {
    ASSERT_TRUE(t->ok()) << t->status();
    ASSERT_TRUE((**t)->Train(TrainingSet::Classification(&train)).ok());
  }
  EXPECT_EQ((*a)->parameters(), (*b)->parameters());
  EXPECT_NE((*a)->parameters(), (*c)->parameters());
}

}  // namespace
}  // namespace bertlab
