#include "tasks/corpus/reference_format_reader.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "common/status_macros.h"

namespace bertlab {

absl::StatusOr<std::unique_ptr<ReferenceFormatReader>>
ReferenceFormatReader::Open(std::vector<std::string> paths,
                            ReaderLimits limits) {
  RETURN_IF_ERROR(ValidateReaderLimits(limits));
  RETURN_IF_ERROR(CheckInputFiles(paths));
  return std::unique_ptr<ReferenceFormatReader>(
      new ReferenceFormatReader(std::move(paths), limits));
}

ReferenceFormatReader::ReferenceFormatReader(std::vector<std::string> paths,
                                             ReaderLimits limits)
    : paths_(std::move(paths)),
      limits_(limits),
      builder_(limits.max_document_bytes) {}

absl::StatusOr<bool> ReferenceFormatReader::NextDocument(Document* document) {
  while (true) {
    if (lines_ == nullptr) {
      if (next_path_ == paths_.size()) return false;
      ASSIGN_OR_RETURN(lines_, LineReader::Open(paths_[next_path_++],
                                                limits_.max_line_bytes));
    }
    ASSIGN_OR_RETURN(const bool more, lines_->Next(&line_));
    if (!more) {
      lines_.reset();
      if (builder_.Take(document)) return true;
      continue;
    }
    const absl::string_view sentence = absl::StripAsciiWhitespace(line_);
    if (sentence.empty()) {
      if (builder_.Take(document)) return true;
      continue;
    }
    builder_.Add(std::string(sentence), lines_->Location());
    if (builder_.full()) {
      builder_.Take(document);
      return true;
    }
  }
}

}  // namespace bertlab
