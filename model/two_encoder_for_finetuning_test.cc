// The two-encoder (LTR & RTL) fine-tuning model:
//  - every parameter gradient of both encoders + head against central
//    differences in double, for each head, with dropout on and padded rows
//    (the fixture and tolerances of model/testing/finetune_fixture.h);
//  - parity: its outputs are the two encoders run standalone on their blocks
//    of the parameters and concatenated by hand, and its logits the head's on
//    that concatenation, exactly;
//  - direction: the LTR half at t ignores tokens after t, the RTL half at t
//    tokens before t;
//  - LoadTwoEncoderCheckpoints puts each checkpoint in its own block, and
//    refuses swapped or mismatched checkpoints, leaving params untouched.
#include "model/two_encoder_for_finetuning.h"

#include <stdint.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/checkpoint.h"
#include "model/bert/initialize.h"
#include "model/testing/finetune_fixture.h"

namespace bertlab {
namespace {

using ::bertlab::testing::CheckFinetuneGradients;
using ::bertlab::testing::FinetuneTestTargets;
using ::bertlab::testing::GradientCheckDropout;
using ::bertlab::testing::GradientCheckRows;
using ::bertlab::testing::SaveTinyPretrainingCheckpoint;
using ::bertlab::testing::TestDir;
using ::testing::HasSubstr;

// The attention modes are the model's own (kCausal, kReverseCausal).
BertConfig TinyConfig() { return ::bertlab::testing::TinyFinetuneConfig(); }

constexpr int64_t kSeqLen = ::bertlab::testing::FinetuneRows::kSeqLen;

// Rows that pool (for the LTR encoder) their last real token.
struct Rows : ::bertlab::testing::FinetuneRows {
  Rows(int64_t rows, int64_t vocab)
      : FinetuneRows(rows, vocab, /*last_token_pooling=*/true) {}
};

FinetuneModelOptions Options(FinetuneHead head, int64_t num_labels = 3) {
  return ::bertlab::testing::TinyFinetuneOptions(head, num_labels);
}

void CheckGradients(const std::string& name,
                    const FinetuneModelOptions& options) {
  SCOPED_TRACE(name);
  const TwoEncoderForFinetuning model(TinyConfig(), options);
  const int64_t rows = GradientCheckRows(options);
  const Rows batch(rows, model.ltr_config().vocab_size);
  const FinetuneTestTargets targets(options);
  const DropoutSettings dropout = GradientCheckDropout();
  TwoEncoderStepBuffers<double> buffers(model, rows, kSeqLen);
  const std::vector<double> gradient = CheckFinetuneGradients(
      name, model.layout(),
      [&](const double* params, double* grads) {
        return TwoEncoderForwardBackward(model, params, grads, batch.View(),
                                         targets.targets(), dropout, &buffers);
      },
      [&](const double* params) {
        return TwoEncoderForward(model, params, batch.View(), targets.targets(),
                                 dropout, &buffers);
      });
  // Both encoders get a gradient.
  for (const EncoderBlock* block :
       {&model.ltr_encoder(), &model.rtl_encoder()}) {
    double norm = 0.0;
    for (int64_t i = block->begin; i < block->begin + block->size; ++i) {
      norm += gradient[i] * gradient[i];
    }
    EXPECT_GT(norm, 0.0);
  }
}

TEST(TwoEncoderForFinetuningTest, ClassifierGradients) {
  CheckGradients("classifier", Options(FinetuneHead::kClassifier));
}

TEST(TwoEncoderForFinetuningTest, RegressionGradients) {
  CheckGradients("regression", Options(FinetuneHead::kClassifier, 1));
}

TEST(TwoEncoderForFinetuningTest, SpanGradients) {
  CheckGradients("span", Options(FinetuneHead::kSpan));
}

TEST(TwoEncoderForFinetuningTest, MultipleChoiceGradients) {
  CheckGradients("multiple choice", Options(FinetuneHead::kMultipleChoice));
}

TEST(TwoEncoderForFinetuningTest, LayoutHasBothEncodersUnderTheirPrefixes) {
  const TwoEncoderForFinetuning model(TinyConfig(),
                                      Options(FinetuneHead::kClassifier));
  ParameterLayout standalone;
  AddEncoderParameters(model.ltr_config(), &standalone);
  for (const ParameterInfo& info : standalone.parameters()) {
    const ParameterInfo* ltr = model.layout().Find("ltr." + info.name);
    const ParameterInfo* rtl = model.layout().Find("rtl." + info.name);
    ASSERT_NE(ltr, nullptr) << info.name;
    ASSERT_NE(rtl, nullptr) << info.name;
    EXPECT_EQ(ltr->offset, model.ltr_encoder().begin + info.offset);
    EXPECT_EQ(rtl->offset, model.rtl_encoder().begin + info.offset);
    EXPECT_EQ(ltr->shape, info.shape);
  }
  EXPECT_EQ(model.layout().Find(standalone.parameters()[0].name), nullptr);
  EXPECT_NE(model.layout().Find("classifier.weight"), nullptr);
  EXPECT_EQ(model.layout().Find("classifier.weight")->shape,
            (std::vector<int64_t>{3, 12}));
  EXPECT_EQ(model.ltr_config().attention_mode, AttentionMode::kCausal);
  EXPECT_EQ(model.rtl_config().attention_mode, AttentionMode::kReverseCausal);
  EXPECT_EQ(model.head_config().hidden_size, 12);
}

// The values of one encoder's block of `params`, as a standalone layout's.
std::vector<double> Block(const std::vector<double>& params,
                          const EncoderBlock& block) {
  return std::vector<double>(params.begin() + block.begin,
                             params.begin() + block.begin + block.size);
}

TEST(TwoEncoderForFinetuningTest, EqualsTheTwoEncodersConcatenatedByHand) {
  const TwoEncoderForFinetuning model(TinyConfig(),
                                      Options(FinetuneHead::kClassifier));
  std::vector<double> params(model.layout().total_size());
  InitializeParameters(model.layout(), 7, params.data());
  const Rows batch(3, model.ltr_config().vocab_size);
  const DropoutSettings dropout{true, 11, 4};
  TwoEncoderStepBuffers<double> buffers(model, 3, kSeqLen);
  TwoEncoderForward(model, params.data(), batch.View(), FinetuneTargets{},
                    dropout, &buffers);

  ParameterLayout standalone;
  const EncoderOffsets offsets =
      AddEncoderParameters(model.ltr_config(), &standalone);
  const std::vector<double> ltr_params = Block(params, model.ltr_encoder());
  const std::vector<double> rtl_params = Block(params, model.rtl_encoder());
  EncoderActivations<double> ltr(model.ltr_config(), 3, kSeqLen);
  EncoderActivations<double> rtl(model.rtl_config(), 3, kSeqLen);
  EncoderForward(model.ltr_config(), offsets, ltr_params.data(), batch.View(),
                 dropout, &ltr);
  EncoderBatch rtl_batch = batch.View();
  rtl_batch.pooled_positions = nullptr;
  EncoderForward(model.rtl_config(), offsets, rtl_params.data(), rtl_batch,
                 RightToLeftDropout(dropout), &rtl);

  const int64_t hidden = model.ltr_config().hidden_size;
  std::vector<double> pooled;
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t t = 0; t < kSeqLen; ++t) {
      const int64_t row = r * kSeqLen + t;
      for (int64_t h = 0; h < hidden; ++h) {
        EXPECT_EQ(buffers.sequence_output[row * 2 * hidden + h],
                  ltr.sequence_output()[row * hidden + h]);
        EXPECT_EQ(buffers.sequence_output[row * 2 * hidden + hidden + h],
                  rtl.sequence_output()[row * hidden + h]);
      }
    }
    for (int64_t h = 0; h < hidden; ++h) {
      pooled.push_back(ltr.pooled_output()[r * hidden + h]);
    }
    for (int64_t h = 0; h < hidden; ++h) {
      pooled.push_back(rtl.pooled_output()[r * hidden + h]);
    }
  }
  EXPECT_EQ(buffers.pooled_output, pooled);

