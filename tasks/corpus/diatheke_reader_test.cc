#include "tasks/corpus/diatheke_reader.h"

#include <string>
#include <vector>

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
  auto reader = DiathekeReader::Open(std::move(paths), limits);
  if (!reader.ok()) return reader.status();
  return ReadAllDocuments(**reader);
}

TEST(DiathekeVerseTest, ParsesReferenceAndDropsLeakedTitles) {
  DiathekeVerse verse;
  ASSERT_TRUE(ParseDiathekeVerse(
      "Genesis 1:1: <w savlm=\"strong:H0430\">In</w> the beginning", &verse));
  EXPECT_EQ(verse.book, "Genesis");
  EXPECT_EQ(verse.chapter, 1);
  EXPECT_EQ(verse.verse, 1);
  EXPECT_EQ(verse.markup, "<w savlm=\"strong:H0430\">In</w> the beginning");

  ASSERT_TRUE(ParseDiathekeVerse(
      "<title canonical=\"true\" type=\"psalm\">A Psalm by David.<note "
      "placement=\"foot\"></note></title> <lg sID=\"g1\"/> <l level=\"1\" "
      "sID=\"g2\"/>Esther (Greek) 10:13: Text",
      &verse));
  EXPECT_EQ(verse.book, "Esther (Greek)");
  EXPECT_EQ(verse.chapter, 10);
  EXPECT_EQ(verse.verse, 13);
  EXPECT_EQ(verse.markup, "Text");

  ASSERT_TRUE(ParseDiathekeVerse("Revelation of John 22:21:", &verse));
  EXPECT_EQ(verse.book, "Revelation of John");
  EXPECT_EQ(verse.markup, "");
  ASSERT_TRUE(ParseDiathekeVerse("I Samuel 3:2:  two spaces", &verse));
  EXPECT_EQ(verse.book, "I Samuel");
  EXPECT_EQ(verse.markup, " two spaces");

  for (const char* line :
       {"(engWEB2015eb)", "", "Genesis 1: no verse", "Genesis x:1: text",
        ":1:2: no book", "Genesis1:1: glued", "<b>Genesis</b 1:1: x"}) {
    EXPECT_FALSE(ParseDiathekeVerse(line, &verse)) << line;
  }
}

TEST(OsisTextTest, TagsSpacesAndNotes) {
  std::string text;
  EXPECT_TRUE(AppendOsisText(
      "<w savlm=\"x\">God</w><note placement=\"foot\" "
      "swordFootnote=\"1\"></note><w>created</w> the <divineName>heavens"
      "</divineName>.<milestone type=\"line\"/>",
      &text));
  EXPECT_EQ(ResolveSoftSpaces(text), "God created the heavens. ");

  text.clear();
  EXPECT_TRUE(AppendOsisText(
      "hear,</q><q marker=\"\">the dead. Roi.<note n=\"a\">note text</note> "
      "The gerahs<note/>); and said,<note/>\xE2\x80\x9C"
      "A forest\xE2\x80\x9D<note/>, done<note/>\xE2\x80\x9D",
      &text));
  EXPECT_EQ(ResolveSoftSpaces(text),
            "hear, the dead. Roi. The gerahs); and said, \xE2\x80\x9C"
            "A forest\xE2\x80\x9D, done\xE2\x80\x9D");

  // Structure tags separate words; speaker labels and titles go.
  text.clear();
  EXPECT_TRUE(AppendOsisText(
      "end.<div eID=\"a\" type=\"x-p\"/><div sID=\"b\" type=\"x-p\"/>Next"
      "<lb type=\"x-p\"/>line<l level=\"1\"/>two <speaker>Beloved</speaker> "
      "<title>Heading</title>three<item>four</item>",
      &text));
  EXPECT_EQ(ResolveSoftSpaces(text), "end.  Next line two    three four ");
}

TEST(OsisTextTest, BackMatterEndsTheText) {
  std::string text;
  EXPECT_FALSE(AppendOsisText(
      "Amen. <div type=\"book\"/> <div sID=\"g\" type=\"glossary\"/> "
      "<seg>Abba</seg> Abba is a word.",
      &text));
  EXPECT_EQ(text, "Amen.   ");
}

TEST(OsisTextTest, SoftSpaces) {
  const std::string soft(1, kSoftSpace);
  EXPECT_EQ(ResolveSoftSpaces("a" + soft + "b"), "a b");
  EXPECT_EQ(ResolveSoftSpaces("a" + soft + soft + "b"), "a b");
  EXPECT_EQ(ResolveSoftSpaces(soft + "a " + soft + "b" + soft), "a b");
  EXPECT_EQ(ResolveSoftSpaces("a" + soft + " b"), "a b");
  EXPECT_EQ(ResolveSoftSpaces("a" + soft + "."), "a.");
  EXPECT_EQ(ResolveSoftSpaces("a" + soft + "\xE2\x80\x99s"), "a\xE2\x80\x99s");
  EXPECT_EQ(ResolveSoftSpaces("a," + soft + "\xE2\x80\x98" + "b"),
            "a, \xE2\x80\x98"
            "b");
}

