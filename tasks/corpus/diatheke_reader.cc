#include "tasks/corpus/diatheke_reader.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

// After these a footnote needs no space (closing quotes, punctuation).
constexpr absl::string_view kNoSpaceBefore[] = {
    ".",
    ",",
    ";",
    ":",
    "!",
    "?",
    ")",
    "]",
    "\xE2\x80\x9D",  // ”
    "\xE2\x80\x99",  // ’
    "\xC2\xBB",      // »
};

bool IsSpace(char c) {
  return absl::ascii_isspace(static_cast<unsigned char>(c));
}

// Removes every "<name ...>...</name>" element (and an unclosed one up to
// the end).
void RemoveElements(absl::string_view name, std::string* text) {
  const std::string open = absl::StrCat("<", name);
  const std::string close = absl::StrCat("</", name, ">");
  size_t begin = 0;
  while ((begin = text->find(open, begin)) != std::string::npos) {
    const char after =
        begin + open.size() < text->size() ? (*text)[begin + open.size()] : '>';
    if (after != ' ' && after != '>' && after != '/') {
      begin += open.size();
      continue;
    }
    const size_t end = text->find(close, begin);
    text->erase(begin, end == std::string::npos ? std::string::npos
                                                : end + close.size() - begin);
  }
}

// The tag name of "w savlm=..." or "/w" or "note .../".
absl::string_view TagName(absl::string_view tag) {
  if (absl::StartsWith(tag, "/")) tag.remove_prefix(1);
  size_t length = 0;
  while (length < tag.size() &&
         absl::ascii_isalpha(static_cast<unsigned char>(tag[length]))) {
    ++length;
  }
  return tag.substr(0, length);
}

}  // namespace

bool ParseDiathekeVerse(absl::string_view line, DiathekeVerse* verse) {
  std::string text(line);
  RemoveElements("title", &text);
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(text);
  while (absl::StartsWith(rest, "<")) {
    const size_t close = rest.find('>');
    if (close == absl::string_view::npos) return false;
    rest = absl::StripLeadingAsciiWhitespace(rest.substr(close + 1));
  }
  // "Book C:V: markup": the first ':' is the one of the reference, since
  // book names have none.
  const size_t colon = rest.find(':');
  if (colon == absl::string_view::npos) return false;
  size_t chapter_begin = colon;
  while (chapter_begin > 0 && absl::ascii_isdigit(static_cast<unsigned char>(
                                  rest[chapter_begin - 1]))) {
    --chapter_begin;
  }
  if (chapter_begin == colon || chapter_begin < 2 ||
      rest[chapter_begin - 1] != ' ') {
    return false;
  }
  size_t verse_end = colon + 1;
  while (verse_end < rest.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(rest[verse_end]))) {
    ++verse_end;
  }
  if (verse_end == colon + 1 || verse_end == rest.size() ||
      rest[verse_end] != ':') {
    return false;
  }
  const absl::string_view book =
      absl::StripAsciiWhitespace(rest.substr(0, chapter_begin - 1));
  if (book.empty() || absl::StrContains(book, "<") ||
      absl::StrContains(book, ">")) {
    return false;
  }
  if (!absl::SimpleAtoi(rest.substr(chapter_begin, colon - chapter_begin),
                        &verse->chapter) ||
      !absl::SimpleAtoi(rest.substr(colon + 1, verse_end - colon - 1),
                        &verse->verse)) {
    return false;
  }
  verse->book = std::string(book);
  absl::string_view markup = rest.substr(verse_end + 1);
  if (absl::StartsWith(markup, " ")) markup.remove_prefix(1);
  verse->markup = std::string(markup);
  return true;
}

