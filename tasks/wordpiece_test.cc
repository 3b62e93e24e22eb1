#include "tasks/wordpiece.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The toy vocabulary of google-research/bert's tokenization_test.py.
Vocab ToyVocab() {
  absl::StatusOr<Vocab> vocab =
      Vocab::FromTokens({"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed",
                         "wa", "un", "runn", "##ing", ",", "low", "lowest",
                         "\xC3\xA9", "##\xC3\xA9", "caf", "##\xE4\xB8\xAD"},
                        "toy");
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  return *std::move(vocab);
}

std::vector<std::string> Pieces(const WordPieceTokenizer& tokenizer,
                                const std::vector<std::string>& words) {
  std::vector<std::string> pieces;
  for (const std::string& word : words) tokenizer.TokenizeWord(word, &pieces);
  return pieces;
}

TEST(WordPieceTest, GreedyLongestMatchFirst) {
  const Vocab vocab = ToyVocab();
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status();
  EXPECT_THAT(Pieces(*tokenizer, {"unwanted", "running"}),
              ElementsAre("un", "##want", "##ed", "runn", "##ing"));
  // "lowest" is in the vocabulary whole; "low" is not preferred.
  EXPECT_THAT(Pieces(*tokenizer, {"lowest"}), ElementsAre("lowest"));
  EXPECT_THAT(Pieces(*tokenizer, {"wantwant"}), ElementsAre("want", "##want"));
}

TEST(WordPieceTest, UnmatchableWordIsOneUnknownToken) {
  const Vocab vocab = ToyVocab();
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok());
  // "unwantedX": "un", "##want", "##ed" match, then "X" does not: the pieces
  // already found are taken back.
  EXPECT_THAT(Pieces(*tokenizer, {"un", "unwantedX", ","}),
              ElementsAre("un", "[UNK]", ","));
  // "wa" matches, then "##x" does not.
  EXPECT_THAT(Pieces(*tokenizer, {"wax"}), ElementsAre("[UNK]"));
}

TEST(WordPieceTest, ContinuationPiecesAndMultiByteCharacters) {
  const Vocab vocab = ToyVocab();
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_THAT(Pieces(*tokenizer, {"caf\xC3\xA9", "\xC3\xA9\xC3\xA9"}),
              ElementsAre("caf", "##\xC3\xA9", "\xC3\xA9", "##\xC3\xA9"));
  // A "##" piece only continues a word: "ed" alone has no match.
  EXPECT_THAT(Pieces(*tokenizer, {"ed"}), ElementsAre("[UNK]"));
  EXPECT_THAT(Pieces(*tokenizer, {"caf\xE4\xB8\xAD"}),
              ElementsAre("caf", "##\xE4\xB8\xAD"));
}

TEST(WordPieceTest, IdsAreThoseOfThePieces) {
  const Vocab vocab = ToyVocab();
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok());
  std::vector<int> ids;
  for (const char* word : {"unwanted", "unwantedX", "caf\xC3\xA9", ","}) {
    tokenizer->TokenizeWordToIds(word, &ids);
  }
  // un ##want ##ed, [UNK], caf ##é, ","
  EXPECT_THAT(ids, ElementsAre(7, 4, 5, 0, 15, 14, 10));
}

TEST(WordPieceTest, WordsLongerThanEveryPiece) {
  // The longest piece has 3 bytes, the longest continuation 2 after "##":
  // lookups of longer candidates are skipped, never their shorter ones.
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens(
      {"[UNK]", "abc", "a", "##bc", "##b", "##c", "##\xC3\xA9"}, "short");
  ASSERT_TRUE(vocab.ok());
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&*vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_THAT(Pieces(*tokenizer, {"abcbcbbc",
                                  "a\xC3\xA9\xC3\xA9"
                                  "bc"}),
              ElementsAre("abc", "##bc", "##b", "##bc", "a", "##\xC3\xA9",
                          "##\xC3\xA9", "##bc"));
  EXPECT_THAT(Pieces(*tokenizer, {"abcd"}), ElementsAre("[UNK]"));
}

TEST(WordPieceTest, MaxInputCharsCountsCodePoints) {
  const Vocab vocab = ToyVocab();
  WordPieceOptions options;
  options.max_input_chars_per_word = 4;
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&vocab, options);
  ASSERT_TRUE(tokenizer.ok());
  // 4 code points (6 bytes) pass, 5 do not.
  EXPECT_THAT(
      Pieces(*tokenizer, {"\xC3\xA9\xC3\xA9"
                          "\xC3\xA9\xC3\xA9"}),
      ElementsAre("\xC3\xA9", "##\xC3\xA9", "##\xC3\xA9", "##\xC3\xA9"));
  EXPECT_THAT(Pieces(*tokenizer, {"wantwant", "runn", "runni"}),
              ElementsAre("[UNK]", "runn", "[UNK]"));
}

TEST(WordPieceTest, DefaultLimitIsOneHundred) {
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens({"[UNK]", "a", "##a"}, "a");
  ASSERT_TRUE(vocab.ok());
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&*vocab, WordPieceOptions());
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_EQ(tokenizer->options().max_input_chars_per_word, 100);
  std::vector<std::string> pieces;
  tokenizer->TokenizeWord(std::string(100, 'a'), &pieces);
  EXPECT_EQ(pieces.size(), 100u);
  pieces.clear();
  tokenizer->TokenizeWord(std::string(101, 'a'), &pieces);
  EXPECT_THAT(pieces, ElementsAre("[UNK]"));
}

TEST(WordPieceTest, RefusesAVocabularyWithoutTheUnknownToken) {
  absl::StatusOr<Vocab> vocab = Vocab::FromTokens({"a", "##b"}, "no-unk.txt");
  ASSERT_TRUE(vocab.ok());
  absl::StatusOr<WordPieceTokenizer> tokenizer =
      WordPieceTokenizer::Create(&*vocab, WordPieceOptions());
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_THAT(tokenizer.status().message(),
              HasSubstr("\"[UNK]\" is not in the vocabulary no-unk.txt"));
  WordPieceOptions options;
  options.unknown_token = "a";
  options.max_input_chars_per_word = 0;
  tokenizer = WordPieceTokenizer::Create(&*vocab, options);
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_THAT(tokenizer.status().message(),
              HasSubstr("max_input_chars_per_word must be at least 1"));
}

}  // namespace
}  // namespace bertlab
