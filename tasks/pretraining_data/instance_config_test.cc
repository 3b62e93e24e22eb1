#include "tasks/pretraining_data/instance_config.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

// The message of ValidateInstanceConfig after `change` to the defaults.
template <typename Change>
std::string ErrorAfter(Change change) {
  InstanceConfig config;
  change(config);
  const absl::Status status = ValidateInstanceConfig(config);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(InstanceConfigTest, DefaultsAreTheReferenceFlags) {
  const InstanceConfig config;
  EXPECT_TRUE(ValidateInstanceConfig(config).ok());
  EXPECT_EQ(config.objective, LanguageModel::kMaskedLm);
  EXPECT_EQ(config.max_seq_length, 128);
  EXPECT_EQ(config.dupe_factor, 10);
  EXPECT_EQ(config.short_seq_prob, 0.1);
  EXPECT_EQ(config.masked_lm_prob, 0.15);
  EXPECT_EQ(config.max_predictions_per_seq, 20);
  EXPECT_EQ(config.mask_fraction, 0.8);
  EXPECT_EQ(config.random_fraction, 0.1);
  EXPECT_EQ(config.keep_fraction, 0.1);
  EXPECT_FALSE(config.do_whole_word_mask);
  EXPECT_TRUE(config.next_sentence);
  EXPECT_EQ(config.random_next_prob, 0.5);
  EXPECT_EQ(config.seed, 12345u);
  EXPECT_EQ(MaxNumTokens(config), 125);
}

TEST(InstanceConfigTest, RefusesTooShortSequences) {
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.max_seq_length = 3; }),
              HasSubstr("max_seq_length = 3 is too small"));
  // Pairs need two tokens besides [CLS] [SEP] [SEP].
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.max_seq_length = 4; }),
              HasSubstr("use max_seq_length >= 5"));
  InstanceConfig ltr;
  ltr.objective = LanguageModel::kLeftToRight;
  ltr.max_seq_length = 4;
  ltr.max_predictions_per_seq = 0;
  EXPECT_TRUE(ValidateInstanceConfig(ltr).ok());
  EXPECT_EQ(MaxNumTokens(ltr), 2);
  ltr.max_seq_length = 3;
  EXPECT_THAT(std::string(ValidateInstanceConfig(ltr).message()),
              HasSubstr("use max_seq_length >= 4"));
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.max_seq_length = 70000; }),
              HasSubstr("max_seq_length <= 65535"));
}

TEST(InstanceConfigTest, RefusesProbabilitiesOutOfRange) {
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.masked_lm_prob = 1.5; }),
              HasSubstr("masked_lm_prob = 1.5 is not a probability"));
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.short_seq_prob = -0.1; }),
              HasSubstr("short_seq_prob = -0.1"));
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.random_next_prob = 2; }),
              HasSubstr("random_next_prob = 2"));
}

TEST(InstanceConfigTest, MaskingMixMustSumToOne) {
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.keep_fraction = 0.2; }),
              HasSubstr("mask_fraction + random_fraction + keep_fraction = "
                        "0.8 + 0.1 + 0.2 = 1.1"));
  // The paper's Table 8 rows are all valid.
  for (const auto& [mask, same, random] :
       std::vector<std::tuple<double, double, double>>{{0.8, 0.1, 0.1},
                                                       {1.0, 0.0, 0.0},
                                                       {0.8, 0.0, 0.2},
                                                       {0.8, 0.2, 0.0},
                                                       {0.0, 0.2, 0.8},
                                                       {0.0, 0.0, 1.0}}) {
    InstanceConfig config;
    config.mask_fraction = mask;
    config.keep_fraction = same;
    config.random_fraction = random;
    EXPECT_TRUE(ValidateInstanceConfig(config).ok())
        << mask << " " << same << " " << random;
  }
}

