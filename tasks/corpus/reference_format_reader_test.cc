#include "tasks/corpus/reference_format_reader.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

absl::StatusOr<std::vector<Document>> ReadFiles(
    std::vector<std::string> paths, ReaderLimits limits = ReaderLimits()) {
  auto reader = ReferenceFormatReader::Open(std::move(paths), limits);
  if (!reader.ok()) return reader.status();
  return ReadAllDocuments(**reader);
}

TEST(ReferenceFormatReaderTest, BlankLinesSeparateDocuments) {
  const std::string path = WriteTestFile(
      "docs.txt",
      "\n\nFirst one.\n  Second one.  \n\nOther doc.\n \t \n\n\nLast.\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(3));
  EXPECT_THAT((*documents)[0].sentences,
              ElementsAre("First one.", "Second one."));
  EXPECT_EQ((*documents)[0].source, path + ":3");
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("Other doc."));
  EXPECT_EQ((*documents)[1].source, path + ":6");
  EXPECT_THAT((*documents)[2].sentences, ElementsAre("Last."));
  EXPECT_EQ((*documents)[2].source, path + ":10");
}

TEST(ReferenceFormatReaderTest, CrlfAndNoFinalNewline) {
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("crlf.txt", "A.\r\nB.\r\n\r\nC.\r\nD.")});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(2));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("A.", "B."));
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("C.", "D."));
}

TEST(ReferenceFormatReaderTest, EachFileEndsItsLastDocument) {
  const std::string first = WriteTestFile("first.txt", "a\nb");
  const std::string second = WriteTestFile("second.txt", "c\n\nd\n\n");
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({first, second, first});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(4));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("a", "b"));
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("c"));
  EXPECT_EQ((*documents)[1].source, second + ":1");
  EXPECT_THAT((*documents)[2].sentences, ElementsAre("d"));
  EXPECT_THAT((*documents)[3].sentences, ElementsAre("a", "b"));
}

TEST(ReferenceFormatReaderTest, SentencesAreKeptByteForByte) {
  const std::string odd = "caf\xC3\xA9 \xFF\xFE  two  spaces\x01.";
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("odd.txt", odd + "\n")});
  ASSERT_TRUE(documents.ok());
  ASSERT_THAT(*documents, SizeIs(1));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre(odd));
}

TEST(ReferenceFormatReaderTest, DocumentsAreCutAtTheSizeLimit) {
  ReaderLimits limits;
  limits.max_document_bytes = 10;
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("big.txt", "12345\n123\n12\n1\n\nx\n")}, limits);
  ASSERT_TRUE(documents.ok());
  ASSERT_THAT(*documents, SizeIs(3));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("12345", "123", "12"));
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("1"));
  EXPECT_THAT((*documents)[2].sentences, ElementsAre("x"));
}

TEST(ReferenceFormatReaderTest, EmptyAndBlankFilesHaveNoDocuments) {
  absl::StatusOr<std::vector<Document>> documents = ReadFiles(
      {WriteTestFile("empty.txt", ""), WriteTestFile("blank.txt", "\n \n")});
  ASSERT_TRUE(documents.ok());
  EXPECT_THAT(*documents, SizeIs(0));
}

// A NUL byte means a binary file: an error naming the line
// (line_reader.h). Other bytes, ill-formed UTF-8 included, are text.
TEST(ReferenceFormatReaderTest, BinaryJunkIsAnErrorOrText) {
  std::string junk;
  for (int i = 0; i < 100000; ++i) junk.push_back(static_cast<char>(i * 7919));
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("junk.bin", junk)});
  ASSERT_FALSE(documents.ok());
  EXPECT_EQ(documents.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(documents.status().message(),
              HasSubstr("junk.bin:1: NUL byte at column 1; is this a binary"));
  junk.erase(std::remove(junk.begin(), junk.end(), '\0'), junk.end());
  documents = ReadFiles({WriteTestFile("junk_without_nul.bin", junk)});
  ASSERT_TRUE(documents.ok()) << documents.status();
  EXPECT_FALSE(documents->empty());
}

TEST(ReferenceFormatReaderTest, OverlongLineIsAnErrorNamingFileAndLine) {
  const std::string path = WriteSingleLineFile("one_line.txt", 50 << 20);
  const int64_t peak_before = PeakResidentBytes();
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr("one_line.txt:1: line longer than 10485760 bytes"));
  EXPECT_LT(PeakResidentBytes() - peak_before, kOverlongLinePeakGrowthBytes);
}

TEST(ReferenceFormatReaderTest, OpenChecksEveryInput) {
  const std::string good = WriteTestFile("good.txt", "a\n");
  auto reader = ReferenceFormatReader::Open({good, good + ".missing"});
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().message(), HasSubstr("good.txt.missing"));
  EXPECT_FALSE(ReferenceFormatReader::Open({}).ok());
  ReaderLimits limits;
  limits.max_line_bytes = 0;
  EXPECT_FALSE(ReferenceFormatReader::Open({good}, limits).ok());
}

}  // namespace
}  // namespace bertlab
