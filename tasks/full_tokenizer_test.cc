#include "tasks/full_tokenizer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/shared_data_for_test.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

FullTokenizer ToyTokenizer(FullTokenizerOptions options) {
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(
      {"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un", "runn",
       "##ing", ",", "low", "lowest", "Un"},
      "toy");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), std::move(options));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

TEST(FullTokenizerTest, BasicThenWordPiece) {
  const FullTokenizer uncased = ToyTokenizer(UncasedOptions());
  EXPECT_THAT(uncased.Tokenize("UNwant\xC3\xA9"
                               "d,running"),
              ElementsAre("un", "##want", "##ed", ",", "runn", "##ing"));
  EXPECT_THAT(uncased.TokenizeToIds("UNwant\xC3\xA9"
                                    "d,running"),
              ElementsAre(7, 4, 5, 10, 8, 9));
  const FullTokenizer cased = ToyTokenizer(CasedOptions());
  EXPECT_THAT(cased.Tokenize("Unwanted, UNwanted"),
              ElementsAre("Un", "##want", "##ed", ",", "[UNK]"));
  EXPECT_THAT(cased.Tokenize(""), IsEmpty());
}

TEST(FullTokenizerTest, SpecialTokensPassThrough) {
  const FullTokenizer uncased = ToyTokenizer(UncasedOptions());
  EXPECT_THAT(uncased.Tokenize("[CLS] want [SEP]"),
              ElementsAre("[CLS]", "want", "[SEP]"));
}

TEST(FullTokenizerTest, TokensAndIdsRoundTrip) {
  const FullTokenizer tokenizer = ToyTokenizer(UncasedOptions());
  absl::StatusOr<std::vector<int>> ids =
      tokenizer.TokensToIds({"[CLS]", "un", "##want"});
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_THAT(*ids, ElementsAre(1, 7, 4));
  absl::StatusOr<std::vector<std::string>> tokens = tokenizer.IdsToTokens(*ids);
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_THAT(*tokens, ElementsAre("[CLS]", "un", "##want"));
}

TEST(FullTokenizerTest, UnknownTokensAndIdsAreErrors) {
  const FullTokenizer tokenizer = ToyTokenizer(UncasedOptions());
  absl::StatusOr<std::vector<int>> ids = tokenizer.TokensToIds({"un", "nope"});
  ASSERT_FALSE(ids.ok());
  EXPECT_THAT(ids.status().message(),
              HasSubstr("token 1 \"nope\" is not in the vocabulary toy"));
  absl::StatusOr<std::vector<std::string>> tokens =
      tokenizer.IdsToTokens({0, 14});
  ASSERT_FALSE(tokens.ok());
  EXPECT_THAT(tokens.status().message(),
              HasSubstr("id 1 is 14, outside [0, 14)"));
  EXPECT_FALSE(tokenizer.IdsToTokens({-1}).ok());
}

TEST(FullTokenizerTest, MissingVocabularyFileNamesIt) {
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::FromVocabFile("/no/such/vocab.txt", UncasedOptions());
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_EQ(tokenizer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(tokenizer.status().message(), HasSubstr("/no/such/vocab.txt"));
}

TEST(FullTokenizerTest, SurvivesMoves) {
  FullTokenizer first = ToyTokenizer(UncasedOptions());
  FullTokenizer second = std::move(first);
  std::vector<FullTokenizer> many;
  many.push_back(std::move(second));
  many.push_back(ToyTokenizer(CasedOptions()));
  EXPECT_THAT(many[0].Tokenize("unwanted"),
              ElementsAre("un", "##want", "##ed"));
}

// The released vocabularies, from ../shared/data.
absl::StatusOr<FullTokenizer> RealTokenizer(const std::string& model,
                                            FullTokenizerOptions options) {
  absl::StatusOr<std::string> shared =
      FindSharedDataDir("tasks/testdata/tokenizer_golden_input.txt");
  if (!shared.ok()) return shared.status();
  return FullTokenizer::FromVocabFile(
      *shared + "/vocab/" + model + "/vocab.txt", std::move(options));
}

TEST(RealVocabularyTest, BertBaseUncased) {
  absl::StatusOr<FullTokenizer> loaded =
      RealTokenizer("bert-base-uncased", UncasedOptions());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const FullTokenizer& tokenizer = *loaded;
  EXPECT_EQ(tokenizer.vocab().size(), 30522);
  // PAPER.md 4d: "hello world" -> [CLS] 7592 2088 [SEP].
  EXPECT_THAT(tokenizer.TokenizeToIds("hello world"), ElementsAre(7592, 2088));
  EXPECT_THAT(tokenizer.TokenizeToIds("[CLS] Hello World! [SEP]"),
              ElementsAre(101, 7592, 2088, 999, 102));
  EXPECT_THAT(tokenizer.Tokenize("unaffable"),
              ElementsAre("una", "##ffa", "##ble"));
  EXPECT_THAT(tokenizer.Tokenize("The caf\xC3\xA9 na\xC3\xAFve"),
              ElementsAre("the", "cafe", "naive"));
  EXPECT_THAT(tokenizer.Tokenize("emoji \xF0\x9F\x98\x80 here"),
              ElementsAre("em", "##oj", "##i", "[UNK]", "here"));
  EXPECT_THAT(tokenizer.Tokenize(std::string(101, 'x')), ElementsAre("[UNK]"));
  // Greek with final sigma: ΟΔΟΣ -> οδος.
  EXPECT_THAT(tokenizer.Tokenize("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3"),
              ElementsAre("\xCE\xBF", "##\xCE\xB4", "##\xCE\xBF\xCF\x82"));
}

TEST(RealVocabularyTest, BertBaseCased) {
  absl::StatusOr<FullTokenizer> loaded =
      RealTokenizer("bert-base-cased", CasedOptions());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const FullTokenizer& tokenizer = *loaded;
  EXPECT_EQ(tokenizer.vocab().size(), 28996);
  EXPECT_THAT(tokenizer.TokenizeToIds("Hello, World!"),
              ElementsAre(8667, 117, 1291, 106));
  EXPECT_THAT(tokenizer.Tokenize("unaffable"),
              ElementsAre("un", "##af", "##fa", "##ble"));
  EXPECT_THAT(tokenizer.Tokenize("na\xC3\xAFve"),
              ElementsAre("na", "##\xC3\xAF", "##ve"));
  EXPECT_THAT(tokenizer.Tokenize("[MASK] [mask]"),
              ElementsAre("[MASK]", "[", "mask", "]"));
}

TEST(RealVocabularyTest, EveryIdRoundTrips) {
  for (const auto& [model, options] :
       {std::pair{"bert-base-uncased", UncasedOptions()},
        std::pair{"bert-base-cased", CasedOptions()}}) {
    absl::StatusOr<FullTokenizer> loaded = RealTokenizer(model, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const FullTokenizer& tokenizer = *loaded;
    std::vector<int> ids(static_cast<size_t>(tokenizer.vocab().size()));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
    absl::StatusOr<std::vector<std::string>> tokens =
        tokenizer.IdsToTokens(ids);
    ASSERT_TRUE(tokens.ok()) << tokens.status();
    absl::StatusOr<std::vector<int>> back = tokenizer.TokensToIds(*tokens);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, ids) << model;
  }
}

}  // namespace
}  // namespace bertlab
