// The corpus readers and the sentence splitter on the real corpora in
// ../shared/data/corpus (which a fresh clone does not have: run with `bazel
// test --config=shared_data`). Each reader's own test covers the same code
// on text of our own.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tasks/corpus/corpus_test_util.h"
#include "tasks/corpus/gutenberg_reader.h"
#include "tasks/corpus/line_reader.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/corpus/sentence_splitter.h"
#include "tasks/corpus/wikiextractor_reader.h"
#include "tasks/shared_data_for_test.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

// ../shared/data/corpus, found through
// tasks/corpus/testdata/shared_data_anchor.txt (in the test's data).
absl::StatusOr<std::string> SharedCorpusDir() {
  absl::StatusOr<std::string> shared =
      FindSharedDataDir("tasks/corpus/testdata/shared_data_anchor.txt");
  if (!shared.ok()) return shared.status();
  return absl::StrCat(*shared, "/corpus");
}

absl::StatusOr<std::vector<Document>> ReadWiki(std::vector<std::string> paths) {
  auto reader = WikiExtractorReader::Open(std::move(paths));
  if (!reader.ok()) return reader.status();
  return ReadAllDocuments(**reader);
}

absl::StatusOr<std::vector<Document>> ReadReferenceFormat(
    std::vector<std::string> paths) {
  auto reader = ReferenceFormatReader::Open(std::move(paths));
  if (!reader.ok()) return reader.status();
  return ReadAllDocuments(**reader);
}

// The number of "<doc " lines of `path`.
int64_t CountDocLines(const std::string& path) {
  auto lines = LineReader::Open(path, ReaderLimits().max_line_bytes);
  EXPECT_TRUE(lines.ok()) << lines.status();
  if (!lines.ok()) return -1;
  int64_t count = 0;
  std::string line;
  while (true) {
    absl::StatusOr<bool> more = (*lines)->Next(&line);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) return count;
    if (absl::StartsWith(line, "<doc ")) ++count;
  }
}

TEST(ReleasedCorporaTest, WikiExtractorReadsTheWikipediaSample) {
  absl::StatusOr<std::string> corpus = SharedCorpusDir();
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  const std::string dir = *corpus + "/wikipedia-en-2015-wikiextractor/AA/wiki_";
  const std::string wiki_00 = dir + "00";
  absl::StatusOr<std::vector<Document>> documents = ReadWiki({wiki_00});
  ASSERT_TRUE(documents.ok()) << documents.status();
  EXPECT_EQ(static_cast<int64_t>(documents->size()), CountDocLines(wiki_00));
  EXPECT_THAT(*documents, SizeIs(38));
  const Document& anarchism = (*documents)[0];
  EXPECT_EQ(anarchism.source, wiki_00 + ":4");
  EXPECT_EQ(anarchism.sentences[0],
            "Anarchism is a political philosophy that advocates stateless "
            "societies often defined as self-governed voluntary institutions, "
            "but that several authors have defined as more specific "
            "institutions based on non-hierarchical free associations.");
  EXPECT_EQ(anarchism.sentences[1],
            "Anarchism holds the state to be undesirable, unnecessary, or "
            "harmful.");
  for (const Document& document : *documents) {
    for (const std::string& sentence : document.sentences) {
      EXPECT_FALSE(absl::StartsWith(sentence, "<doc")) << document.source;
      EXPECT_NE(sentence, "</dl>") << document.source;
    }
  }

  // All 32 files: 2,116 articles, none of them empty.
  std::vector<std::string> all;
  int64_t doc_lines = 0;
  for (int i = 0; i < 32; ++i) {
    all.push_back(absl::StrCat(dir, i < 10 ? "0" : "", i));
    doc_lines += CountDocLines(all.back());
  }
  documents = ReadWiki(all);
  ASSERT_TRUE(documents.ok()) << documents.status();
  EXPECT_EQ(static_cast<int64_t>(documents->size()), doc_lines);
  EXPECT_EQ(doc_lines, 2116);
}

// The sample of google-research/bert: 3 documents.
TEST(ReleasedCorporaTest, ReferenceFormatReadsTheBertSampleText) {
  absl::StatusOr<std::string> corpus = SharedCorpusDir();
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  absl::StatusOr<std::vector<Document>> documents =
      ReadReferenceFormat({*corpus + "/bert-sample-text/sample_text.txt"});
  ASSERT_TRUE(documents.ok()) << documents.status();
  ASSERT_THAT(*documents, SizeIs(3));
  EXPECT_THAT((*documents)[0].sentences, SizeIs(3));
  EXPECT_TRUE(absl::StartsWith((*documents)[0].sentences[0],
                               "This text is included to make sure Unicode"));
  EXPECT_THAT((*documents)[1].sentences, SizeIs(13));
  EXPECT_EQ((*documents)[1].sentences[12],
            "Like most of his fellow gold-seekers, Cass was superstitious.");
  EXPECT_THAT((*documents)[2].sentences, SizeIs(15));
}

