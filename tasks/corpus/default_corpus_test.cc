// Checks //tasks/corpus:default_corpus, the World English Bible in the
// reference format, and the diatheke dump it is made from. The pinned
// counts belong to module engWEB2015eb version 426.0 (sword-text-web
// 426.0-1, Debian 12); a new module version changes them, and the
// provenance check says so first.
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"
#include "tasks/corpus/diatheke_reader.h"
#include "tasks/corpus/line_reader.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/corpus/reference_format_writer.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

constexpr char kCorpus[] = "tasks/corpus/default_corpus.txt";
constexpr char kDump[] = "tasks/corpus/web_bible.osis.txt";
constexpr char kProvenance[] = "tasks/corpus/web_bible.provenance.txt";

// 1,397 chapters in the module's NRSVA versification; 9 are empty in this
// module (Esther (Greek) 11-16, Prayer of Azariah, Susanna, Bel and the
// Dragon), so 1,388 documents.
constexpr int64_t kBooks = 83;
constexpr int64_t kChapters = 1397;
constexpr int64_t kVerseLines = 37791;
constexpr int64_t kDocuments = 1388;

TEST(DefaultCorpusTest, ProvenanceNamesTheModuleVersion) {
  absl::StatusOr<std::string> provenance = ReadFileToString(kProvenance);
  ASSERT_TRUE(provenance.ok()) << provenance.status();
  EXPECT_THAT(*provenance, HasSubstr("module: engWEB2015eb\n"));
  EXPECT_THAT(*provenance, HasSubstr("Version=426.0\n"))
      << "a different WEB module: check the counts of this test";
  EXPECT_THAT(*provenance, HasSubstr("-f internal -o fs -k Gen-Rev"));
}

TEST(DefaultCorpusTest, DumpHasEveryBookAndChapter) {
  auto lines = LineReader::Open(kDump, ReaderLimits().max_line_bytes);
  ASSERT_TRUE(lines.ok()) << lines.status();
  std::vector<std::string> books;
  std::set<std::string> chapters;
  int64_t verses = 0;
  std::string line;
  DiathekeVerse verse;
  while (true) {
    absl::StatusOr<bool> more = (*lines)->Next(&line);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    if (!ParseDiathekeVerse(line, &verse)) {
      EXPECT_EQ(line, "(engWEB2015eb)");
      continue;
    }
    ++verses;
    if (books.empty() || books.back() != verse.book) {
      books.push_back(verse.book);
    }
    chapters.insert(absl::StrCat(verse.book, " ", verse.chapter));
  }
  EXPECT_EQ(verses, kVerseLines);
  EXPECT_EQ(static_cast<int64_t>(books.size()), kBooks);
  EXPECT_EQ(std::set<std::string>(books.begin(), books.end()).size(),
            books.size())
      << "a book appears twice";
  EXPECT_EQ(static_cast<int64_t>(chapters.size()), kChapters);
  ASSERT_FALSE(books.empty());
  EXPECT_EQ(books.front(), "Genesis");
  EXPECT_EQ(books.back(), "Revelation of John");
}

class DefaultCorpusDocumentsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto reader = ReferenceFormatReader::Open({kCorpus});
    ASSERT_TRUE(reader.ok()) << reader.status();
    absl::StatusOr<std::vector<Document>> documents =
        ReadAllDocuments(**reader);
    ASSERT_TRUE(documents.ok()) << documents.status();
    documents_ = new std::vector<Document>(*std::move(documents));
  }
  static void TearDownTestSuite() { delete documents_; }

  static const std::vector<Document>& documents() { return *documents_; }
  // Every sentence that contains `text`.
  static std::vector<std::string> Containing(absl::string_view text) {
    std::vector<std::string> found;
    for (const Document& document : documents()) {
      for (const std::string& sentence : document.sentences) {
        if (absl::StrContains(sentence, text)) found.push_back(sentence);
      }
    }
    return found;
  }

  static std::vector<Document>* documents_;
};

std::vector<Document>* DefaultCorpusDocumentsTest::documents_ = nullptr;

TEST_F(DefaultCorpusDocumentsTest, OneDocumentPerNonEmptyChapter) {
  ASSERT_EQ(static_cast<int64_t>(documents().size()), kDocuments);
  int64_t sentences = 0;
  for (const Document& document : documents()) {
    sentences += static_cast<int64_t>(document.sentences.size());
  }
  // About 36 sentences a chapter.
  EXPECT_GT(sentences, 45000);
  EXPECT_LT(sentences, 55000);
  absl::StatusOr<std::string> text = ReadFileToString(kCorpus);
  ASSERT_TRUE(text.ok());
  EXPECT_GT(text->size(), 4500000u);
  EXPECT_LT(text->size(), 5200000u);
}

