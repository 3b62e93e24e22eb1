// The released BERT-Base vocabularies (../shared/data/vocab, which a fresh
// clone does not have: run with `bazel test --config=shared_data`): their
// layout, tokenization examples, and the Python reference's golden outputs
// (tools/reference/make_tokenizer_golden.sh).
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/full_tokenizer.h"
#include "tasks/shared_data_for_test.h"
#include "tasks/tokenizer_golden_for_test.h"
#include "tasks/vocab.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;

// The path of a released vocabulary; "" (and a failure) without the data.
std::string VocabPath(const std::string& model) {
  absl::StatusOr<std::string> shared = FindSharedDataDir(kTokenizerGoldenInput);
  EXPECT_TRUE(shared.ok()) << shared.status();
  if (!shared.ok()) return "";
  return *shared + "/vocab/" + model + "/vocab.txt";
}

TEST(ReleasedVocabTest, BertBaseUncased) {
  absl::StatusOr<Vocab> vocab = Vocab::LoadFile(VocabPath("bert-base-uncased"));
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_EQ(vocab->size(), 30522);
  EXPECT_EQ(vocab->TokenToId("[PAD]"), 0);
  EXPECT_EQ(vocab->TokenToId("[unused0]"), 1);
  EXPECT_EQ(vocab->TokenToId("[UNK]"), 100);
  EXPECT_EQ(vocab->TokenToId("[CLS]"), 101);
  EXPECT_EQ(vocab->TokenToId("[SEP]"), 102);
  EXPECT_EQ(vocab->TokenToId("[MASK]"), 103);
  EXPECT_EQ(vocab->TokenToId("the"), 1996);
  EXPECT_EQ(vocab->IdToToken(30521), "##\xEF\xBD\x9E");  // ##～
  EXPECT_EQ(vocab->ContentHashHex(), "1a8955ef43215668");
}

TEST(ReleasedVocabTest, BertBaseCased) {
  absl::StatusOr<Vocab> vocab = Vocab::LoadFile(VocabPath("bert-base-cased"));
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_EQ(vocab->size(), 28996);
  EXPECT_EQ(vocab->TokenToId("[PAD]"), 0);
  EXPECT_EQ(vocab->TokenToId("[UNK]"), 100);
  EXPECT_EQ(vocab->TokenToId("[CLS]"), 101);
  EXPECT_EQ(vocab->TokenToId("[SEP]"), 102);
  EXPECT_EQ(vocab->TokenToId("[MASK]"), 103);
  EXPECT_TRUE(vocab->Contains("The"));
  EXPECT_EQ(vocab->IdToToken(28995), "##\xEF\xBC\x9A");  // ##：
  EXPECT_EQ(vocab->ContentHashHex(), "829ab1269f3e4ba3");
}

absl::StatusOr<FullTokenizer> ReleasedTokenizer(const std::string& model,
                                                FullTokenizerOptions options) {
  return FullTokenizer::FromVocabFile(VocabPath(model), std::move(options));
}

TEST(ReleasedTokenizerTest, BertBaseUncased) {
  absl::StatusOr<FullTokenizer> loaded =
      ReleasedTokenizer("bert-base-uncased", UncasedOptions());
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

TEST(ReleasedTokenizerTest, BertBaseCased) {
  absl::StatusOr<FullTokenizer> loaded =
      ReleasedTokenizer("bert-base-cased", CasedOptions());
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

TEST(ReleasedTokenizerTest, EveryIdRoundTrips) {
  for (const auto& [model, options] :
       {std::pair{"bert-base-uncased", UncasedOptions()},
        std::pair{"bert-base-cased", CasedOptions()}}) {
    absl::StatusOr<FullTokenizer> loaded = ReleasedTokenizer(model, options);
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

TEST(ReleasedTokenizerGoldenTest, BertBaseUncased) {
  ExpectTokenizerGolden(VocabPath("bert-base-uncased"), UncasedOptions(),
                        "tasks/testdata/tokenizer_golden_uncased.txt");
}

TEST(ReleasedTokenizerGoldenTest, BertBaseCased) {
  ExpectTokenizerGolden(VocabPath("bert-base-cased"), CasedOptions(),
                        "tasks/testdata/tokenizer_golden_cased.txt");
}

}  // namespace
}  // namespace bertlab
