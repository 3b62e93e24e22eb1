#include "model/train/cloze_scorer.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/bert/initialize.h"
#include "model/bert_for_pretraining.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr int kPad = 0, kCls = 2, kSep = 3, kMask = 4;

BertConfig TinyConfig(AttentionMode mode) {
  BertConfig config;
  config.vocab_size = 40;
  config.hidden_size = 16;
  config.num_hidden_layers = 1;
  config.num_attention_heads = 2;
  config.intermediate_size = 32;
  config.max_position_embeddings = 32;
  config.attention_mode = mode;
  return config;
}

std::vector<float> RandomParams(const BertConfig& config) {
  const BertForPretraining model(config, /*next_sentence=*/false);
  std::vector<float> params(model.layout().total_size());
  InitializeParameters(model.layout(), 7, params.data());
  return params;
}

ClozeScorerOptions Options(ClozeContext context, int batch_size) {
  ClozeScorerOptions options;
  options.context = context;
  options.batch_size = batch_size;
  options.cls_id = kCls;
  options.sep_id = kSep;
  options.mask_id = kMask;
  options.pad_id = kPad;
  return options;
}

// Items of different lengths, so batches are padded.
std::vector<ClozeItem> Items() {
  std::vector<ClozeItem> items(3);
  items[0].left = {10, 11};
  items[0].right = {12, 13, 14, 15};
  items[1].left = {16};
  items[1].right = {17};
  items[2].left = {18, 19, 20, 21, 22};
  items[2].right = {};
  for (ClozeItem& item : items) item.candidates = {30, 31, 32, 33};
  return items;
}

TEST(ScoreClozeItems, PaddingAndBatchingDoNotChangeTheScores) {
  for (AttentionMode mode :
       {AttentionMode::kBidirectional, AttentionMode::kCausal,
        AttentionMode::kReverseCausal}) {
    const BertConfig config = TinyConfig(mode);
    const std::vector<float> params = RandomParams(config);
    auto one = ScoreClozeItems(config, params, Items(),
                               Options(ClozeContext::kBothSides, 1));
    auto many = ScoreClozeItems(config, params, Items(),
                                Options(ClozeContext::kBothSides, 32));
    ASSERT_TRUE(one.ok()) << one.status();
    ASSERT_TRUE(many.ok()) << many.status();
    ASSERT_EQ(one->size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ((*one)[i].size(), 4u);
      for (size_t c = 0; c < 4; ++c) {
        // Only the GEMMs' summation order differs with the batch: a logit
        // moves by about eps32 x sqrt(hidden 16) x its size (~1e-6), and a
        // score sums up to 9 log-probabilities.
        EXPECT_NEAR((*one)[i][c], (*many)[i][c], 1e-5)
            << AttentionModeName(mode) << " item " << i << " candidate " << c;
        EXPECT_LT((*one)[i][c], 0.0);
      }
    }
  }
}

// A model whose output bias makes token 32 far more likely than any other
// everywhere: every objective must then choose candidate 2 (token 32), in
// both contexts, since the blank is the only place the candidates differ.
TEST(ScoreClozeItems, EveryObjectiveChoosesTheTokenItsModelPrefers) {
  for (AttentionMode mode :
       {AttentionMode::kBidirectional, AttentionMode::kCausal,
        AttentionMode::kReverseCausal}) {
    const BertConfig config = TinyConfig(mode);
    std::vector<float> params = RandomParams(config);
    const BertForPretraining model(config, false);
    const ParameterInfo* bias = model.layout().Find("cls.predictions.bias");
    ASSERT_NE(bias, nullptr);
    params[bias->offset + 32] = 20.0f;
    for (ClozeContext context :
         {ClozeContext::kBothSides, ClozeContext::kLeftOnly}) {
      if (mode == AttentionMode::kReverseCausal &&
          context == ClozeContext::kLeftOnly) {
        continue;
      }
      auto scores =
          ScoreClozeItems(config, params, Items(), Options(context, 8));
      ASSERT_TRUE(scores.ok()) << scores.status();
      EXPECT_THAT(ClozeChoices(*scores), ::testing::ElementsAre(2, 2, 2))
          << AttentionModeName(mode);
    }
  }
}

