// Reads a Bible dumped by SWORD's diatheke in its raw markup, the source of
// the embedded default corpus (the World English Bible, Debian package
// sword-text-web):
//
//   diatheke -b engWEB2015eb -f internal -o fs -k Gen-Rev > web.osis.txt
//
// Each line is one verse, "Book C:V: <OSIS markup>", and the last line
// names the module, "(engWEB2015eb)". One document per chapter; verse
// numbers and all markup are removed, the verses of a chapter are joined
// into one text, and SplitSentences (sentence_splitter.h) splits it, so a
// sentence may span verses, paragraphs and lines of poetry. The module's
// paragraph marks are not used as boundaries: they often fall inside a
// sentence ("He said,<paragraph end><poetry>“Canaan is cursed.").
// A chapter text longer than ReaderLimits.max_line_bytes is split there.
//
// Why this format: diatheke's plain output ("-f plain") glues words
// together wherever the module has a note between them. The module stores
// "<w>God</w><note>...</note><w>created</w>"; the plain renderer drops the
// note and with it the only separator, giving "Godcreated" (Genesis 1:1;
// "Christ,called" in Romans 1:1). With "-o fs" (footnotes and scripture
// cross-references on) the raw output keeps an empty <note .../> at each
// such place (about 400 in the WEB). The same happens where two quotations
// touch ("the deaf hear,</q><q>the dead are raised", Matthew 11:5; about
// 60 places). This reader puts a space at a note or <q>/</q> tag when
// text would otherwise touch, but never after a space or before a space,
// punctuation or a closing quote ("Roi.<note/> The" has its space
// already, "gerahs<note/>);" needs none).
//
// Also removed:
//   * <title> elements: psalm superscriptions, which diatheke 1.9 repeats
//     before every following verse, into other books (the text before
//     "Book C:V:" on a line is dropped for the same reason);
//   * <speaker> labels of the Song of Solomon ("Beloved", "Friends");
//   * everything from a non-canonical <div type="glossary"> or
//     <div type="introduction"> on (the WEB glossary that the module
//     appends to Revelation 22:21).
// Other tags are dropped and their text kept (<w>, <seg>, <name>).
// The module has no character entities, so none are decoded.
#ifndef BERTLAB_TASKS_CORPUS_DIATHEKE_READER_H_
#define BERTLAB_TASKS_CORPUS_DIATHEKE_READER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"
#include "tasks/corpus/document_builder.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {

// One verse line of `diatheke -f internal` output, split up.
struct DiathekeVerse {
  std::string book;  // "Genesis", "I Samuel", "Esther (Greek)"
  int chapter = 0;
  int verse = 0;
  std::string markup;  // the verse's OSIS, without titles and reference
};

// Parses `line`; returns false for a line that is not a verse (the module
// trailer "(engWEB2015eb)", blank lines, anything else).
bool ParseDiathekeVerse(absl::string_view line, DiathekeVerse* verse);

// Appends the text of OSIS `markup` to *text: notes and quotation tags
// become kSoftSpace; paragraph, line, list and other structure tags a
// space; other tags nothing. Returns false when the markup reached the back
// matter (glossary, introduction): the rest of it is not Bible text.
inline constexpr char kSoftSpace = '\x01';
bool AppendOsisText(absl::string_view markup, std::string* text);

// Resolves kSoftSpace markers (see the file comment) in one paragraph.
std::string ResolveSoftSpaces(absl::string_view paragraph);

class DiathekeReader : public DocumentReader {
 public:
  // Checks that every file in `paths` can be opened (CheckInputFiles).
  static absl::StatusOr<std::unique_ptr<DiathekeReader>> Open(
      std::vector<std::string> paths, ReaderLimits limits = ReaderLimits());

  absl::StatusOr<bool> NextDocument(Document* document) override;

 private:
  DiathekeReader(std::vector<std::string> paths, ReaderLimits limits);
  // Splits the text collected so far into sentences for the document.
  void FinishText();

  const std::vector<std::string> paths_;
  const ReaderLimits limits_;
  size_t next_path_ = 0;
  std::unique_ptr<LineReader> lines_;
  std::string line_;
  std::string chapter_;  // "Genesis 1" of the document being built
  bool in_back_matter_ = false;
  std::string text_;  // of the chapter so far, with kSoftSpace markers
  std::string text_location_;
  DiathekeVerse verse_;
  DocumentBuilder builder_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_DIATHEKE_READER_H_
