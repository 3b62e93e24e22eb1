#include "tasks/corpus/gutenberg_reader.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "re2/re2.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

constexpr size_t kMaxHeadingBytes = 100;

// Compiles a pattern once (callers keep it in a function-local static).
// Latin-1, so that every byte is one character: "." and negated classes
// also match the bytes of invalid UTF-8 (which the reader keeps), and (?i)
// folds ASCII letters only (in UTF-8 it would also let "s" match U+017F and
// "k" the Kelvin sign).
const RE2* CompileBytePattern(const std::string& pattern) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_dot_nl(true);
  const RE2* re = new RE2(pattern, options);
  CHECK(re->ok()) << re->error() << " in " << pattern;
  return re;
}

// This RE2 (Debian's 2022-06-01) takes its own StringPiece, not
// absl::string_view.
re2::StringPiece AsPiece(absl::string_view text) {
  return re2::StringPiece(text.data(), text.size());
}

// The heading grammar of IsChapterHeading (gutenberg_reader.h), in pieces.
// Well-formed Roman numerals of I V X L C from 1 to 399: hundreds, tens and
// units, not all three empty.
constexpr absl::string_view kRomanTens = "XC|XL|LX{0,3}|X{1,3}";
constexpr absl::string_view kRomanUnits = "IX|IV|VI{0,3}|I{1,3}";
// English number words from ONE to NINETY-NINE, in capitals.
constexpr absl::string_view kUnitWords =
    "ONE|TWO|THREE|FOUR|FIVE|SIX|SEVEN|EIGHT|NINE";
constexpr absl::string_view kTeenWords =
    "TEN|ELEVEN|TWELVE|THIRTEEN|FOURTEEN|FIFTEEN|SIXTEEN|SEVENTEEN|EIGHTEEN|"
    "NINETEEN";
constexpr absl::string_view kTensWords =
    "TWENTY|THIRTY|FORTY|FIFTY|SIXTY|SEVENTY|EIGHTY|NINETY";
constexpr absl::string_view kLatinOrdinals =
    "PRIMUS|SECUNDUS|TERTIUS|QUARTUS|QUINTUS|SEXTUS|SEPTIMUS|OCTAVUS|NONUS|"
    "DECIMUS";
constexpr absl::string_view kKeywords =
    "CHAPTER|BOOK|VOLUME|PART|ACTUS|ACT|STAVE|CANTO";
constexpr absl::string_view kCapitalizedKeywords =
    "Chapter|Book|Volume|Part|Actus|Act|Stave|Canto";
// What may follow the number of a heading: nothing, punctuation (or an em
// dash) and anything, or a space and a title without lowercase letters. A
// number word is not followed by "-", which would make it another word
// ("TWENTY-" is no number).
constexpr absl::string_view kTail =
    "(?:|(?:\xE2\x80\x94|[.:,;-]).*|[ \t][^a-z]*)";
constexpr absl::string_view kWordTail =
    "(?:|(?:\xE2\x80\x94|[.:,;]).*|[ \t][^a-z]*)";

std::string RomanPattern() {
  return absl::Substitute("(?:C{1,3}(?:$0)?(?:$1)?|(?:$0)(?:$1)?|$1)",
                          kRomanTens, kRomanUnits);
}

std::string NumberWordPattern() {
  return absl::Substitute("(?:(?:$0)(?:-(?:$1))?|$1|$2)", kTensWords,
                          kUnitWords, kTeenWords);
}

// "CHAPTER 1. Loomings.", "Chapter Twenty-One", "Actus Primus. Scoena
// Prima.", "CHAPTER IV THE END", "BOOKXXXV" (a keyword in capitals touching
// a Roman numeral).
std::string KeywordHeadingPattern() {
  const std::string number =
      absl::Substitute("(?:[0-9]+|$0|(?i:$1))$2|(?i:$3)$4", RomanPattern(),
                       kLatinOrdinals, kTail, NumberWordPattern(), kWordTail);
  return absl::Substitute("(?:$0|$1)[\t\n\v\f\r ]+(?:$2)|(?:$0)$3$4", kKeywords,
                          kCapitalizedKeywords, number, RomanPattern(), kTail);
}

bool IsKeywordHeading(absl::string_view line) {
  static const RE2* const kKeywordHeading =
      CompileBytePattern(KeywordHeadingPattern());
  return RE2::FullMatch(AsPiece(line), *kKeywordHeading);
}

