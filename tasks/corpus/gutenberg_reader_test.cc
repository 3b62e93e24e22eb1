#include "tasks/corpus/gutenberg_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

struct Read {
  std::vector<Document> documents;
  std::vector<GutenbergBookInfo> books;
};

absl::StatusOr<Read> ReadBooks(
    std::vector<std::string> paths,
    GutenbergReaderOptions options = GutenbergReaderOptions()) {
  auto reader = GutenbergReader::Open(std::move(paths), options);
  if (!reader.ok()) return reader.status();
  absl::StatusOr<std::vector<Document>> documents = ReadAllDocuments(**reader);
  if (!documents.ok()) return documents.status();
  return Read{*std::move(documents), (*reader)->books()};
}

TEST(GutenbergMarkerTest, EveryVariantOfTheSharedBooks) {
  using M = GutenbergMarker;
  for (const char* line : {
           "*** START OF THE PROJECT GUTENBERG EBOOK THE BALL AND THE CROSS "
           "***",
           "*** START OF THIS PROJECT GUTENBERG EBOOK MOBY DICK; OR THE "
           "WHALE ***\r",
           "***START OF THE PROJECT GUTENBERG EBOOK X***",
           "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*",
           "*END THE SMALL PRINT! FOR PUBLIC DOMAIN EBOOKS*Ver.02/11/02*END*",
       }) {
    EXPECT_EQ(ClassifyGutenbergMarker(line), M::kHeaderEnd) << line;
  }
  for (const char* line : {
           "*** END OF THE PROJECT GUTENBERG EBOOK THE BALL AND THE CROSS ***",
           "*** END OF THIS PROJECT GUTENBERG EBOOK MOBY DICK; OR THE WHALE "
           "***",
           "End of The Project Gutenberg Etext of Emma, by Jane Austen",
           "End of the Project Gutenberg Etext of Persuasion by Jane Austin",
           "End of Project Gutenberg Etext The Man Who Was Thursday, by "
           "Chesterton",
           "End of Project Gutenberg's The Ball and The Cross, by G.K. "
           "Chesterton",
           "End of the Project Gutenberg EBook of Something",
       }) {
    EXPECT_EQ(ClassifyGutenbergMarker(line), M::kFooterStart) << line;
  }
  for (const char* line : {
           "***START**THE SMALL PRINT!**FOR PUBLIC DOMAIN ETEXTS**START***",
           "The Project Gutenberg EBook of The Ball and The Cross",
           "We are now trying to release all our eBooks one year in advance",
           "the end of the Project was near",
           "",
       }) {
    EXPECT_EQ(ClassifyGutenbergMarker(line), M::kNone) << line;
  }
}

TEST(ChapterHeadingTest, Headings) {
  for (const char* line : {
           "CHAPTER I",
           "CHAPTER XII.",
           "Chapter 1",
           "CHAPTER 45",
           "CHAPTER 1. Loomings.",
           "Chapter One",
           "BOOK ONE",
           "Book Twenty-One",
           "VOLUME I",
           "PART II",
           "Book I ",
           "Actus Primus. Scoena Prima.",
           "Actus Quintus.",
           "[BOOK I.  INSCRIPTIONS]",
           "[BOOKXXXV.  GOOD-BYE MY FANCY]",
           "I. A DISCUSSION SOMEWHAT IN THE AIR",
           "XX. DIES IRAE",
           "IV",
           "XIV.",
           "ONE",
           "TWELVE",
           "TWENTY-TWO",
           "12",
           "12.",
           "Epilogue",
           "CHAPTER IV THE LAST",
           "STAVE III",
           "CANTO 4",
           "Chapter 3--In which",
           "   CHAPTER II   ",
       }) {
    EXPECT_TRUE(IsChapterHeading(line)) << line;
  }
  for (const char* line : {
           "Part on the plain, or in the air sublime,",
           "Act to doe and to performe; argall she drown'd her selfe",
           "Book I have read",
           "Chapter house",
           "CHAPTERS",
           "CIVIL",
           "MIX",
           "IIII",
           "One",
           "1990",
           "FINIS",
           "THE END",
           "CHAPTER 1A",
           "Scena Secunda.",
           "The Tragedie of Hamlet",
           "I. A Discussion Somewhat in the Air",
           "",
           "[]",
           "CHAPTER 1. This title is far too long to be a heading, so long "
           "that nobody would ever set it on one line of a book as its title",
       }) {
    EXPECT_FALSE(IsChapterHeading(line)) << line;
  }
  EXPECT_TRUE(IsKeywordChapterHeading("CHAPTER 56. Of the Less Erroneous"));
  EXPECT_FALSE(IsKeywordChapterHeading("XII."));
}

