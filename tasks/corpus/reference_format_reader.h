// Reads the pre-training input format of google-research/bert's
// create_pretraining_data.py: one sentence per line, documents separated by
// blank lines.
//
// As in that script, each line is stripped of surrounding whitespace (here
// ASCII whitespace; Python's str.strip() also strips Unicode spaces such as
// U+3000, which the tokenizer then treats as whitespace anyway) and a line
// that is empty after stripping ends the document. The line itself is the
// sentence, byte for byte (invalid UTF-8 included: the tokenizer's lenient
// decoder handles it later).
//
// Differences from the script, all about corner cases:
//   * Several input files are read in sequence, and the end of each file
//     ends its last document. The script continues a document across files
//     that do not end with a blank line.
//   * A line that the tokenizer reduces to nothing (say, only control
//     characters) is a sentence here; the script drops it after
//     tokenization, and so should the code that tokenizes these documents.
//   * A document reaching ReaderLimits.max_document_bytes ends there and
//     the following lines start a new one (the script holds every document
//     in memory whatever its size).
#ifndef BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_READER_H_
#define BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_READER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/corpus/document.h"
#include "tasks/corpus/document_builder.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {

class ReferenceFormatReader : public DocumentReader {
 public:
  // Checks that every file in `paths` can be opened (CheckInputFiles).
  static absl::StatusOr<std::unique_ptr<ReferenceFormatReader>> Open(
      std::vector<std::string> paths, ReaderLimits limits = ReaderLimits());

  absl::StatusOr<bool> NextDocument(Document* document) override;

 private:
  ReferenceFormatReader(std::vector<std::string> paths, ReaderLimits limits);

  const std::vector<std::string> paths_;
  const ReaderLimits limits_;
  size_t next_path_ = 0;
  std::unique_ptr<LineReader> lines_;
  std::string line_;
  DocumentBuilder builder_;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_READER_H_