// The keyword headings, and
//   Roman numerals: "XII.", "I. A DISCUSSION SOMEWHAT IN THE AIR", "IV";
//   bare numbers: "ONE", "TWENTY-TWO.", "12", "12.", "EPILOGUE", "Prologue".
bool IsAnyHeading(absl::string_view line) {
  static const RE2* const kHeading = CompileBytePattern(absl::Substitute(
      "$0|$1(?:\\.?|\\.[ \t][^a-z]*)|"
      "(?:[0-9]{1,3}|$2|PROLOGUE|Prologue|EPILOGUE|Epilogue)\\.?",
      KeywordHeadingPattern(), RomanPattern(), NumberWordPattern()));
  return RE2::FullMatch(AsPiece(line), *kHeading);
}

// A paragraph that starts with "Produced by" (transcriber credits), or
// mentions "Project Gutenberg" or "etext", "e-text", "ebook" or "e-book" as
// (the start of) a word, in any case.
bool IsBoilerplate(absl::string_view paragraph) {
  static const RE2* const kBoilerplate = CompileBytePattern(
      "(?i)^produced by|project gutenberg|(?:^|[^a-z])e-?(?:text|book)");
  return RE2::PartialMatch(AsPiece(paragraph), *kBoilerplate);
}

// Removes ASCII control characters other than tab (DOS's ^Z, stray \r).
void RemoveControlCharacters(std::string* line) {
  size_t kept = 0;
  for (char c : *line) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7F) continue;
    (*line)[kept++] = c;
  }
  line->resize(kept);
}

// The heading text: trimmed, without surrounding square brackets; empty
// when too long to be a heading.
absl::string_view HeadingText(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  if (line.size() >= 2 && line.front() == '[' && line.back() == ']') {
    line = absl::StripAsciiWhitespace(line.substr(1, line.size() - 2));
  }
  return line.size() > kMaxHeadingBytes ? absl::string_view() : line;
}

}  // namespace

GutenbergMarker ClassifyGutenbergMarker(absl::string_view line) {
  // After leading whitespace (absl's ASCII whitespace, spelled out: RE2's
  // \s lacks \v), in any case; on a line starting with "*", after any run
  // of "*" and spaces.
  static const RE2* const kHeaderEnd = CompileBytePattern(
      "(?i)^[\t\n\v\f\r ]*\\*[* ]*"
      "(?:start of th(?:e|is) project gutenberg|end[* ]the small print)");
  static const RE2* const kFooterStart = CompileBytePattern(
      "(?i)^[\t\n\v\f\r ]*"
      "(?:\\*[* ]*end of th(?:e|is)|end of(?: the| this)?) project gutenberg");
  if (RE2::PartialMatch(AsPiece(line), *kHeaderEnd)) {
    return GutenbergMarker::kHeaderEnd;
  }
  if (RE2::PartialMatch(AsPiece(line), *kFooterStart)) {
    return GutenbergMarker::kFooterStart;
  }
  return GutenbergMarker::kNone;
}

bool IsChapterHeading(absl::string_view line) {
  line = HeadingText(line);
  return !line.empty() && IsAnyHeading(line);
}

bool IsKeywordChapterHeading(absl::string_view line) {
  line = HeadingText(line);
  return !line.empty() && IsKeywordHeading(line);
}

absl::StatusOr<std::unique_ptr<GutenbergReader>> GutenbergReader::Open(
    std::vector<std::string> paths, GutenbergReaderOptions options) {
  RETURN_IF_ERROR(ValidateReaderLimits(options.limits));
  // NaN fails both comparisons: it would silently keep every front matter.
  if (!(options.max_front_matter_fraction >= 0 &&
        options.max_front_matter_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_front_matter_fraction = ", options.max_front_matter_fraction,
        ": expected a fraction in [0, 1]"));
  }
  RETURN_IF_ERROR(CheckInputFiles(paths));
  return std::unique_ptr<GutenbergReader>(
      new GutenbergReader(std::move(paths), std::move(options)));
}

GutenbergReader::GutenbergReader(std::vector<std::string> paths,
                                 GutenbergReaderOptions options)
    : paths_(std::move(paths)),
      options_(std::move(options)),
      builder_(options_.limits.max_document_bytes) {}