struct KnownBook {
  const char* file;
  int documents;
  int64_t header_end_line;
  int64_t footer_start_line;
  const char* first_sentence_prefix;
  const char* last_sentence_prefix;
};

// What every book of the shared corpora gives: chapters, where the licence
// ends and starts, and the first and last sentence of the text.
constexpr KnownBook kKnownBooks[] = {
    {"gutenberg-nltk-raw/austen-emma.txt", 55, 241, 17075,
     "Emma Woodhouse, handsome, clever, and rich,", "FINIS"},
    {"gutenberg-nltk-raw/austen-persuasion.txt", 24, 254, 8739,
     "Sir Walter Elliot, of Kellynch Hall,", "Finis"},
    {"gutenberg-nltk-raw/austen-sense.txt", 50, 244, 15054,
     "The family of Dashwood had long been settled in Sussex.", "THE END"},
    {"gutenberg-nltk-raw/blake-poems.txt", 5, 253, 1703, "William Blake",
     "The Virgin started from her seat,"},
    {"gutenberg-nltk-raw/blake-songs.txt", 1, 278, 1758,
     "Songs of Innocence and Songs of Experience",
     "They stumble all night over bones of the dead;"},
    {"gutenberg-nltk-raw/chesterton-ball.txt", 20, 41, 9308,
     "The flying ship of Professor Lucifer sang through the skies",
     "He looked vaguely about at the fire"},
    {"gutenberg-nltk-raw/chesterton-brown.txt", 12, 39, 7778,
     "The Absence of Mr Glass", "And he ruminated long before the portrait"},
    {"gutenberg-nltk-raw/chesterton-thursday.txt", 15, 277, 7118,
     "THE TWO POETS OF SAFFRON PARK", "There he saw the sister of Gregory,"},
    {"gutenberg-nltk-raw/milton-paradise.txt", 12, 256, 0,
     "Of Man's first disobedience, and the fruit", "[The End]"},
    {"gutenberg-nltk-raw/shakespeare-caesar.txt", 5, 279, 0,
     "Enter Flauius, Murellus, and certaine Commoners",
     "THE TRAGEDIE OF IVLIVS CaeSAR."},
    {"gutenberg-nltk-raw/shakespeare-hamlet.txt", 2, 279, 0,
     "Enter Barnardo and Francisco two Centinels.",
     "The tragedie of HAMLET, Prince of Denmarke."},
    {"gutenberg-nltk-raw/shakespeare-macbeth.txt", 5, 279, 0,
     "Thunder and Lightning.", "THE TRAGEDIE OF MACBETH."},
    {"gutenberg-nltk-raw/whitman-leaves.txt", 35, 258, 17712,
     "} One's-Self I Sing", "May-be it is you the mortal knob"},
    {"books-debian/mansfieldpark.txt", 48, 0, 0,
     "About thirty years ago Miss Maria Ward,", "THE END"},
    {"books-debian/mobydick.txt", 136, 20, 21748, "Call me Ishmael.",
     "It was the devious-cruising Rachel,"},
    {"books-debian/northangerabbey.txt", 31, 0, 0,
     "No one who had ever seen Catherine Morland",
     "Spelling and punctuation have been largely"},
    {"books-debian/prideprejudice.txt", 61, 0, 0,
     "It is a truth universally acknowledged,",
     "Darcy, as well as Elizabeth, really loved them;"},
};

TEST(ReleasedCorporaTest, GutenbergBooksLoseHeaderAndFooter) {
  absl::StatusOr<std::string> corpus = SharedCorpusDir();
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  std::vector<std::string> paths;
  for (const KnownBook& known : kKnownBooks) {
    paths.push_back(*corpus + "/" + known.file);
  }
  auto reader = GutenbergReader::Open(paths);
  ASSERT_TRUE(reader.ok()) << reader.status();
  int64_t total_documents = 0;
  int64_t total_sentences = 0;
  size_t book_index = 0;
  std::vector<Document> book_documents;
  const auto check_book = [&](size_t index) {
    const KnownBook& known = kKnownBooks[index];
    SCOPED_TRACE(known.file);
    const GutenbergBookInfo& info = (*reader)->books()[index];
    EXPECT_EQ(info.header_end_line, known.header_end_line);
    EXPECT_EQ(info.footer_start_line, known.footer_start_line);
    ASSERT_EQ(static_cast<int>(book_documents.size()), known.documents);
    EXPECT_TRUE(absl::StartsWith(book_documents.front().sentences.front(),
                                 known.first_sentence_prefix))
        << book_documents.front().sentences.front();
    EXPECT_TRUE(absl::StartsWith(book_documents.back().sentences.back(),
                                 known.last_sentence_prefix))
        << book_documents.back().sentences.back();
    for (const Document& document : book_documents) {
      for (const std::string& sentence : document.sentences) {
        const std::string lower = absl::AsciiStrToLower(sentence);
        EXPECT_FALSE(absl::StrContains(lower, "project gutenberg"))
            << document.source << ": " << sentence;
        EXPECT_FALSE(absl::StrContains(lower, "small print"))
            << document.source << ": " << sentence;
        EXPECT_FALSE(absl::StrContains(sentence, "\r")) << document.source;
        EXPECT_FALSE(absl::StrContains(sentence, "\xEF\xBB\xBF"))
            << document.source;
      }
    }
  };
  while (true) {
    Document document;
    absl::StatusOr<bool> more = (*reader)->NextDocument(&document);
    ASSERT_TRUE(more.ok()) << more.status();
    // A document of the next book means the previous one is complete.
    while (book_index < paths.size() &&
           (!*more ||
            !absl::StartsWith(document.source, paths[book_index] + ":"))) {
      check_book(book_index++);
      book_documents.clear();
    }
    if (!*more) break;
    ++total_documents;
    total_sentences += static_cast<int64_t>(document.sentences.size());
    book_documents.push_back(std::move(document));
  }
  EXPECT_EQ(book_index, paths.size());
  EXPECT_EQ(total_documents, 517);
  EXPECT_GT(total_sentences, 60000);
}