constexpr char kBook[] =
    "The Project Gutenberg EBook of A Test, by Nobody\r\n"
    "\r\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK A TEST ***\r\n"
    "\r\n"
    "Produced by Some Volunteer\r\n"
    "\r\n"
    "A TEST\r\n"
    "\r\n"
    "CHAPTER I\r\n"
    "\r\n"
    "It was a dark\r\n"
    "and stormy night.  Mr. Hyde\r\n"
    "   left.\r\n"
    "\r\n"
    "This etext was scanned by a volunteer.\r\n"
    "\r\n"
    "CHAPTER II. THE NEXT\r\n"
    "\r\n"
    "\"Go!\" she said. He went.\x1A\r\n"
    "\r\n"
    "End of the Project Gutenberg EBook of A Test\r\n"
    "\r\n"
    "*** END OF THIS PROJECT GUTENBERG EBOOK A TEST ***\r\n"
    "Some licence text. It is long.\r\n";

TEST(GutenbergReaderTest, HeaderFooterChaptersAndParagraphs) {
  const std::string path = WriteTestFile("book.txt", kBook);
  absl::StatusOr<Read> read = ReadBooks({path});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(2));
  EXPECT_THAT(read->documents[0].sentences,
              ElementsAre("It was a dark and stormy night.", "Mr. Hyde left."));
  EXPECT_EQ(read->documents[0].source, path + ":11");
  EXPECT_THAT(read->documents[1].sentences,
              ElementsAre("\"Go!\" she said.", "He went."));
  ASSERT_THAT(read->books, SizeIs(1));
  const GutenbergBookInfo& book = read->books[0];
  EXPECT_EQ(book.path, path);
  EXPECT_EQ(book.header_end_line, 3);
  EXPECT_EQ(book.footer_start_line, 21);
  EXPECT_EQ(book.chapter_headings, 2);
  EXPECT_EQ(book.boilerplate_paragraphs_dropped, 2);   // credit + etext note
  EXPECT_EQ(book.front_matter_paragraphs_dropped, 1);  // "A TEST"
  EXPECT_EQ(book.documents, 2);
  EXPECT_EQ(book.sentences, 4);
}

TEST(GutenbergReaderTest, WithoutMarkersAndHeadingsTheBookIsOneDocument) {
  const std::string path = WriteTestFile(
      "plain.txt", "A POEM\n\nRoses are red,\nviolets blue.\n\nThe end.\n");
  absl::StatusOr<Read> read = ReadBooks({path});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(1));
  EXPECT_THAT(
      read->documents[0].sentences,
      ElementsAre("A POEM", "Roses are red, violets blue.", "The end."));
  ASSERT_THAT(read->books, SizeIs(1));
  EXPECT_EQ(read->books[0].header_end_line, 0);
  EXPECT_EQ(read->books[0].footer_start_line, 0);
  EXPECT_EQ(read->books[0].chapter_headings, 0);
}

TEST(GutenbergReaderTest, LargeFrontMatterIsKept) {
  // Most of the book comes before its only heading (as in blake-poems).
  const std::string text =
      "Poem one is long.\n\nPoem two is long.\n\nPoem three.\n\nI\n\nEnd.\n";
  absl::StatusOr<Read> read = ReadBooks({WriteTestFile("poems.txt", text)});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(2));
  EXPECT_THAT(read->documents[0].sentences, SizeIs(3));
  EXPECT_THAT(read->documents[1].sentences, ElementsAre("End."));
  // A fraction of 1 drops any front matter; 0 keeps it.
  GutenbergReaderOptions options;
  options.max_front_matter_fraction = 1.0;
  read = ReadBooks({WriteTestFile("poems.txt", text)}, options);
  ASSERT_TRUE(read.ok());
  ASSERT_THAT(read->documents, SizeIs(1));
  EXPECT_EQ(read->books[0].front_matter_paragraphs_dropped, 3);
  options.max_front_matter_fraction = 0;
  read = ReadBooks({WriteTestFile("front.txt", kBook)}, options);
  ASSERT_TRUE(read.ok());
  ASSERT_THAT(read->documents, SizeIs(3));
  EXPECT_THAT(read->documents[0].sentences, ElementsAre("A TEST"));
}