  ClassifierHeadActivations<double> head(model.head_config(), 3, 3);
  ClassifierHeadForward(model.head_config(), model.classifier_offsets(),
                        params.data(), pooled.data(), ClassifierTargets{}, 3,
                        dropout, &head);
  for (int64_t i = 0; i < 3 * 3; ++i) {
    EXPECT_EQ(buffers.classifier->logits()[i], head.logits()[i]) << i;
  }
}

// Row 1 is row 0 with the token at kChanged replaced: the LTR half must
// agree before kChanged, the RTL half after it, and each must differ at it.
TEST(TwoEncoderForFinetuningTest, EachHalfSeesOnlyItsDirection) {
  const TwoEncoderForFinetuning model(TinyConfig(),
                                      Options(FinetuneHead::kSpan));
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 3, params.data());
  const int64_t vocab = model.ltr_config().vocab_size;
  Rows batch(2, vocab);
  std::fill(batch.mask.begin(), batch.mask.end(), 1);
  std::fill(batch.types.begin(), batch.types.end(), 0);
  for (int64_t t = 0; t < kSeqLen; ++t) batch.ids[kSeqLen + t] = batch.ids[t];
  batch.pooled = {kSeqLen - 1, kSeqLen - 1};
  constexpr int64_t kChanged = 3;
  batch.ids[kSeqLen + kChanged] = (batch.ids[kChanged] + 5) % vocab;
  TwoEncoderStepBuffers<float> buffers(model, 2, kSeqLen);
  TwoEncoderForward(model, params.data(), batch.View(), FinetuneTargets{},
                    DropoutSettings{}, &buffers);

  const int64_t hidden = model.ltr_config().hidden_size;
  const float* out = buffers.sequence_output.data();
  // Half `half` (0 LTR, 1 RTL) of position t in rows 0 and 1 agree.
  auto same = [&](int64_t t, int half) {
    for (int64_t h = 0; h < hidden; ++h) {
      const int64_t column = half * hidden + h;
      if (out[t * 2 * hidden + column] !=
          out[(kSeqLen + t) * 2 * hidden + column]) {
        return false;
      }
    }
    return true;
  };
  for (int64_t t = 0; t < kSeqLen; ++t) {
    EXPECT_EQ(same(t, 0), t < kChanged) << "LTR at " << t;
    EXPECT_EQ(same(t, 1), t > kChanged) << "RTL at " << t;
  }
  // Both pooled halves read the whole input.
  const float* pooled = buffers.pooled_output.data();
  for (int half = 0; half < 2; ++half) {
    bool differs = false;
    for (int64_t h = 0; h < hidden; ++h) {
      differs |=
          pooled[half * hidden + h] != pooled[2 * hidden + half * hidden + h];
    }
    EXPECT_TRUE(differs) << "pooled half " << half;
  }
}

