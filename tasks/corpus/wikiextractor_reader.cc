#include "tasks/corpus/wikiextractor_reader.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tasks/corpus/sentence_splitter.h"

namespace bertlab {
namespace {

// "<doc" followed by a space or ">" at the start of the line, as
// WikiExtractor writes it.
bool IsDocOpening(absl::string_view line) {
  return absl::StartsWith(line, "<doc") &&
         (line.size() == 4 || line[4] == ' ' || line[4] == '>');
}

}  // namespace

bool IsMarkupOnlyLine(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  if (line.empty()) return false;
  while (!line.empty()) {
    if (line.front() != '<') return false;
    const size_t close = line.find('>');
    if (close == absl::string_view::npos) return false;
    line = absl::StripLeadingAsciiWhitespace(line.substr(close + 1));
  }
  return true;
}

absl::StatusOr<std::unique_ptr<WikiExtractorReader>> WikiExtractorReader::Open(
    std::vector<std::string> paths, ReaderLimits limits) {
  RETURN_IF_ERROR(ValidateReaderLimits(limits));
  RETURN_IF_ERROR(CheckInputFiles(paths));
  return std::unique_ptr<WikiExtractorReader>(
      new WikiExtractorReader(std::move(paths), limits));
}

WikiExtractorReader::WikiExtractorReader(std::vector<std::string> paths,
                                         ReaderLimits limits)
    : paths_(std::move(paths)),
      limits_(limits),
      builder_(limits.max_document_bytes) {}

absl::StatusOr<bool> WikiExtractorReader::NextDocument(Document* document) {
  while (true) {
    if (lines_ == nullptr) {
      if (next_path_ == paths_.size()) return false;
      ASSIGN_OR_RETURN(lines_, LineReader::Open(paths_[next_path_++],
                                                limits_.max_line_bytes));
    }
    ASSIGN_OR_RETURN(const bool more, lines_->Next(&line_));
    if (!more) {
      if (in_doc_) {
        return absl::DataLossError(
            absl::StrCat(lines_->path(), ":", lines_->line_number(),
                         ": the file ends inside the <doc> opened at ",
                         doc_location_, " (no </doc>; truncated file?)"));
      }
      lines_.reset();
      continue;
    }
    if (IsDocOpening(line_)) {
      if (in_doc_) {
        return absl::InvalidArgumentError(absl::StrCat(
            lines_->Location(), ": <doc> inside the <doc> opened at ",
            doc_location_, " (missing </doc>)"));
      }
      in_doc_ = true;
      expecting_title_ = true;
      doc_location_ = lines_->Location();
      continue;
    }
    const absl::string_view text = absl::StripAsciiWhitespace(line_);
    if (text == "</doc>") {
      if (!in_doc_) {
        return absl::InvalidArgumentError(
            absl::StrCat(lines_->Location(), ": </doc> without <doc>"));
      }
      in_doc_ = false;
      if (builder_.Take(document)) return true;
      continue;
    }
    if (!in_doc_) {
      if (text.empty()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          lines_->Location(),
          ": text outside <doc>...</doc> (is this WikiExtractor output?)"));
    }
    if (expecting_title_) {
      expecting_title_ = false;
      continue;
    }
    if (text.empty() || IsMarkupOnlyLine(text)) continue;
    builder_.AddAll(SplitSentences(text), lines_->Location());
    if (builder_.full()) {
      builder_.Take(document);
      return true;
    }
  }
}

}  // namespace bertlab