bool AppendOsisText(absl::string_view markup, std::string* text) {
  size_t pos = 0;
  while (pos < markup.size()) {
    if (markup[pos] != '<') {
      text->push_back(markup[pos++]);
      continue;
    }
    const size_t close = markup.find('>', pos);
    if (close == absl::string_view::npos) break;  // a cut tag: drop it
    const absl::string_view tag = markup.substr(pos + 1, close - pos - 1);
    pos = close + 1;
    const bool closing = absl::StartsWith(tag, "/");
    const bool empty_element = absl::EndsWith(tag, "/");
    const absl::string_view name = TagName(tag);
    // Elements dropped with their content.
    if (!closing && !empty_element &&
        (name == "note" || name == "speaker" || name == "title")) {
      const std::string end_tag = absl::StrCat("</", name, ">");
      const size_t end = markup.find(end_tag, pos);
      pos =
          end == absl::string_view::npos ? markup.size() : end + end_tag.size();
    }
    if (name == "note" || name == "q") {
      text->push_back(kSoftSpace);
    } else if (name == "div" &&
               (absl::StrContains(tag, "type=\"glossary\"") ||
                absl::StrContains(tag, "type=\"introduction\""))) {
      return false;
    } else if (name == "div" || name == "lg" || name == "list" ||
               name == "item" || name == "chapter" || name == "speaker" ||
               name == "title" || name == "l" || name == "lb" ||
               name == "milestone") {
      text->push_back(' ');
    }
  }
  return true;
}

std::string ResolveSoftSpaces(absl::string_view paragraph) {
  std::string result;
  result.reserve(paragraph.size());
  for (size_t pos = 0; pos < paragraph.size(); ++pos) {
    if (paragraph[pos] != kSoftSpace) {
      result.push_back(paragraph[pos]);
      continue;
    }
    if (result.empty() || IsSpace(result.back())) continue;
    size_t next = pos + 1;
    while (next < paragraph.size() && paragraph[next] == kSoftSpace) ++next;
    if (next == paragraph.size() || IsSpace(paragraph[next])) continue;
    bool needs_space = true;
    for (absl::string_view mark : kNoSpaceBefore) {
      if (absl::StartsWith(paragraph.substr(next), mark)) needs_space = false;
    }
    if (needs_space) result.push_back(' ');
  }
  return result;
}

absl::StatusOr<std::unique_ptr<DiathekeReader>> DiathekeReader::Open(
    std::vector<std::string> paths, ReaderLimits limits) {
  RETURN_IF_ERROR(ValidateReaderLimits(limits));
  RETURN_IF_ERROR(CheckInputFiles(paths));
  return std::unique_ptr<DiathekeReader>(
      new DiathekeReader(std::move(paths), limits));
}

DiathekeReader::DiathekeReader(std::vector<std::string> paths,
                               ReaderLimits limits)
    : paths_(std::move(paths)),
      limits_(limits),
      builder_(limits.max_document_bytes) {}

void DiathekeReader::FinishText() {
  builder_.AddAll(SplitSentences(ResolveSoftSpaces(text_)), text_location_);
  text_.clear();
}

absl::StatusOr<bool> DiathekeReader::NextDocument(Document* document) {
  while (true) {
    if (builder_.full()) {
      builder_.Take(document);
      return true;
    }
    if (lines_ == nullptr) {
      if (next_path_ == paths_.size()) {
        FinishText();
        return builder_.Take(document);
      }
      ASSIGN_OR_RETURN(lines_, LineReader::Open(paths_[next_path_++],
                                                limits_.max_line_bytes));
    }
    ASSIGN_OR_RETURN(const bool more, lines_->Next(&line_));
    if (!more) {
      lines_.reset();
      continue;
    }
    if (!ParseDiathekeVerse(line_, &verse_)) {
      const absl::string_view text = absl::StripAsciiWhitespace(line_);
      if (text.empty() ||
          (absl::StartsWith(text, "(") && absl::EndsWith(text, ")"))) {
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          lines_->Location(),
          ": not a verse of `diatheke -f internal` output (\"Book C:V: "
          "text\"): ",
          text.substr(0, 80)));
    }
    const std::string chapter = absl::StrCat(verse_.book, " ", verse_.chapter);
    bool ready = false;
    if (chapter != chapter_) {
      FinishText();
      ready = builder_.Take(document);
      chapter_ = chapter;
      in_back_matter_ = false;
    }
    if (!in_back_matter_) {
      if (text_.empty()) {
        text_location_ = lines_->Location();
      } else {
        text_.push_back(' ');  // between verses
      }
      in_back_matter_ = !AppendOsisText(verse_.markup, &text_);
      if (static_cast<int64_t>(text_.size()) > limits_.max_line_bytes) {
        FinishText();
      }
    }
    if (ready) return true;
  }
}

}  // namespace bertlab