// Issue 39: --max_front_matter_fraction=nan was accepted (and kept every
// front matter); a fraction outside [0, 1] is refused too.
TEST(GutenbergReaderTest, AFractionOutsideZeroToOneIsRefused) {
  const std::string path = WriteTestFile("fraction.txt", kBook);
  for (const double fraction :
       {std::nan(""), -0.1, 1.5, std::numeric_limits<double>::infinity()}) {
    GutenbergReaderOptions options;
    options.max_front_matter_fraction = fraction;
    const auto reader = GutenbergReader::Open({path}, options);
    EXPECT_EQ(reader.status().code(), absl::StatusCode::kInvalidArgument)
        << fraction;
    EXPECT_THAT(reader.status().message(),
                ::testing::HasSubstr("expected a fraction in [0, 1]"));
  }
}

TEST(GutenbergReaderTest, VolumeThenChapterGivesNoEmptyDocument) {
  absl::StatusOr<Read> read = ReadBooks({WriteTestFile(
      "volumes.txt",
      "VOLUME I\n\n\nCHAPTER I\n\nOne.\n\nCHAPTER II\n\nTwo.\n\nVOLUME II\n\n"
      "CHAPTER I\n\nThree.\n")});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(3));
  EXPECT_THAT(read->documents[2].sentences, ElementsAre("Three."));
  EXPECT_EQ(read->books[0].chapter_headings, 5);
}

TEST(GutenbergReaderTest, TwoLineHeading) {
  absl::StatusOr<Read> read = ReadBooks({WriteTestFile(
      "wrapped.txt",
      "CHAPTER 1. Short.\n\nOne.\n\nCHAPTER 2. Of the Less Erroneous Pictures "
      "of Whales, and the True\nPictures of Whaling Scenes.\n\nTwo.\n")});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(2));
  EXPECT_THAT(read->documents[1].sentences, ElementsAre("Two."));
}

TEST(GutenbergReaderTest, SeveralBooksNeverShareADocument) {
  const std::string first = WriteTestFile("first.txt", "Alpha.\n");
  const std::string second = WriteTestFile("second.txt", "Beta.\n");
  absl::StatusOr<Read> read = ReadBooks({first, second});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_THAT(read->documents, SizeIs(2));
  EXPECT_THAT(read->books, SizeIs(2));
  EXPECT_EQ(read->documents[1].source, second + ":1");
}

TEST(GutenbergReaderTest, ParagraphsAndDocumentsAreBounded) {
  GutenbergReaderOptions options;
  options.limits.max_line_bytes = 12;
  options.limits.max_document_bytes = 20;
  absl::StatusOr<Read> read = ReadBooks(
      {WriteTestFile("bounded.txt",
                     "aaaa bbbb\ncccc dddd\neeee\n\nCHAPTER 1\n\nx\n")},
      options);
  ASSERT_TRUE(read.ok()) << read.status();
  // The paragraph is cut after its second line (19 bytes > 12); "eeee"
  // starts the next one, which brings the document to 23 >= 20 bytes.
  ASSERT_THAT(read->documents, SizeIs(2));
  EXPECT_THAT(read->documents[0].sentences,
              ElementsAre("aaaa bbbb cccc dddd", "eeee"));
  EXPECT_THAT(read->documents[1].sentences, ElementsAre("x"));
}

TEST(GutenbergReaderTest, BadInput) {
  absl::StatusOr<Read> read = ReadBooks({WriteTestFile("empty.txt", "")});
  ASSERT_TRUE(read.ok());
  EXPECT_THAT(read->documents, SizeIs(0));

  // Bytes without NUL are kept as text (no crash); a NUL byte means a binary
  // file, an error naming the line (line_reader.h).
  std::string junk;
  for (int i = 0; i < 100000; ++i) junk.push_back(static_cast<char>(i * 7919));
  read = ReadBooks({WriteTestFile("junk.bin", junk)});
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("junk.bin:1: NUL byte"));
  junk.erase(std::remove(junk.begin(), junk.end(), '\0'), junk.end());
  read = ReadBooks({WriteTestFile("junk_without_nul.bin", junk)});
  ASSERT_TRUE(read.ok()) << read.status();
  for (const Document& document : read->documents) {
    for (const std::string& sentence : document.sentences) {
      for (char c : sentence) {
        const unsigned char byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(byte >= 0x20 && byte != 0x7F) << int{byte};
      }
    }
  }

  const std::string path = WriteSingleLineFile("one_line.txt", 50 << 20);
  const int64_t peak_before = PeakResidentBytes();
  read = ReadBooks({path});
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(),
              HasSubstr("one_line.txt:1: line longer than"));
  EXPECT_LT(PeakResidentBytes() - peak_before, kOverlongLinePeakGrowthBytes);
}

}  // namespace
}  // namespace bertlab
