#include "tasks/glue/glue_features.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Ids: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, a 4, b 5, c 6, d 7, e 8, f 9,
// g 10.
FullTokenizer TinyTokenizer() {
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(
      {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b", "c", "d", "e", "f", "g"},
      "tiny");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

GlueRawExample Pair(const std::string& a, const std::string& b) {
  GlueRawExample example;
  example.guid = "7";
  example.text_a = a;
  example.text_b = b;
  example.has_text_b = true;
  example.has_label = true;
  example.label = 1;
  return example;
}

TEST(TruncateSequencePairTest, PopsFromTheEndOfTheLonger) {
  std::vector<int> a = {1, 2, 3, 4, 5};
  std::vector<int> b = {10, 11};
  TruncateSequencePair(&a, &b, 5);
  EXPECT_THAT(a, ElementsAre(1, 2, 3));
  EXPECT_THAT(b, ElementsAre(10, 11));
  // Equal lengths: B loses first, then they alternate.
  a = {1, 2, 3};
  b = {10, 11, 12};
  TruncateSequencePair(&a, &b, 3);
  EXPECT_THAT(a, ElementsAre(1, 2));
  EXPECT_THAT(b, ElementsAre(10));
  // B longer.
  a = {1};
  b = {10, 11, 12, 13};
  TruncateSequencePair(&a, &b, 3);
  EXPECT_THAT(a, ElementsAre(1));
  EXPECT_THAT(b, ElementsAre(10, 11));
  // Fits already: untouched.
  a = {1, 2};
  b = {3};
  TruncateSequencePair(&a, &b, 3);
  EXPECT_THAT(a, ElementsAre(1, 2));
  EXPECT_THAT(b, ElementsAre(3));
}

TEST(EncodeGlueExampleTest, PairLayoutAndTruncation) {
  const FullTokenizer tokenizer = TinyTokenizer();
  // A = a b c d e (5), B = f g (2); max 8 leaves 5: A pops to a b c.
  absl::StatusOr<ClassificationExample> encoded =
      EncodeGlueExample(Pair("a b c d e", "f g"), tokenizer, 8);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_THAT(encoded->sequence.input_ids,
              ElementsAre(2, 4, 5, 6, 3, 9, 10, 3));
  EXPECT_THAT(encoded->sequence.token_type_ids,
              ElementsAre(0, 0, 0, 0, 0, 1, 1, 1));
  EXPECT_EQ(encoded->guid, "7");
  EXPECT_EQ(encoded->label, 1);
  EXPECT_TRUE(encoded->has_label);

  // Room to spare: nothing dropped, no padding.
  encoded = EncodeGlueExample(Pair("a", "b"), tokenizer, 128);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_THAT(encoded->sequence.input_ids, ElementsAre(2, 4, 3, 5, 3));
  EXPECT_THAT(encoded->sequence.token_type_ids, ElementsAre(0, 0, 0, 1, 1));

  // B longer: a | b c d e f with max 6 leaves 3: a | b c.
  encoded = EncodeGlueExample(Pair("a", "b c d e f"), tokenizer, 6);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_THAT(encoded->sequence.input_ids, ElementsAre(2, 4, 3, 5, 6, 3));

  // max 3: both segments empty.
  encoded = EncodeGlueExample(Pair("a", "b"), tokenizer, 3);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_THAT(encoded->sequence.input_ids, ElementsAre(2, 3, 3));
  EXPECT_THAT(
      EncodeGlueExample(Pair("a", "b"), tokenizer, 2).status().message(),
      HasSubstr("max_seq_length = 2 is too small: a sentence pair needs 3"));
}

TEST(EncodeGlueExampleTest, SingleSentenceAndUnlabelled) {
  const FullTokenizer tokenizer = TinyTokenizer();
  GlueRawExample example;
  example.guid = "3";
  example.text_a = "a b c d e";
  absl::StatusOr<ClassificationExample> encoded =
      EncodeGlueExample(example, tokenizer, 5);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_THAT(encoded->sequence.input_ids, ElementsAre(2, 4, 5, 6, 3));
  EXPECT_THAT(encoded->sequence.token_type_ids, ElementsAre(0, 0, 0, 0, 0));
  EXPECT_FALSE(encoded->has_label);
  EXPECT_EQ(encoded->label, kNoLabel);
}

TEST(EncodeGlueExampleTest, MissingSpecialTokens) {
  absl::StatusOr<Vocab> vocab =
      Vocab::FromTokens({"[UNK]", "[CLS]", "a"}, "no_sep");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_THAT(
      EncodeGlueExample(Pair("a", "a"), *tokenizer, 8).status().message(),
      HasSubstr("has no [SEP] token"));
}

// The MNLI fixtures with a vocabulary trained from the embedded default
// corpus (compact layout: [CLS] 2, [SEP] 3); released_glue_test repeats
// this with bert-base-uncased.
TEST(LoadGlueSplitTest, FixturesWithADefaultCorpusVocabulary) {
  absl::StatusOr<FullTokenizer> tokenizer = FullTokenizer::FromVocabFile(
      "tasks/testdata/web_vocab_uncased.txt", UncasedOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  absl::StatusOr<std::vector<GlueEncodedSet>> dev = LoadGlueSplit(
      "tasks/glue/testdata/glue", "mnli", GlueSplit::kDev, *tokenizer, 16);
  ASSERT_TRUE(dev.ok()) << dev.status();
  ASSERT_EQ(dev->size(), 2u);
  EXPECT_EQ((*dev)[1].set_name, "MNLI-mm");
  for (const GlueEncodedSet& set : *dev) {
    for (const ClassificationExample& example : set.examples) {
      EXPECT_EQ(example.sequence.input_ids.size(), 16u);
      EXPECT_EQ(example.sequence.input_ids.front(), 2);  // [CLS]
      EXPECT_EQ(example.sequence.input_ids.back(), 3);   // [SEP]
    }
  }
  // With this vocabulary every matched row holds more than 16 - 3
  // wordpieces (8 + 11, 16 + 26, 16 + 20).
  EXPECT_EQ((*dev)[0].truncated_examples, 3);
  // Row 0 loses 6: B three times (the longer), B (a tie), A, B (a tie).
  const ClassificationExample& first = (*dev)[0].examples[0];
  absl::StatusOr<std::vector<std::string>> tokens =
      tokenizer->IdsToTokens(std::vector<int>(first.sequence.input_ids.begin(),
                                              first.sequence.input_ids.end()));
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_THAT(*tokens, ElementsAre("[CLS]", "the", "new", "right", "##s", "are",
                                   "n", "##ice", "[SEP]", "everyone", "re",
                                   "##ally", "like", "##s", "the", "[SEP]"));
}

TEST(LoadGlueSplitTest, UnknownTask) {
  const FullTokenizer tokenizer = TinyTokenizer();
  EXPECT_THAT(LoadGlueSplit("x", "SWAG", GlueSplit::kDev, tokenizer, 128)
                  .status()
                  .message(),
              HasSubstr("unknown GLUE task \"SWAG\""));
}

}  // namespace
}  // namespace bertlab