// The left-to-right and right-to-left scores against a reference: each
// candidate's whole-sequence log-likelihood from one forward pass per
// sequence with every position predicted, less the terms whose context does
// not reach the blank. Those terms are the same for every candidate (the
// differences between candidates are the whole likelihood's).
TEST(ScoreClozeItems, LanguageModelScoresAreTheLikelihoodFromTheBlankOn) {
  for (AttentionMode mode :
       {AttentionMode::kCausal, AttentionMode::kReverseCausal}) {
    const bool ltr = mode == AttentionMode::kCausal;
    const BertConfig config = TinyConfig(mode);
    const std::vector<float> params = RandomParams(config);
    const BertForPretraining model(config, /*next_sentence=*/false);
    const std::vector<ClozeItem> items = Items();
    auto scores = ScoreClozeItems(config, params, items,
                                  Options(ClozeContext::kBothSides, 4));
    ASSERT_TRUE(scores.ok()) << scores.status();
    for (size_t i = 0; i < items.size(); ++i) {
      std::vector<double> whole, shared;
      for (size_t c = 0; c < items[i].candidates.size(); ++c) {
        std::vector<int32_t> ids = {kCls};
        ids.insert(ids.end(), items[i].left.begin(), items[i].left.end());
        const int32_t blank = static_cast<int32_t>(ids.size());
        ids.push_back(items[i].candidates[c]);
        ids.insert(ids.end(), items[i].right.begin(), items[i].right.end());
        ids.push_back(kSep);
        const int32_t n = static_cast<int32_t>(ids.size());
        std::vector<int32_t> types(n, 0), mask(n, 1), positions, labels;
        for (int32_t t = 0; t + 1 < n; ++t) {
          positions.push_back(ltr ? t : t + 1);
          labels.push_back(ltr ? ids[t + 1] : ids[t]);
        }
        EncoderBatch batch;
        batch.input_ids = ids.data();
        batch.token_type_ids = types.data();
        batch.attention_mask = mask.data();
        batch.batch = 1;
        batch.seq_len = n;
        PretrainingTargets targets;
        targets.positions = positions.data();
        targets.labels = labels.data();
        targets.num_predictions = n - 1;
        PretrainingStepBuffers<float> buffers(config, 1, n, n - 1);
        PretrainingForward(model, params.data(), batch, targets,
                           DropoutSettings(), &buffers);
        double sum = 0, left_out = 0;
        for (int32_t t = 0; t + 1 < n; ++t) {
          const float* row =
              buffers.heads.prediction_logits() + t * config.vocab_size;
          double z = 0;
          for (int64_t v = 0; v < config.vocab_size; ++v) z += std::exp(row[v]);
          const double term = row[labels[t]] - std::log(z);
          sum += term;
          // The predicted token's context misses the blank.
          if (ltr ? t + 1 < blank : t > blank) left_out += term;
        }
        whole.push_back(sum);
        shared.push_back(left_out);
        // 1e-5: the batching bound of PaddingAndBatchingDoNotChangeTheScores.
        EXPECT_NEAR((*scores)[i][c], sum - left_out, 1e-5)
            << AttentionModeName(mode) << " item " << i << " candidate " << c;
      }
      for (size_t c = 1; c < whole.size(); ++c) {
        EXPECT_NEAR(shared[c], shared[0], 1e-5) << AttentionModeName(mode);
        EXPECT_NEAR(whole[c] - whole[0], (*scores)[i][c] - (*scores)[i][0],
                    1e-5)
            << AttentionModeName(mode);
      }
    }
  }
}

TEST(ScoreClozeItems, LeftOnlyIgnoresTheRightContext) {
  for (AttentionMode mode :
       {AttentionMode::kBidirectional, AttentionMode::kCausal}) {
    const BertConfig config = TinyConfig(mode);
    const std::vector<float> params = RandomParams(config);
    std::vector<ClozeItem> items = Items();
    auto before = ScoreClozeItems(config, params, items,
                                  Options(ClozeContext::kLeftOnly, 8));
    auto both_before = ScoreClozeItems(config, params, items,
                                       Options(ClozeContext::kBothSides, 8));
    items[0].right = {20, 21};
    auto after = ScoreClozeItems(config, params, items,
                                 Options(ClozeContext::kLeftOnly, 8));
    auto both_after = ScoreClozeItems(config, params, items,
                                      Options(ClozeContext::kBothSides, 8));
    ASSERT_TRUE(before.ok() && after.ok() && both_before.ok() &&
                both_after.ok());
    EXPECT_EQ((*before)[0], (*after)[0]) << AttentionModeName(mode);
    // Both sides: the right context does count.
    EXPECT_NE((*both_before)[0], (*both_after)[0]) << AttentionModeName(mode);
  }
}

TEST(ScoreClozeItems, RefusesWhatItCannotScore) {
  const BertConfig rtl = TinyConfig(AttentionMode::kReverseCausal);
  EXPECT_THAT(ScoreClozeItems(rtl, RandomParams(rtl), Items(),
                              Options(ClozeContext::kLeftOnly, 8))
                  .status()
                  .message(),
              HasSubstr("not defined for a right-to-left model"));
  const BertConfig mlm = TinyConfig(AttentionMode::kBidirectional);
  ClozeScorerOptions unset = Options(ClozeContext::kBothSides, 8);
  unset.cls_id = -1;
  EXPECT_THAT(ScoreClozeItems(mlm, RandomParams(mlm), Items(), unset)
                  .status()
                  .message(),
              HasSubstr("token id -1 is outside the model's vocabulary"));
  std::vector<ClozeItem> long_items = Items();
  long_items[0].right.assign(40, 12);
  EXPECT_THAT(ScoreClozeItems(mlm, RandomParams(mlm), long_items,
                              Options(ClozeContext::kBothSides, 8))
                  .status()
                  .message(),
              HasSubstr("exceeds the model's max_position_embeddings (32)"));
  EXPECT_FALSE(ScoreClozeItems("/no/such/checkpoint", Items(),
                               Options(ClozeContext::kBothSides, 8))
                   .ok());
}

TEST(AddScores, SumsItemByItemAndRefusesOtherShapes) {
  const ClozeScores a = {{-1.0, -2.0}, {-3.0, -0.5}};
  const ClozeScores b = {{-2.0, -0.5}, {-1.0, -1.0}};
  auto sum = AddScores(a, b);
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ((*sum)[0], (std::vector<double>{-3.0, -2.5}));
  EXPECT_THAT(ClozeChoices(*sum), ::testing::ElementsAre(1, 1));
  EXPECT_FALSE(AddScores(a, {{-1.0}}).ok());
}

}  // namespace
}  // namespace bertlab
