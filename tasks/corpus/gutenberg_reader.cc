#include "tasks/corpus/gutenberg_reader.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

constexpr size_t kMaxHeadingBytes = 100;
constexpr absl::string_view kEmDash = "\xE2\x80\x94";

constexpr absl::string_view kHeadingKeywords[] = {
    "CHAPTER", "BOOK", "VOLUME", "PART", "ACTUS", "ACT", "STAVE", "CANTO",
};
constexpr absl::string_view kUnits[] = {
    "ONE",     "TWO",       "THREE",    "FOUR",     "FIVE",
    "SIX",     "SEVEN",     "EIGHT",    "NINE",     "TEN",
    "ELEVEN",  "TWELVE",    "THIRTEEN", "FOURTEEN", "FIFTEEN",
    "SIXTEEN", "SEVENTEEN", "EIGHTEEN", "NINETEEN",
};
constexpr absl::string_view kTens[] = {
    "TWENTY", "THIRTY",  "FORTY",  "FIFTY",
    "SIXTY",  "SEVENTY", "EIGHTY", "NINETY",
};
constexpr absl::string_view kLatinOrdinals[] = {
    "PRIMUS", "SECUNDUS", "TERTIUS", "QUARTUS", "QUINTUS",
    "SEXTUS", "SEPTIMUS", "OCTAVUS", "NONUS",   "DECIMUS",
};

bool IsAsciiLetter(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c));
}