constexpr char kDump[] =
    "Genesis 1:1: <w>In</w> <w>the</w> <w>beginning</w>, <w>God</w><note "
    "placement=\"foot\" swordFootnote=\"1\"></note><w>created</w> the heavens "
    "and the earth.\n"
    "Genesis 1:2: The earth was formless. <div eID=\"a\" type=\"x-p\"/>\n"
    "<title canonical=\"true\" type=\"psalm\">A Psalm.</title> <lg/> "
    "<l/>Genesis 1:3: God said,<div type=\"x-p\"/> <lg sID=\"1\"/>"
    "\xE2\x80\x9CLet there be light.\xE2\x80\x9D Mr. Smith\n"
    "Genesis 1:4: agreed.\n"
    "Genesis 2:1: The heavens were finished.\n"
    "Revelation of John 22:21: The grace of the Lord Jesus Christ be with "
    "all the saints. Amen. <div type=\"book\"/> <div type=\"glossary\"/> "
    "Abaddon is Hebrew for destruction.\n"
    "(engWEB2015eb)\n";

TEST(DiathekeReaderTest, OneDocumentPerChapter) {
  const std::string path = WriteTestFile("dump.txt", kDump);
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(3));
  EXPECT_THAT(
      (*documents)[0].sentences,
      ElementsAre("In the beginning, God created the heavens and the earth.",
                  "The earth was formless.",
                  "God said, \xE2\x80\x9CLet there be light.\xE2\x80\x9D",
                  "Mr. Smith agreed."));
  EXPECT_EQ((*documents)[0].source, path + ":1");
  EXPECT_THAT((*documents)[1].sentences,
              ElementsAre("The heavens were finished."));
  EXPECT_EQ((*documents)[1].source, path + ":5");
  EXPECT_THAT((*documents)[2].sentences,
              ElementsAre("The grace of the Lord Jesus Christ be with all the "
                          "saints.",
                          "Amen."));
}

TEST(DiathekeReaderTest, EmptyChaptersAreSkipped) {
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({WriteTestFile(
      "empty_chapters.txt",
      "Susanna 1:1: \nSusanna 1:2: \nBel 1:1: Text.\nBel 2:1:  \n")});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(1));
  EXPECT_THAT((*documents)[0].sentences, ElementsAre("Text."));
}

TEST(DiathekeReaderTest, LongChaptersAreCut) {
  ReaderLimits limits;
  limits.max_line_bytes = 40;
  limits.max_document_bytes = 10;
  absl::StatusOr<std::vector<Document>> documents =
      ReadFiles({WriteTestFile("long.txt",
                               "Job 1:1: one two three four five\n"
                               "Job 1:2: six seven eight nine ten\n"
                               "Job 1:3: eleven.\n")},
                limits);
  ASSERT_TRUE(documents.ok()) << documents.status();
  // The chapter text passed 40 bytes after verse 2 and was split there;
  // that also filled the document.
  ASSERT_THAT(*documents, SizeIs(2));
  EXPECT_THAT((*documents)[0].sentences,
              ElementsAre("one two three four five six seven eight nine ten"));
  EXPECT_THAT((*documents)[1].sentences, ElementsAre("eleven."));
}

TEST(DiathekeReaderTest, BadInput) {
  const std::string path = WriteTestFile(
      "plain.txt", "Genesis 1:1: Fine.\nThis is not diatheke output.\n");
  absl::StatusOr<std::vector<Document>> documents = ReadFiles({path});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr(path + ":2: not a verse of `diatheke -f internal` "
                               "output"));

  documents = ReadFiles({WriteTestFile("empty.txt", "")});
  ASSERT_TRUE(documents.ok());
  EXPECT_THAT(*documents, SizeIs(0));

  std::string junk;
  for (int i = 0; i < 100000; ++i) junk.push_back(static_cast<char>(i * 7919));
  documents = ReadFiles({WriteTestFile("junk.bin", junk)});
  EXPECT_FALSE(documents.ok());  // no crash; not a verse line

  documents = ReadFiles({WriteSingleLineFile("one_line.txt", 50 << 20)});
  ASSERT_FALSE(documents.ok());
  EXPECT_THAT(documents.status().message(),
              HasSubstr("one_line.txt:1: line longer than"));
}

}  // namespace
}  // namespace bertlab