absl::Status GutenbergReader::StartBook() {
  GutenbergBookInfo book;
  book.path = paths_[next_path_++];
  {
    ASSIGN_OR_RETURN(
        std::unique_ptr<LineReader> scan,
        LineReader::Open(book.path, options_.limits.max_line_bytes));
    while (true) {
      ASSIGN_OR_RETURN(const bool more, scan->Next(&line_));
      if (!more) break;
      const GutenbergMarker marker = ClassifyGutenbergMarker(line_);
      if (marker == GutenbergMarker::kHeaderEnd) {
        book.header_end_line = scan->line_number();
        book.body_bytes = 0;
      } else if (marker == GutenbergMarker::kFooterStart) {
        book.footer_start_line = scan->line_number();
        break;
      } else {
        book.body_bytes += static_cast<int64_t>(line_.size());
      }
    }
  }
  ASSIGN_OR_RETURN(lines_,
                   LineReader::Open(book.path, options_.limits.max_line_bytes));
  books_.push_back(std::move(book));
  paragraph_.clear();
  paragraph_lines_ = 0;
  in_front_matter_ = true;
  front_matter_paragraphs_ = 0;
  return absl::OkStatus();
}

bool GutenbergReader::EndDocument(Document* ready) {
  if (!builder_.Take(ready)) return false;
  GutenbergBookInfo& book = books_.back();
  ++book.documents;
  book.sentences += static_cast<int64_t>(ready->sentences.size());
  return true;
}

bool GutenbergReader::FinishParagraph(Document* ready) {
  if (paragraph_.empty()) return false;
  GutenbergBookInfo& book = books_.back();
  bool done = false;
  const bool heading =
      (paragraph_lines_ == 1 && IsChapterHeading(paragraph_)) ||
      (paragraph_lines_ == 2 &&
       IsKeywordChapterHeading(absl::string_view(paragraph_)
                                   .substr(0, paragraph_first_line_bytes_)));
  if (heading) {
    ++book.chapter_headings;
    if (in_front_matter_ && static_cast<double>(builder_.bytes()) <=
                                options_.max_front_matter_fraction *
                                    static_cast<double>(book.body_bytes)) {
      book.front_matter_paragraphs_dropped += front_matter_paragraphs_;
      builder_.Clear();
    }
    in_front_matter_ = false;
    done = EndDocument(ready);
  } else if (IsBoilerplate(paragraph_)) {
    ++book.boilerplate_paragraphs_dropped;
  } else {
    builder_.AddAll(SplitSentences(paragraph_), paragraph_location_);
    if (in_front_matter_) ++front_matter_paragraphs_;
    if (builder_.full()) {
      in_front_matter_ = false;
      done = EndDocument(ready);
    }
  }
  paragraph_.clear();
  paragraph_lines_ = 0;
  return done;
}

absl::StatusOr<bool> GutenbergReader::NextDocument(Document* document) {
  while (true) {
    if (lines_ == nullptr) {
      if (next_path_ == paths_.size()) return false;
      RETURN_IF_ERROR(StartBook());
    }
    ASSIGN_OR_RETURN(bool more, lines_->Next(&line_));
    const GutenbergBookInfo& book = books_.back();
    if (more && book.footer_start_line > 0 &&
        lines_->line_number() >= book.footer_start_line) {
      more = false;
    }
    if (!more) {
      // The end of the book ends its last paragraph and its last document;
      // both may complete a document, handed out one per call.
      if (FinishParagraph(document)) return true;
      lines_.reset();
      if (EndDocument(document)) return true;
      continue;
    }
    if (lines_->line_number() <= book.header_end_line) continue;
    RemoveControlCharacters(&line_);
    const absl::string_view text = absl::StripAsciiWhitespace(line_);
    if (text.empty()) {
      if (FinishParagraph(document)) return true;
      continue;
    }
    if (paragraph_.empty()) {
      paragraph_location_ = lines_->Location();
    } else {
      paragraph_.push_back(' ');
    }
    absl::StrAppend(&paragraph_, text);
    if (++paragraph_lines_ == 1) paragraph_first_line_bytes_ = text.size();
    if (static_cast<int64_t>(paragraph_.size()) >
            options_.limits.max_line_bytes &&
        FinishParagraph(document)) {
      return true;
    }
  }
}

}  // namespace bertlab
