#include "tasks/corpus/line_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 16;
constexpr absl::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

absl::Status ValidateReaderLimits(const ReaderLimits& limits) {
  if (limits.max_line_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReaderLimits.max_line_bytes must be positive, got ",
                     limits.max_line_bytes));
  }
  if (limits.max_document_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReaderLimits.max_document_bytes must be positive, got ",
                     limits.max_document_bytes));
  }
  return absl::OkStatus();
}

absl::Status CheckInputFiles(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no input files");
  for (const std::string& path : paths) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
    }
    struct stat info;
    const bool is_directory =
        ::fstat(::fileno(file), &info) == 0 && S_ISDIR(info.st_mode);
    std::fclose(file);
    if (is_directory) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " is a directory, not a file"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(
    const std::string& path, int64_t max_line_bytes) {
  if (max_line_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_line_bytes must be positive, got ", max_line_bytes));
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  return std::unique_ptr<LineReader>(
      new LineReader(path, file, max_line_bytes));
}

LineReader::LineReader(std::string path, std::FILE* file,
                       int64_t max_line_bytes)
    : path_(std::move(path)),
      file_(file),
      max_line_bytes_(max_line_bytes),
      buffer_(kBufferBytes) {}

LineReader::~LineReader() { std::fclose(file_); }

std::string LineReader::Location() const {
  return absl::StrCat(path_, ":", line_number_);
}

absl::StatusOr<bool> LineReader::Fill() {
  if (at_eof_) return false;
  const size_t got = std::fread(buffer_.data(), 1, buffer_.size(), file_);
  if (got < buffer_.size()) {
    if (std::ferror(file_)) {
      return absl::ErrnoToStatus(
          errno,
          absl::StrCat("cannot read ", path_, " after line ", line_number_));
    }
    at_eof_ = true;
  }
  buffer_begin_ = 0;
  buffer_end_ = got;
  return got > 0;
}

absl::StatusOr<bool> LineReader::Next(std::string* line) {
  if (!error_.ok()) return error_;
  line->clear();
  bool saw_anything = false;
  while (true) {
    if (buffer_begin_ == buffer_end_) {
      absl::StatusOr<bool> filled = Fill();
      if (!filled.ok()) {
        error_ = filled.status();
        return error_;
      }
      if (!*filled) break;
    }
    saw_anything = true;
    const char* begin = buffer_.data() + buffer_begin_;
    const size_t available = buffer_end_ - buffer_begin_;
    const void* newline = std::memchr(begin, '\n', available);
    const size_t take = newline == nullptr
                            ? available
                            : static_cast<const char*>(newline) - begin;
    // The line so far may end in a '\r' that belongs to a CRLF line end, so
    // one byte more than the limit is allowed until the end is known; and
    // the first line may start with a byte order mark, which does not count.
    const int64_t allowance =
        1 +
        (line_number_ == 0 ? static_cast<int64_t>(kByteOrderMark.size()) : 0);
    if (static_cast<int64_t>(line->size() + take) >
        max_line_bytes_ + allowance) {
      error_ = absl::ResourceExhaustedError(absl::StrCat(
          path_, ":", line_number_ + 1, ": line longer than ", max_line_bytes_,
          " bytes (ReaderLimits.max_line_bytes); is this ",
          "a text file with line breaks?"));
      return error_;
    }
    line->append(begin, take);
    if (newline != nullptr) {
      buffer_begin_ += take + 1;
      break;
    }
    buffer_begin_ = buffer_end_;
  }
  if (!saw_anything) return false;
  ++line_number_;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  if (line_number_ == 1 &&
      absl::string_view(*line).substr(0, 3) == kByteOrderMark) {
    line->erase(0, kByteOrderMark.size());
  }
  if (static_cast<int64_t>(line->size()) > max_line_bytes_) {
    error_ = absl::ResourceExhaustedError(absl::StrCat(
        path_, ":", line_number_, ": line longer than ", max_line_bytes_,
        " bytes (ReaderLimits.max_line_bytes); is this a text file with ",
        "line breaks?"));
    return error_;
  }
  if (const size_t nul = line->find('\0'); nul != std::string::npos) {
    error_ = absl::InvalidArgumentError(absl::StrCat(
        path_, ":", line_number_, ": NUL byte at column ", nul + 1,
        "; is this a binary file (or UTF-16 text) rather than UTF-8 text?"));
    return error_;
  }
  return true;
}

}  // namespace bertlab