TEST(TwoEncoderForFinetuningTest, LoadsEachCheckpointIntoItsOwnEncoder) {
  const BertConfig config = TinyConfig();
  const TwoEncoderForFinetuning model(config,
                                      Options(FinetuneHead::kClassifier));
  const std::string ltr_dir = TestDir("ltr");
  const std::string rtl_dir = TestDir("rtl");
  const std::vector<float> ltr =
      SaveTinyPretrainingCheckpoint(ltr_dir, config, AttentionMode::kCausal, 1);
  const std::vector<float> rtl = SaveTinyPretrainingCheckpoint(
      rtl_dir, config, AttentionMode::kReverseCausal, 2);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 9, params.data());
  const std::vector<float> initial = params;

  ASSERT_TRUE(
      LoadTwoEncoderCheckpoints(model, ltr_dir, rtl_dir, params.data()).ok());
  const EncoderBlock& ltr_block = model.ltr_encoder();
  const EncoderBlock& rtl_block = model.rtl_encoder();
  for (int64_t i = 0; i < ltr_block.size; ++i) {
    ASSERT_EQ(params[ltr_block.begin + i], ltr[i]) << i;
    ASSERT_EQ(params[rtl_block.begin + i], rtl[i]) << i;
  }
  for (size_t i = rtl_block.begin + rtl_block.size; i < params.size(); ++i) {
    EXPECT_EQ(params[i], initial[i]) << "head entry " << i;
  }

  // Swapped: the LTR slot gets the reverse-causal checkpoint.
  std::vector<float> untouched = initial;
  const absl::Status swapped =
      LoadTwoEncoderCheckpoints(model, rtl_dir, ltr_dir, untouched.data());
  EXPECT_EQ(swapped.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(swapped.message()),
              HasSubstr("the LTR checkpoint " + rtl_dir +
                        " has attention_mode \"reverse_causal\""));
  EXPECT_EQ(untouched, initial);

  // A bidirectional checkpoint in the RTL slot.
  const std::string bert_dir = TestDir("bidirectional");
  SaveTinyPretrainingCheckpoint(bert_dir, config, AttentionMode::kBidirectional,
                                3);
  const absl::Status bidirectional =
      LoadTwoEncoderCheckpoints(model, ltr_dir, bert_dir, untouched.data());
  EXPECT_THAT(std::string(bidirectional.message()),
              HasSubstr("RTL encoder needs \"reverse_causal\""));
  EXPECT_EQ(untouched, initial);

  // Two checkpoints of different shapes.
  BertConfig wider = config;
  wider.intermediate_size = 12;
  const std::string wider_dir = TestDir("wider_rtl");
  SaveTinyPretrainingCheckpoint(wider_dir, wider, AttentionMode::kReverseCausal,
                                4);
  const absl::Status mismatch =
      LoadTwoEncoderCheckpoints(model, ltr_dir, wider_dir, untouched.data());
  EXPECT_THAT(std::string(mismatch.message()),
              HasSubstr("differ in more than attention_mode"));
  EXPECT_EQ(untouched, initial);
}

}  // namespace
}  // namespace bertlab
