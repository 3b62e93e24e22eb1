// Reads Project Gutenberg plain-text books (and plain-text books without
// Project Gutenberg's wrapping): one file per book, one document per
// chapter.
//
// 1. Licence header and footer. A first pass over each file finds the
//    markers; the body is the text between them:
//      header end (the body starts after it):
//        "*** START OF THE PROJECT GUTENBERG EBOOK ... ***" (and "THIS",
//        any number of '*', any case), or the last line of the old licence,
//        "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*..." (also
//        "*END THE SMALL PRINT!").
//      footer start (the body ends before it):
//        "*** END OF THE/THIS PROJECT GUTENBERG EBOOK ..." and the closing
//        lines "End of the Project Gutenberg EBook/Etext of ...",
//        "End of Project Gutenberg's ...", "End of Project Gutenberg Etext
//        ..." (any case).
//    The body ends at the first footer marker and begins after the last
//    header marker before it. That handles every file of
//    gutenberg-nltk-raw: old etexts (licence, then the book, then "End of
//    The Project Gutenberg Etext"), 2002-2004 ebooks (header, "*** START",
//    the book, "End of Project Gutenberg's", "*** END", then the old
//    licence with its "*END THE SMALL PRINT" as the last line), and files
//    with no footer at all (milton-paradise, shakespeare-*). A file with no
//    marker (books-debian's Austen novels) is all body; books() reports
//    which markers each file had, and corpus_to_reference_format warns
//    about files without any.
// 2. Lines. ASCII control characters other than tab are removed (old
//    etexts end with DOS's ^Z), then each line is trimmed. Bytes are
//    otherwise kept; invalid UTF-8 is left to the tokenizer's lenient
//    decoder.
// 3. Paragraphs: consecutive non-blank lines joined by spaces (blank =
//    whitespace only). A paragraph is cut at a line boundary once it
//    exceeds ReaderLimits.max_line_bytes, as if a blank line were there.
// 4. Chapters: a paragraph of one line that IsChapterHeading, or of two
//    lines whose first is a keyword heading (a long title wrapped: Moby
//    Dick's "CHAPTER 56. Of the Less Erroneous Pictures of Whales, and the
//    True" / "Pictures of Whaling Scenes."), ends the current document and
//    is itself dropped. A book without any heading is one document (all of
//    it). VOLUME/BOOK/PART headings end documents too, so "VOLUME I"
//    followed by "CHAPTER I" yields no empty document.
//    Text before the first heading (title page, contents, transcriber's
//    notes, prefaces) is front matter. It is dropped when it is small, at
//    most max_front_matter_fraction of the bytes of the body, and kept as a
//    document otherwise: in blake-poems the only headings number the parts
//    of the last poem, so what precedes them is most of the book.
// 5. Boilerplate that the markers leave inside the body is dropped: a
//    paragraph that mentions "Project Gutenberg" or the words "etext",
//    "e-text", "ebook" or "e-book", or starts with "Produced by"
//    (transcriber credits, "This etext was prepared by ...").
// 6. Sentences: SplitSentences (sentence_splitter.h) on each paragraph.
//    Verse and plays are joined the same way, so a stanza or a speech
//    becomes running text split at its full stops.
// A document reaching ReaderLimits.max_document_bytes ends there (also in
// the front matter, which is then kept).
#ifndef BERTLAB_TASKS_CORPUS_GUTENBERG_READER_H_
#define BERTLAB_TASKS_CORPUS_GUTENBERG_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"
#include "tasks/corpus/document_builder.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {

struct GutenbergReaderOptions {
  ReaderLimits limits;
  // Front matter (the text before the first chapter heading) is dropped
  // when its sentences take at most this fraction of the body's bytes;
  // 0 keeps it always. In [0, 1] (Open refuses anything else, NaN too).
  double max_front_matter_fraction = 0.1;
};

// What the reader found in one file (filled as the file is read).
struct GutenbergBookInfo {
  std::string path;
  // Line number of the header end marker (0: none) and of the footer start
  // marker (0: none, the body runs to the end of the file).
  int64_t header_end_line = 0;
  int64_t footer_start_line = 0;
  // Bytes of the lines between the markers (line ends not counted).
  int64_t body_bytes = 0;
  int64_t chapter_headings = 0;
  int64_t boilerplate_paragraphs_dropped = 0;
  int64_t front_matter_paragraphs_dropped = 0;
  int64_t documents = 0;
  int64_t sentences = 0;
};

class GutenbergReader : public DocumentReader {
 public:
  // Checks that every file in `paths` can be opened (CheckInputFiles).
  static absl::StatusOr<std::unique_ptr<GutenbergReader>> Open(
      std::vector<std::string> paths,
      GutenbergReaderOptions options = GutenbergReaderOptions());

  absl::StatusOr<bool> NextDocument(Document* document) override;

  // One entry per file opened so far, in order.
  const std::vector<GutenbergBookInfo>& books() const { return books_; }

 private:
  GutenbergReader(std::vector<std::string> paths,
                  GutenbergReaderOptions options);
  // Opens the next file: the marker pass, then the reading pass.
  absl::Status StartBook();
  // Handles the collected paragraph; may complete a document into *ready
  // (returns true then).
  bool FinishParagraph(Document* ready);
  // Ends the current document (at a heading, the cap or the end of the
  // book); returns whether there was one to hand out.
  bool EndDocument(Document* ready);

  const std::vector<std::string> paths_;
  const GutenbergReaderOptions options_;
  size_t next_path_ = 0;
  std::vector<GutenbergBookInfo> books_;
  std::unique_ptr<LineReader> lines_;
  std::string line_;
  std::string paragraph_;
  int paragraph_lines_ = 0;
  size_t paragraph_first_line_bytes_ = 0;
  std::string paragraph_location_;
  // True until the book's first chapter heading (or a document cut by the
  // size cap): what is collected meanwhile is front matter.
  bool in_front_matter_ = true;
  int64_t front_matter_paragraphs_ = 0;
  DocumentBuilder builder_;
};

enum class GutenbergMarker { kNone, kHeaderEnd, kFooterStart };

// Classifies one line (see the file comment, point 1).
GutenbergMarker ClassifyGutenbergMarker(absl::string_view line);

// Whether a line (trimmed) is a chapter-level heading:
//   * a keyword (CHAPTER, BOOK, VOLUME, PART, ACT, ACTUS, STAVE, CANTO, in
//     capitals or capitalized) and a number: digits, a Roman numeral, an
//     English number word ("ONE", "Twenty-One") or a Latin ordinal
//     ("Primus"), then nothing, punctuation and anything ("CHAPTER 1.
//     Loomings.", "Actus Primus. Scoena Prima."), or a title without
//     lowercase letters ("CHAPTER IV THE END"); a keyword in capitals may
//     touch a Roman numeral ("BOOKXXXV");
//   * a Roman numeral (I V X L C, well-formed) alone or followed by "." and
//     a title without lowercase letters ("XII.", "I. A DISCUSSION");
//   * an English number word in capitals alone ("ONE", "TWENTY-TWO");
//   * one to three digits alone ("12", "12.");
//   * PROLOGUE or EPILOGUE (capitals or capitalized) alone.
// The line may be wrapped in square brackets ("[BOOK I.  INSCRIPTIONS]").
// Headings longer than 100 bytes are not considered.
bool IsChapterHeading(absl::string_view line);

// The first kind only: keyword and number ("CHAPTER 56. Of the ...").
bool IsKeywordChapterHeading(absl::string_view line);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_GUTENBERG_READER_H_
