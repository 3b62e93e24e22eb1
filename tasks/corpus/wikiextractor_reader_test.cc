#include "tasks/corpus/wikiextractor_reader.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

absl::StatusOr<std::vector<Document>> ReadFiles(
    std::vector<std::string> paths, ReaderLimits limits = ReaderLimits()) {
  auto reader = WikiExtractorReader::Open(std::move(paths), limits);
  if (!reader.ok()) return reader.status();
  return ReadAllDocuments(**reader);
}

constexpr char kTwoArticles[] =
    "<doc id=\"1\" url=\"http://x?curid=1\" title=\"Alpha\">\n"
    "Alpha\n"
    "\n"
    "Alpha is a letter. It comes first.\n"
    "History.\n"
    "</dl>\n"
    "<poem>\n"
    "Dr. Smith wrote about it in 1990. He liked it.\n"
    "</doc>\n"
    "<doc id=\"2\" url=\"http://x?curid=2\" title=\"Beta\">\n"
    "Beta\n"
    "Beta follows alpha.\n"
    "</doc>\n";

TEST(WikiExtractorReaderTest, OneDocumentPerArticleWithoutTheTitle) {
  const std::string path = WriteTestFile("two.txt", kTwoArticles);
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(2));
  EXPECT_THAT((*documents)[0].sentences,
              ElementsAre("Alpha is a letter.", "It comes first.", "History.",
                          "Dr. Smith wrote about it in 1990.", "He liked it."));
  EXPECT_EQ((*documents)[0].source, path + ":4");
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("Beta follows alpha."));
  EXPECT_EQ((*documents)[1].source, path + ":12");
}

TEST(WikiExtractorReaderTest, ArticlesWithoutTextAreSkipped) {
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({WriteTestFile(
      "stub.txt",
      "<doc id=\"3\" title=\"Stub\">\nStub\n\n</doc>\n\n<doc id=\"4\">\nT\n"
      "Text.\n</doc>\n")});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(1));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("Text."));
}

TEST(WikiExtractorReaderTest, CrlfAndSeveralFiles) {
  const std::string first = WriteTestFile(
      "crlf.txt", "<doc id=\"1\">\r\nTitle\r\nOne. Two.\r\n</doc>\r\n");
  const std::string second =
      WriteTestFile("second.txt", "<doc id=\"2\">\nT\nThree.\n</doc>");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({first, second});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(2));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("One.", "Two."));
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("Three."));
}

TEST(WikiExtractorReaderTest, NestedDocIsAnError) {
  const std::string path = WriteTestFile(
      "nested.txt", "<doc id=\"1\">\nT\nText.\n<doc id=\"2\">\nT\n</doc>\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr(absl::StrCat(path,
                                     ":4: <doc> inside the <doc> opened "
                                     "at ",
                                     path, ":1")));
}

TEST(WikiExtractorReaderTest, CloseWithoutOpenIsAnError) {
  const std::string path =
      WriteTestFile("close.txt", "<doc id=\"1\">\nT\n</doc>\n</doc>\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr(path + ":4: </doc> without <doc>"));
}

TEST(WikiExtractorReaderTest, EndOfFileInsideDocIsAnError) {
  const std::string path =
      WriteTestFile("truncated.txt", "<doc id=\"1\">\nT\nText.\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr(absl::StrCat(path,
                                     ":3: the file ends inside the "
                                     "<doc> opened at ",
                                     path, ":1")));
}

TEST(WikiExtractorReaderTest, TextOutsideDocIsAnError) {
  const std::string path = WriteTestFile("outside.txt", "\nJust text.\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr(path + ":2: text outside <doc>...</doc>"));
}

TEST(WikiExtractorReaderTest, MarkupOnlyLines) {
  EXPECT_TRUE(IsMarkupOnlyLine("</dl>"));
  EXPECT_TRUE(IsMarkupOnlyLine(" <poem style=\"margin-left:1em;\"> "));
  EXPECT_TRUE(IsMarkupOnlyLine("<br> <br>"));
  EXPECT_FALSE(IsMarkupOnlyLine("<poem>Q. When the Philosophers"));
  EXPECT_FALSE(IsMarkupOnlyLine("a <b>"));
  EXPECT_FALSE(IsMarkupOnlyLine("<unclosed"));
  EXPECT_FALSE(IsMarkupOnlyLine(""));
}

TEST(WikiExtractorReaderTest, BadInput) {
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("empty.txt", "")});
  ASSERT_TRUE(documents.ok());
  EXPECT_THAT(*documents, SizeIs(0));

  std::string junk;
  for (int i = 0; i < 100000; ++i) junk.push_back(static_cast<char>(i * 7919));
  documents = ReadFiles({WriteTestFile("junk.bin", junk)});
  ASSERT_FALSE(documents.ok());  // not WikiExtractor output, and says so
  EXPECT_THAT(documents.status().message(), HasSubstr("junk.bin:"));

  const std::string path = WriteSingleLineFile("one_line.txt", 50 << 20);
  const int64_t peak_before = PeakResidentBytes();
  documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr("one_line.txt:1: line longer than"));
  EXPECT_LT(PeakResidentBytes() - peak_before, kOverlongLinePeakGrowthBytes);
}

}  // namespace
}  // namespace bertlab
