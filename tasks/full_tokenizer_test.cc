#include "tasks/full_tokenizer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

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

}  // namespace
}  // namespace bertlab