// The sentence splitter on paragraphs of the Wikipedia sample.
class SentenceSplitterWikiTest : public ::testing::Test {
 protected:
  // The line of wiki_00 that starts with `prefix`.
  std::string FindParagraph(const std::string& prefix) {
    absl::StatusOr<std::string> shared = SharedCorpusDir();
    EXPECT_TRUE(shared.ok()) << shared.status();
    if (!shared.ok()) return "";
    auto reader = LineReader::Open(
        *shared + "/wikipedia-en-2015-wikiextractor/AA/wiki_00",
        ReaderLimits().max_line_bytes);
    EXPECT_TRUE(reader.ok()) << reader.status();
    if (!reader.ok()) return "";
    std::string line;
    while (true) {
      absl::StatusOr<bool> more = (*reader)->Next(&line);
      EXPECT_TRUE(more.ok()) << more.status();
      if (!more.ok() || !*more) break;
      if (absl::StartsWith(line, prefix)) return line;
    }
    ADD_FAILURE() << "no line of wiki_00 starts with " << prefix;
    return "";
  }
};

TEST_F(SentenceSplitterWikiTest, AnarchismLead) {
  EXPECT_THAT(
      SplitSentences(FindParagraph("As an anti-dogmatic philosophy")),
      ElementsAre(
          "As an anti-dogmatic philosophy, anarchism draws on many currents "
          "of thought and strategy.",
          "Anarchism does not offer a fixed body of doctrine from a single "
          "particular world view, instead fluxing and flowing as a "
          "philosophy.",
          "There are many types and traditions of anarchism, not all of "
          "which are mutually exclusive.",
          "Anarchist schools of thought can differ fundamentally, supporting "
          "anything from extreme individualism to complete collectivism.",
          "Strains of anarchism have often been divided into the categories "
          "of social and individualist anarchism or similar dual "
          "classifications.",
          "Anarchism is usually considered a radical left-wing ideology, and "
          "much of anarchist economics and anarchist legal philosophy reflect "
          "anti-authoritarian interpretations of communism, collectivism, "
          "syndicalism, mutualism, or participatory economics."));
}

TEST_F(SentenceSplitterWikiTest, Initials) {
  const std::vector<std::string> sentences =
      SplitSentences(FindParagraph("A more recent libertarian tradition"));
  ASSERT_EQ(sentences.size(), 4u);
  EXPECT_EQ(sentences[1],
            "Experiments in Germany led to A. S. Neill founding what became "
            "Summerhill School in 1921.");
  EXPECT_THAT(SplitSentences(FindParagraph("R. S. P. Beekes")),
              ElementsAre("R. S. P. Beekes has suggested a Pre-Greek origin "
                          "of the name."));
}

TEST_F(SentenceSplitterWikiTest, CaseNamesAndGluedSentences) {
  const std::vector<std::string> sentences =
      SplitSentences(FindParagraph("African Americans continued to press"));
  ASSERT_EQ(sentences.size(), 4u);
  EXPECT_EQ(sentences[1],
            "In 1954, the US Supreme Court ruled in \"Brown v. Board of "
            "Education\" that public schools had to be desegregated, but "
            "Alabama was slow to comply.");
  // "desegregation.The" has no space in the source: not split.
  EXPECT_TRUE(absl::StartsWith(sentences[2], "During the 1960s"));
  EXPECT_TRUE(absl::StrContains(sentences[2], "desegregation.The civil"));
  EXPECT_TRUE(absl::EndsWith(sentences[3], "by the U.S. Congress."));
}

TEST_F(SentenceSplitterWikiTest, SentenceEndingInUsRunsOn) {
  // The documented limit of rule 2c: "... in the U.S. About three-fifths"
  // is one sentence.
  const std::vector<std::string> sentences =
      SplitSentences(FindParagraph("Alabama is the thirtieth-largest state"));
  ASSERT_EQ(sentences.size(), 2u);
  EXPECT_TRUE(absl::StrContains(sentences[0], "in the U.S. About three"));
  EXPECT_TRUE(absl::StartsWith(sentences[1], "The North Alabama region"));
}

}  // namespace
}  // namespace bertlab
