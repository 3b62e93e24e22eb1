#include "tasks/vocab.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(VocabTest, IdIsTheZeroBasedLineNumber) {
  absl::StatusOr<Vocab> vocab = Vocab::Parse("[PAD]\n[UNK]\nthe\n##s\n", "v");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_EQ(vocab->size(), 4);
  EXPECT_EQ(vocab->TokenToId("[PAD]"), 0);
  EXPECT_EQ(vocab->TokenToId("##s"), 3);
  EXPECT_EQ(vocab->TokenToId("missing"), std::nullopt);
  EXPECT_TRUE(vocab->Contains("the"));
  EXPECT_FALSE(vocab->Contains("The"));
  EXPECT_EQ(vocab->IdToToken(2), "the");
  EXPECT_THAT(vocab->tokens(), ElementsAre("[PAD]", "[UNK]", "the", "##s"));
  EXPECT_EQ(vocab->source(), "v");
}

TEST(VocabTest, LineEndingsAreNotPartOfTokens) {
  // "\r\n" endings, and a last line without a newline.
  absl::StatusOr<Vocab> vocab = Vocab::Parse("a\r\nb\r\nc", "v");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(), ElementsAre("a", "b", "c"));
  // Other whitespace is kept (HF keeps it; the released vocabularies have
  // none).
  vocab = Vocab::Parse(" a\nb \n", "v");
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  EXPECT_THAT(vocab->tokens(), ElementsAre(" a", "b "));
}

TEST(VocabTest, ContentHashIsFnv1aOfTheCanonicalFile) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  absl::StatusOr<Vocab> lf = Vocab::Parse("a\nb\n", "lf");
  absl::StatusOr<Vocab> crlf = Vocab::Parse("a\r\nb", "crlf");
  ASSERT_TRUE(lf.ok() && crlf.ok());
  EXPECT_EQ(lf->content_hash(), Fnv1a64("a\nb\n"));
  EXPECT_EQ(lf->ContentHashHex(), "78ed6781f136a14e");
  EXPECT_EQ(crlf->content_hash(), lf->content_hash());
  absl::StatusOr<Vocab> other = Vocab::Parse("b\na\n", "other");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->content_hash(), lf->content_hash());
}

TEST(VocabTest, DuplicateTokenNamesBothLines) {
  absl::StatusOr<Vocab> vocab = Vocab::Parse("a\nb\nc\nb\n", "my/vocab.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_EQ(vocab.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("my/vocab.txt: duplicate token \"b\" on line 2 (id 1) "
                        "and line 4 (id 3)"));
}

TEST(VocabTest, RefusesEmptyFileEmptyLineAndInvalidUtf8) {
  absl::StatusOr<Vocab> vocab = Vocab::Parse("", "empty.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("empty.txt: the vocabulary is empty"));

  vocab = Vocab::Parse("a\n\nb\n", "blank.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(), HasSubstr("blank.txt:2: empty token"));

  vocab = Vocab::Parse("a\n\n", "trailing.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(), HasSubstr("trailing.txt:2:"));

  vocab = Vocab::Parse("a\nb\xC3\n", "bad.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_THAT(vocab.status().message(),
              HasSubstr("bad.txt:2: token (id 1) is not valid UTF-8"));
}

TEST(VocabTest, MissingFileIsNotFoundAndNamesThePath) {
  absl::StatusOr<Vocab> vocab = Vocab::LoadFile("/nonexistent/vocab.txt");
  ASSERT_FALSE(vocab.ok());
  EXPECT_EQ(vocab.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(vocab.status().message(), HasSubstr("/nonexistent/vocab.txt"));
}

TEST(VocabDeathTest, IdOutOfRangeIsABug) {
  absl::StatusOr<Vocab> vocab = Vocab::Parse("a\n", "v");
  ASSERT_TRUE(vocab.ok());
  EXPECT_DEATH(vocab->IdToToken(1), "token id 1 outside \\[0, 1\\)");
  EXPECT_DEATH(vocab->IdToToken(-1), "token id -1");
}

}  // namespace
}  // namespace bertlab
