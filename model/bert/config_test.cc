#include "model/bert/config.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr char kBaseJson[] = R"({
  "architectures": ["BertForMaskedLM"],
  "attention_probs_dropout_prob": 0.1,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 768,
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 12,
  "pad_token_id": 0,
  "type_vocab_size": 2,
  "vocab_size": 30522
})";

TEST(ConfigTest, ParsesTheHuggingFaceBaseConfig) {
  absl::StatusOr<BertConfig> config = ParseConfigJson(kBaseJson, "base.json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->hidden_size, 768);
  EXPECT_EQ(config->num_hidden_layers, 12);
  EXPECT_EQ(config->num_attention_heads, 12);
  EXPECT_EQ(config->head_dim(), 64);
  EXPECT_EQ(config->intermediate_size, 3072);
  EXPECT_EQ(config->vocab_size, 30522);
  EXPECT_EQ(config->type_vocab_size, 2);
  EXPECT_EQ(config->layer_norm_eps, 1e-12);
  EXPECT_EQ(config->hidden_act, GeluForm::kErf);
  EXPECT_EQ(config->attention_mode, AttentionMode::kBidirectional);
}

TEST(ConfigTest, RoundTripsThroughJson) {
  BertConfig config = ConfigForSize("L2_H128_A2", 997).value();
  config.hidden_act = GeluForm::kTanh;
  config.attention_mode = AttentionMode::kCausal;
  config.hidden_dropout_prob = 0.0;
  absl::StatusOr<BertConfig> parsed =
      ParseConfigJson(ConfigToJson(config), "x");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->vocab_size, 997);
  EXPECT_EQ(parsed->hidden_size, 128);
  EXPECT_EQ(parsed->intermediate_size, 512);
  EXPECT_EQ(parsed->hidden_act, GeluForm::kTanh);
  EXPECT_EQ(parsed->attention_mode, AttentionMode::kCausal);
  EXPECT_EQ(parsed->hidden_dropout_prob, 0.0);
  EXPECT_EQ(parsed->layer_norm_eps, 1e-12);
}

TEST(ConfigTest, RoundTripsEveryAttentionMode) {
  for (AttentionMode mode :
       {AttentionMode::kBidirectional, AttentionMode::kCausal,
        AttentionMode::kReverseCausal}) {
    BertConfig config = ConfigForSize("L2_H128_A2", 997).value();
    config.attention_mode = mode;
    const std::string json = ConfigToJson(config);
    EXPECT_THAT(json, HasSubstr(std::string("\"attention_mode\": \"") +
                                AttentionModeName(mode) + "\""));
    absl::StatusOr<BertConfig> parsed = ParseConfigJson(json, "x");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->attention_mode, mode) << AttentionModeName(mode);
  }
  EXPECT_STREQ(AttentionModeName(AttentionMode::kReverseCausal),
               "reverse_causal");
}

TEST(ConfigTest, SizeTableHasThePaperGrid) {
  struct Expected {
    const char* name;
    int64_t layers, hidden, heads;
  };
  for (const Expected& e :
       {Expected{"L3_H768_A12", 3, 768, 12}, Expected{"L6_H768_A3", 6, 768, 3},
        Expected{"L6_H768_A12", 6, 768, 12}, Expected{"base", 12, 768, 12},
        Expected{"L12_H1024_A16", 12, 1024, 16},
        Expected{"large", 24, 1024, 16}, Expected{"L4_H256_A4", 4, 256, 4}}) {
    absl::StatusOr<BertConfig> config = ConfigForSize(e.name, 30522);
    ASSERT_TRUE(config.ok()) << e.name;
    EXPECT_EQ(config->num_hidden_layers, e.layers) << e.name;
    EXPECT_EQ(config->hidden_size, e.hidden) << e.name;
    EXPECT_EQ(config->num_attention_heads, e.heads) << e.name;
    EXPECT_EQ(config->intermediate_size, 4 * e.hidden) << e.name;
  }
  EXPECT_THAT(ConfigForSize("huge", 10).status().message(),
              HasSubstr("unknown model size 'huge'; known sizes: L2_H128_A2"));
}

