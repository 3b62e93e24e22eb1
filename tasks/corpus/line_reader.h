// Reads a text file one line at a time with bounded memory: the common input
// layer of the corpus readers.
//
// Lines end at "\n"; a "\r" just before it (CRLF files, e.g. Moby Dick) is
// removed too. Lone "\r" (classic Mac OS) is not a line end. A last line
// without "\n" is still a line. A UTF-8 byte order mark at the start of the
// file is removed. Bytes are otherwise passed through untouched: ill-formed
// UTF-8 stays in the line, and the tokenizer's lenient decoder
// (tasks/utf8.h) replaces it by U+FFFD, which its cleaning then drops.
// Only NUL is refused: a line holding a NUL byte is an error naming
// path:line. Text corpora hold none, while binary files (executables,
// archives, a compressed dump given by mistake) and UTF-16 text almost
// always do, and reading them as text would quietly make junk sentences.
//
// Memory is bounded by the line length limit: a line longer than
// `max_line_bytes` (without its line end, and without the byte order mark)
// is an error naming path:line, raised as soon as the limit is passed,
// without buffering the rest of the line.
#ifndef BERTLAB_TASKS_CORPUS_LINE_READER_H_
#define BERTLAB_TASKS_CORPUS_LINE_READER_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bertlab {

// Memory bounds shared by every corpus reader.
struct ReaderLimits {
  // A longer line (without its line end) is an error naming path:line.
  int64_t max_line_bytes = int64_t{10} << 20;
  // A document whose sentences reach this many bytes in total ends there,
  // and the text after it continues in a new document. Books without
  // chapter headings and reference-format files without blank lines are
  // the usual cases; none of the shared corpora reaches the default.
  int64_t max_document_bytes = int64_t{64} << 20;
};

// Validates `limits` (both positive) for the readers' Open functions.
absl::Status ValidateReaderLimits(const ReaderLimits& limits);

// Checks, before a reader starts, that `paths` is not empty and that every
// path names a readable file (not a directory), so that a typo in the last
// of many inputs fails at once rather than after hours of reading.
absl::Status CheckInputFiles(const std::vector<std::string>& paths);

class LineReader {
 public:
  // Opens `path`. Errors name the path and the strerror text.
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(
      const std::string& path, int64_t max_line_bytes);

  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader();

  // Reads the next line into *line (without its line end) and returns true,
  // or returns false at the end of the file. After an error every later
  // call returns the same error.
  absl::StatusOr<bool> Next(std::string* line);

  // The 1-based number of the line last returned (0 before the first).
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  // "path:line" of the line last returned, for messages and sources.
  std::string Location() const;

 private:
  LineReader(std::string path, std::FILE* file, int64_t max_line_bytes);
  // Refills buffer_; returns false at the end of the file.
  absl::StatusOr<bool> Fill();

  const std::string path_;
  std::FILE* file_;
  const int64_t max_line_bytes_;
  std::vector<char> buffer_;
  size_t buffer_begin_ = 0;
  size_t buffer_end_ = 0;
  bool at_eof_ = false;
  int64_t line_number_ = 0;
  absl::Status error_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_LINE_READER_H_