bool HasAsciiLowercase(absl::string_view text) {
  for (char c : text) {
    if (absl::ascii_islower(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

// The letters at the start of `text`.
absl::string_view LeadingWord(absl::string_view text) {
  size_t length = 0;
  while (length < text.size() && IsAsciiLetter(text[length])) ++length;
  return text.substr(0, length);
}

std::string RomanNumeral(int value) {
  static constexpr struct {
    int value;
    absl::string_view digits;
  } kParts[] = {{100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"},
                {9, "IX"},  {5, "V"},   {4, "IV"}, {1, "I"}};
  std::string result;
  for (const auto& part : kParts) {
    while (value >= part.value) {
      absl::StrAppend(&result, part.digits);
      value -= part.value;
    }
  }
  return result;
}

// Whether `word` is a well-formed Roman numeral of I V X L C (1..399) in
// capitals.
bool IsRomanNumeral(absl::string_view word) {
  if (word.empty() || word.size() > 12) return false;
  static constexpr struct {
    char digit;
    int value;
  } kDigits[] = {{'I', 1}, {'V', 5}, {'X', 10}, {'L', 50}, {'C', 100}};
  int total = 0;
  int previous = 0;
  for (size_t i = word.size(); i-- > 0;) {
    int value = 0;
    for (const auto& digit : kDigits) {
      if (word[i] == digit.digit) value = digit.value;
    }
    if (value == 0) return false;
    total += value < previous ? -value : value;
    previous = value > previous ? value : previous;
  }
  return total > 0 && total < 400 && RomanNumeral(total) == word;
}

// Whether `word` (letters and at most one hyphen) is an English number word
// from one to ninety-nine; `upper_only` requires capitals.
bool IsNumberWord(absl::string_view word, bool upper_only) {
  if (word.empty() || (upper_only && HasAsciiLowercase(word))) return false;
  const std::string upper = absl::AsciiStrToUpper(word);
  auto in = [](absl::string_view text, const auto& list) {
    for (absl::string_view item : list) {
      if (text == item) return true;
    }
    return false;
  };
  if (in(upper, kUnits) || in(upper, kTens)) return true;
  const size_t hyphen = upper.find('-');
  if (hyphen == std::string::npos) return false;
  const absl::string_view tens = absl::string_view(upper).substr(0, hyphen);
  const absl::string_view unit = absl::string_view(upper).substr(hyphen + 1);
  return in(tens, kTens) && in(unit, absl::MakeSpan(kUnits, 9));
}

bool IsLatinOrdinal(absl::string_view word) {
  const std::string upper = absl::AsciiStrToUpper(word);
  for (absl::string_view ordinal : kLatinOrdinals) {
    if (upper == ordinal) return true;
  }
  return false;
}

// What may follow the number of a heading: nothing, punctuation and
// anything, or a space and a title without lowercase letters.
bool IsHeadingTail(absl::string_view tail) {
  if (tail.empty()) return true;
  if (absl::StartsWith(tail, kEmDash)) return true;
  switch (tail[0]) {
    case '.':
    case ':':
    case ',':
    case ';':
    case '-':
      return true;
    case ' ':
    case '\t':
      return !HasAsciiLowercase(tail);
    default:
      return false;
  }
}

// The number word at the start of `text` ("Twenty-One"): letters and
// hyphens.
absl::string_view LeadingNumberToken(absl::string_view text) {
  size_t length = 0;
  while (length < text.size() &&
         (IsAsciiLetter(text[length]) || text[length] == '-')) {
    ++length;
  }
  return text.substr(0, length);
}

// "<number><tail>" after a keyword.
bool IsNumberAndTail(absl::string_view text) {
  size_t digits = 0;
  while (digits < text.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits > 0) return IsHeadingTail(text.substr(digits));
  const absl::string_view word = LeadingWord(text);
  if (IsRomanNumeral(word) || IsLatinOrdinal(word)) {
    return IsHeadingTail(text.substr(word.size()));
  }
  const absl::string_view number = LeadingNumberToken(text);
  return IsNumberWord(number, /*upper_only=*/false) &&
         IsHeadingTail(text.substr(number.size()));
}

bool IsKeywordHeading(absl::string_view line) {
  const absl::string_view word = LeadingWord(line);
  for (absl::string_view keyword : kHeadingKeywords) {
    const std::string capitalized = absl::StrCat(
        keyword.substr(0, 1), absl::AsciiStrToLower(keyword.substr(1)));
    if (word == keyword || word == capitalized) {
      const absl::string_view rest = line.substr(word.size());
      const absl::string_view number = absl::StripLeadingAsciiWhitespace(rest);
      if (number.size() == rest.size()) return false;  // no space
      return IsNumberAndTail(number);
    }
    // "BOOKXXXV": a keyword in capitals touching a Roman numeral.
    if (word.size() > keyword.size() && absl::StartsWith(word, keyword) &&
        IsRomanNumeral(word.substr(keyword.size()))) {
      return IsHeadingTail(line.substr(word.size()));
    }
  }
  return false;
}

// "XII.", "I. A DISCUSSION SOMEWHAT IN THE AIR", "IV".
bool IsRomanHeading(absl::string_view line) {
  const absl::string_view word = LeadingWord(line);
  if (!IsRomanNumeral(word)) return false;
  absl::string_view tail = line.substr(word.size());
  if (tail.empty() || tail == ".") return true;
  if (tail[0] != '.') return false;
  tail.remove_prefix(1);
  return (tail[0] == ' ' || tail[0] == '\t') && !HasAsciiLowercase(tail);
}

// "ONE", "TWENTY-TWO.", "12", "12.", "EPILOGUE", "Prologue".
bool IsBareHeading(absl::string_view line) {
  if (absl::EndsWith(line, ".")) line.remove_suffix(1);
  if (line.empty()) return false;
  size_t digits = 0;
  while (digits < line.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(line[digits]))) {
    ++digits;
  }
  if (digits == line.size()) return digits <= 3;
  if (IsNumberWord(line, /*upper_only=*/true)) return true;
  return line == "PROLOGUE" || line == "Prologue" || line == "EPILOGUE" ||
         line == "Epilogue";
}

// Mentions "etext", "e-text", "ebook" or "e-book" as (the start of) a word.
bool MentionsEtext(absl::string_view lower) {
  for (absl::string_view word : {"etext", "e-text", "ebook", "e-book"}) {
    for (size_t at = lower.find(word); at != absl::string_view::npos;
         at = lower.find(word, at + 1)) {
      if (at == 0 || !IsAsciiLetter(lower[at - 1])) return true;
    }
  }
  return false;
}

bool IsBoilerplate(absl::string_view paragraph) {
  const std::string lower = absl::AsciiStrToLower(paragraph);
  return absl::StartsWith(lower, "produced by") ||
         absl::StrContains(lower, "project gutenberg") || MentionsEtext(lower);
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

}  // namespace

GutenbergMarker ClassifyGutenbergMarker(absl::string_view line) {
  const std::string lower =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(line));
  absl::string_view text = lower;
  if (absl::StartsWith(text, "*")) {
    while (!text.empty() && (text.front() == '*' || text.front() == ' ')) {
      text.remove_prefix(1);
    }
    if (absl::StartsWith(text, "start of the project gutenberg") ||
        absl::StartsWith(text, "start of this project gutenberg") ||
        absl::StartsWith(text, "end*the small print") ||
        absl::StartsWith(text, "end the small print")) {
      return GutenbergMarker::kHeaderEnd;
    }
    if (absl::StartsWith(text, "end of the project gutenberg") ||
        absl::StartsWith(text, "end of this project gutenberg")) {
      return GutenbergMarker::kFooterStart;
    }
    return GutenbergMarker::kNone;
  }
  if (absl::StartsWith(text, "end of the project gutenberg") ||
      absl::StartsWith(text, "end of this project gutenberg") ||
      absl::StartsWith(text, "end of project gutenberg")) {
    return GutenbergMarker::kFooterStart;
  }
  return GutenbergMarker::kNone;
}

namespace {

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

bool IsChapterHeading(absl::string_view line) {
  line = HeadingText(line);
  if (line.empty()) return false;
  return IsKeywordHeading(line) || IsRomanHeading(line) || IsBareHeading(line);
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
