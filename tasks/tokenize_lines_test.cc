#include "tasks/tokenize_lines.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/tokenizer_golden_for_test.h"

namespace bertlab {
namespace {

FullTokenizer ToyTokenizer() {
  absl::StatusOr<Vocab> vocab =
      Vocab::FromTokens({"[UNK]", "hello", "world", "##s", ","}, "toy");
  EXPECT_TRUE(vocab.ok());
  absl::StatusOr<FullTokenizer> tokenizer =
      FullTokenizer::Create(*std::move(vocab), UncasedOptions());
  EXPECT_TRUE(tokenizer.ok());
  return *std::move(tokenizer);
}

std::string TokenizeAll(const FullTokenizer& tokenizer, TokenizeOutput output,
                        const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out;
  const absl::Status status = TokenizeLines(tokenizer, output, in, out);
  EXPECT_TRUE(status.ok()) << status;
  return out.str();
}

TEST(TokenizeLinesTest, OneOutputLinePerInputLine) {
  const FullTokenizer tokenizer = ToyTokenizer();
  EXPECT_EQ(TokenizeAll(tokenizer, TokenizeOutput::kWordpieces,
                        "Hello, worlds\n\n  \nxyz hello"),
            "hello , world ##s\n\n\n[UNK] hello\n");
  EXPECT_EQ(TokenizeAll(tokenizer, TokenizeOutput::kIds, "Hello, worlds\r\n"),
            "1 4 2 3\n");
  EXPECT_EQ(
      TokenizeAll(tokenizer, TokenizeOutput::kBasicTokens, "Hello, xyz\n"),
      "hello , xyz\n");
  EXPECT_EQ(TokenizeAll(tokenizer, TokenizeOutput::kWordpieces, ""), "");
  // Only "\n" ends a line: \v, \f and NEXT LINE are dropped as control
  // characters (joining the words), LINE SEPARATOR splits words.
  EXPECT_EQ(TokenizeAll(tokenizer, TokenizeOutput::kWordpieces,
                        "hello\vworld\fhello\xC2\x85world\xE2\x80\xA8hello\n"),
            "[UNK] hello\n");
}

// The golden input with vocabularies this project trained from its embedded
// default corpus (tools/reference/make_tokenizer_golden.sh says how): no
// released vocabulary needed. Those are checked by released_vocab_test.
TEST(TokenizeLinesGoldenTest, DefaultCorpusVocabUncased) {
  ExpectTokenizerGolden("tasks/testdata/web_vocab_uncased.txt",
                        UncasedOptions(),
                        "tasks/testdata/tokenizer_golden_web_uncased.txt");
}

TEST(TokenizeLinesGoldenTest, DefaultCorpusVocabCased) {
  ExpectTokenizerGolden("tasks/testdata/web_vocab_cased.txt", CasedOptions(),
                        "tasks/testdata/tokenizer_golden_web_cased.txt");
}

}  // namespace
}  // namespace bertlab