TEST_F(DefaultCorpusDocumentsTest, SentencesLookRight) {
  ASSERT_FALSE(documents().empty());
  const std::vector<std::string>& genesis_1 = documents().front().sentences;
  ASSERT_GE(genesis_1.size(), 3u);
  EXPECT_EQ(genesis_1[0],
            "In the beginning, God created the heavens and the earth.");
  EXPECT_EQ(genesis_1[1], "The earth was formless and empty.");
  EXPECT_EQ(genesis_1[2],
            "Darkness was on the surface of the deep and God\xE2\x80\x99s "
            "Spirit was hovering over the surface of the waters.");
  const std::vector<std::string>& revelation_22 = documents().back().sentences;
  ASSERT_GE(revelation_22.size(), 2u);
  EXPECT_EQ(revelation_22[revelation_22.size() - 2],
            "The grace of the Lord Jesus Christ be with all the saints.");
  EXPECT_EQ(revelation_22.back(), "Amen.");
  EXPECT_THAT(Containing("For God so loved the world"),
              ::testing::ElementsAre(
                  "For God so loved the world, that he gave his only born "
                  "Son, that whoever believes in him should not perish, but "
                  "have eternal life."));
  EXPECT_THAT(
      Containing("Yahweh is my shepherd"),
      ::testing::ElementsAre("Yahweh is my shepherd; I shall lack nothing."));
  // A sentence across a paragraph mark and a poetry line (Genesis 9:25).
  EXPECT_THAT(Containing("Canaan is cursed"),
              ::testing::ElementsAre("He said, \xE2\x80\x9C"
                                     "Canaan is "
                                     "cursed."));
}

TEST_F(DefaultCorpusDocumentsTest, NoVerseNumbersMarkupOrBackMatter) {
  for (const Document& document : documents()) {
    for (const std::string& sentence : document.sentences) {
      for (size_t i = 1; i + 1 < sentence.size(); ++i) {
        if (sentence[i] == ':' &&
            absl::ascii_isdigit(static_cast<unsigned char>(sentence[i - 1])) &&
            absl::ascii_isdigit(static_cast<unsigned char>(sentence[i + 1]))) {
          ADD_FAILURE() << "verse reference in: " << sentence;
          break;
        }
      }
      EXPECT_FALSE(absl::StrContains(sentence, "<")) << sentence;
      EXPECT_FALSE(absl::StrContains(sentence, ">")) << sentence;
      EXPECT_FALSE(absl::StrContains(sentence, std::string(1, kSoftSpace)));
    }
  }
  // Psalm superscriptions (diatheke repeats them before later verses) and
  // the glossary appended to Revelation 22:21 are gone.
  EXPECT_THAT(Containing("A Psalm by David, when he fled from Absalom"),
              ::testing::IsEmpty());
  EXPECT_THAT(Containing("This Psalm is a genuine one of David"),
              ::testing::IsEmpty());
  EXPECT_THAT(Containing("Abaddon is Hebrew for destruction"),
              ::testing::IsEmpty());
}

TEST_F(DefaultCorpusDocumentsTest, NoGluedWords) {
  // What `diatheke -f plain` prints at notes and touching quotations.
  for (const char* glued :
       {"Godcreated", "Christ,called", "hear,the", "flesh,so", "man,having",
        "ofAchan", "ofTubias", "righteousness.\xE2\x80\x9DThen", "world.He"}) {
    EXPECT_THAT(Containing(glued), ::testing::IsEmpty()) << glued;
  }
  EXPECT_THAT(Containing("Jesus Christ, called to be an apostle"),
              ::testing::SizeIs(1));
  // No letter touches a capital or a word after a comma anywhere.
  for (const Document& document : documents()) {
    for (const std::string& sentence : document.sentences) {
      for (size_t i = 1; i + 1 < sentence.size(); ++i) {
        const unsigned char before = sentence[i - 1];
        const unsigned char here = sentence[i];
        const unsigned char after = sentence[i + 1];
        const bool glued_capital =
            absl::ascii_islower(before) && absl::ascii_isupper(here);
        const bool glued_comma = absl::ascii_islower(before) &&
                                 (here == ',' || here == ';') &&
                                 absl::ascii_isalpha(after);
        if (glued_capital || glued_comma) {
          ADD_FAILURE() << "glued at " << i << ": " << sentence;
          break;
        }
      }
    }
  }
}

// The genrule's output equals a fresh conversion of the dump, byte for
// byte: the conversion is deterministic.
TEST(DefaultCorpusTest, ConversionIsDeterministic) {
  auto reader = DiathekeReader::Open({kDump});
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::ostringstream converted;
  absl::StatusOr<ReferenceFormatStats> stats =
      WriteReferenceFormat(**reader, converted);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->documents, kDocuments);
  absl::StatusOr<std::string> built = ReadFileToString(kCorpus);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_TRUE(converted.str() == *built)
      << "the built corpus differs from a fresh conversion";
}

}  // namespace
}  // namespace bertlab