TEST(ConfigTest, RejectsBadConfigsNamingTheField) {
  EXPECT_THAT(ParseConfigJson("{", "c.json").status().message(),
              HasSubstr("c.json: malformed JSON"));
  EXPECT_THAT(ParseConfigJson("[]", "c.json").status().message(),
              HasSubstr("expected a JSON object"));
  EXPECT_THAT(
      ParseConfigJson(R"({"hidden_size": 8})", "c.json").status().message(),
      HasSubstr("missing required key(s): vocab_size, num_hidden_layers, "
                "num_attention_heads, intermediate_size, "
                "max_position_embeddings, type_vocab_size"));
  BertConfig config = ConfigForSize("L2_H128_A2", 100).value();
  config.num_attention_heads = 3;
  EXPECT_THAT(
      ParseConfigJson(ConfigToJson(config), "c.json").status().message(),
      HasSubstr("hidden_size (128) must be divisible by "
                "num_attention_heads (3)"));
  std::string json = ConfigToJson(ConfigForSize("L2_H128_A2", 100).value());
  std::string bad_act = json;
  bad_act.replace(bad_act.find("\"gelu\""), 6, "\"relu\"");
  EXPECT_THAT(ParseConfigJson(bad_act, "c.json").status().message(),
              HasSubstr("\"hidden_act\" must be \"gelu\""));
  std::string bad_type = json;
  bad_type.replace(bad_type.find("\"hidden_size\": 128"), 18,
                   "\"hidden_size\": \"128\"");
  EXPECT_THAT(ParseConfigJson(bad_type, "c.json").status().message(),
              HasSubstr("\"hidden_size\" must be an integer"));
  config = ConfigForSize("L2_H128_A2", 100).value();
  config.hidden_dropout_prob = 1.0;
  EXPECT_THAT(ValidateConfig(config).message(),
              HasSubstr("hidden_dropout_prob must be in [0, 1), got 1"));
}

// Sizes from a hostile or corrupt config.json are refused at parse time,
// before anything is allocated for them.
TEST(ConfigTest, RejectsAbsurdSizesBeforeAllocating) {
  const BertConfig base = ConfigForSize("base", 30522).value();
  const auto message_with = [&](auto edit) {
    BertConfig config = base;
    edit(config);
    return std::string(
        ParseConfigJson(ConfigToJson(config), "c.json").status().message());
  };
  EXPECT_THAT(
      message_with([](BertConfig& c) { c.hidden_size = 1000000000000; }),
      HasSubstr("hidden_size must be at most 2147483647, got "
                "1000000000000"));
  EXPECT_THAT(
      message_with([](BertConfig& c) { c.vocab_size = int64_t{1} << 40; }),
      HasSubstr("vocab_size must be at most 2147483647, got 1099511627776"));
  EXPECT_THAT(
      message_with([](BertConfig& c) { c.num_hidden_layers = 1000000000; }),
      HasSubstr("num_hidden_layers must be at most 1024, got 1000000000"));
  // Every field within its own bound, the product beyond 2^36.
  EXPECT_THAT(message_with([](BertConfig& c) {
                c.hidden_size = 65536;
                c.num_attention_heads = 64;
                c.intermediate_size = 262144;
              }),
              HasSubstr("the model would have 6.25e+11 parameters "
                        "(vocab_size 30522, hidden_size 65536, "
                        "num_hidden_layers 12, intermediate_size 262144), "
                        "more than the 6.87e+10 (2^36) bertlab supports"));
  // BERT-BASE: 109.5 million in the embeddings, encoder and pooler.
  EXPECT_NEAR(EncoderParameterCount(base), 109482240, 1);
  BertConfig large = ConfigForSize("large", 30522).value();
  EXPECT_TRUE(ValidateConfig(large).ok());
}

}  // namespace
}  // namespace bertlab
