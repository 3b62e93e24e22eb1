#include <cmath>
#include <vector>

#include "common/parallel.h"
#include "gtest/gtest.h"
#include "model/bert/config.h"
#include "model/bert/encoder_parameters.h"
#include "model/bert/initialize.h"
#include "model/bert/parameter_layout.h"

namespace bertlab {
namespace {

TEST(EncoderParametersTest, BaseHasThePaperParameterCount) {
  // BertModel (embeddings + encoder + pooler) of BERT-BASE and BERT-LARGE.
  ParameterLayout base;
  AddEncoderParameters(ConfigForSize("base", 30522).value(), &base);
  EXPECT_EQ(base.total_size(), 109482240);
  ParameterLayout large;
  AddEncoderParameters(ConfigForSize("large", 30522).value(), &large);
  EXPECT_EQ(large.total_size(), 335141888);
}

TEST(EncoderParametersTest, QueryKeyValueAreFused) {
  BertConfig config = ConfigForSize("L2_H128_A2", 50).value();
  ParameterLayout layout;
  EncoderOffsets offsets = AddEncoderParameters(config, &layout);
  const int64_t h = config.hidden_size;
  const auto* query =
      layout.Find("bert.encoder.layer.1.attention.self.query.weight");
  const auto* key =
      layout.Find("bert.encoder.layer.1.attention.self.key.weight");
  const auto* value =
      layout.Find("bert.encoder.layer.1.attention.self.value.weight");
  ASSERT_NE(query, nullptr);
  ASSERT_NE(key, nullptr);
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(query->offset, offsets.layers[1].qkv_weight);
  EXPECT_EQ(key->offset, query->offset + h * h);
  EXPECT_EQ(value->offset, query->offset + 2 * h * h);
  EXPECT_EQ(
      layout.Find("bert.encoder.layer.1.attention.self.value.bias")->offset,
      offsets.layers[1].qkv_bias + 2 * h);
  EXPECT_EQ(
      layout.Find("bert.encoder.layer.0.intermediate.dense.weight")->shape,
      (std::vector<int64_t>{4 * h, h}));
}

TEST(ParameterLayoutTest, WeightDecayExclusions) {
  EXPECT_TRUE(ExcludedFromWeightDecay("bert.embeddings.LayerNorm.weight"));
  EXPECT_TRUE(ExcludedFromWeightDecay("bert.pooler.dense.bias"));
  EXPECT_TRUE(ExcludedFromWeightDecay("cls.predictions.bias"));
  EXPECT_TRUE(ExcludedFromWeightDecay("bilstm.bias_ih_l0"));
  EXPECT_FALSE(ExcludedFromWeightDecay("bert.pooler.dense.weight"));
  EXPECT_FALSE(
      ExcludedFromWeightDecay("bert.embeddings.word_embeddings.weight"));
}

TEST(InitializeTest, FollowsEachInitializerDeterministically) {
  ParameterLayout layout;
  layout.Add("w", {200, 100}, Initializer::TruncatedNormal(0.02));
  layout.Add("u", {1000}, Initializer::Uniform(0.5));
  layout.Add("ones", {7}, Initializer::Constant(1.0));
  std::vector<float> values(layout.total_size());
  InitializeParameters(layout, 42, values.data());

  double sum = 0, sum_squares = 0;
  for (int i = 0; i < 20000; ++i) {
    ASSERT_LE(std::abs(values[i]), 0.04f + 1e-7f);  // truncated at 2 stddev
    sum += values[i];
    sum_squares += double(values[i]) * values[i];
  }
  // A normal truncated at +-2 sigma has stddev 0.8796 sigma.
  EXPECT_NEAR(sum / 20000, 0.0, 3 * 0.02 / std::sqrt(20000.0));
  EXPECT_NEAR(std::sqrt(sum_squares / 20000), 0.8796 * 0.02, 0.0005);
  for (int i = 20000; i < 21000; ++i) {
    ASSERT_GE(values[i], -0.5f);
    ASSERT_LT(values[i], 0.5f);
  }
  for (int i = 21000; i < 21007; ++i) EXPECT_EQ(values[i], 1.0f);

  // Same seed, any thread count: same values. Another seed: different.
  SetNumThreads(1);
  std::vector<float> again(layout.total_size());
  InitializeParameters(layout, 42, again.data());
  SetNumThreads(2);
  EXPECT_EQ(again, values);
  InitializeParameters(layout, 43, again.data());
  EXPECT_NE(again, values);
}

}  // namespace
}  // namespace bertlab