TEST(InstanceConfigTest, RefusesOtherBadCounts) {
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.dupe_factor = 0; }),
              HasSubstr("dupe_factor = 0"));
  EXPECT_THAT(
      ErrorAfter([](InstanceConfig& c) { c.max_predictions_per_seq = 0; }),
      HasSubstr("max_predictions_per_seq = 0 is out of range"));
  EXPECT_THAT(
      ErrorAfter([](InstanceConfig& c) { c.max_predictions_per_seq = 129; }),
      HasSubstr("max_predictions_per_seq = 129"));
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.max_block_documents = 0; }),
              HasSubstr("max_block_documents = 0"));
  EXPECT_THAT(ErrorAfter([](InstanceConfig& c) { c.max_block_bytes = 0; }),
              HasSubstr("max_block_bytes = 0"));
  // Left-to-right instances may carry no masked-LM slots.
  InstanceConfig ltr;
  ltr.objective = LanguageModel::kLeftToRight;
  ltr.max_predictions_per_seq = 0;
  EXPECT_TRUE(ValidateInstanceConfig(ltr).ok());
}

TEST(InstanceConfigTest, TextRoundTripsEveryField) {
  InstanceConfig config;
  config.objective = LanguageModel::kLeftToRight;
  config.max_seq_length = 512;
  config.dupe_factor = 5;
  config.short_seq_prob = 0.3;
  config.masked_lm_prob = 0.1234567890123;
  config.max_predictions_per_seq = 76;
  config.mask_fraction = 0.0;
  config.random_fraction = 0.2;
  config.keep_fraction = 0.8;
  config.do_whole_word_mask = true;
  config.next_sentence = false;
  config.random_next_prob = 0.25;
  config.seed = 18446744073709551615ull;
  config.max_block_documents = 7;
  config.max_block_bytes = 99;
  const std::string text = InstanceConfigToText(config);
  EXPECT_THAT(text, HasSubstr("objective: ltr\nmax_seq_length: 512\n"));
  EXPECT_THAT(text, HasSubstr("masked_lm_prob: 0.1234567890123\n"));
  EXPECT_THAT(text, HasSubstr("seed: 18446744073709551615\n"));

  // Parse the text back through the same "name: value" split shards use.
  std::map<std::string, std::string> fields;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    const size_t colon = line.find(": ");
    fields[line.substr(0, colon)] = line.substr(colon + 2);
    start = end + 1;
  }
  fields["unknown_field"] = "1";
  absl::StatusOr<InstanceConfig> parsed = InstanceConfigFromFields(&fields);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(FirstInstanceConfigDifference(*parsed, config), "");
  EXPECT_EQ(InstanceConfigToText(*parsed), text);
  // Unknown names are left for the caller.
  EXPECT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields.begin()->first, "unknown_field");
}

TEST(InstanceConfigTest, ParsingNamesMissingAndMalformedFields) {
  std::map<std::string, std::string> fields = {{"objective", "mlm"}};
  absl::StatusOr<InstanceConfig> parsed = InstanceConfigFromFields(&fields);
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("config field max_seq_length is missing"));
  fields = {{"objective", "bidirectional"}};
  parsed = InstanceConfigFromFields(&fields);
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("objective: cannot parse \"bidirectional\""));
  // A shard holds mlm or ltr instances; the right-to-left LM reads ltr's.
  fields = {{"objective", "rtl"}};
  parsed = InstanceConfigFromFields(&fields);
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("objective: cannot parse \"rtl\""));
  InstanceConfig rtl;
  rtl.objective = LanguageModel::kRightToLeft;
  EXPECT_THAT(std::string(ValidateInstanceConfig(rtl).message()),
              HasSubstr("reads left-to-right instances; make them with "
                        "objective ltr"));
}

TEST(InstanceConfigTest, FirstDifferenceNamesTheField) {
  InstanceConfig a;
  InstanceConfig b;
  EXPECT_EQ(FirstInstanceConfigDifference(a, b), "");
  b.mask_fraction = 1.0;
  b.random_fraction = 0.0;
  EXPECT_EQ(FirstInstanceConfigDifference(a, b), "mask_fraction: 0.8 vs 1");
}

}  // namespace
}  // namespace bertlab
