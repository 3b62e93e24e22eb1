// Writes documents in the pre-training input format of create_pretraining_
// data.py: one sentence per line, and an empty line after every document
// (the script ignores the empty document a final blank line opens, and a
// trailing blank line keeps documents apart when files are concatenated or
// given to the script together).
//
// A sentence is written on one line: any "\n" or "\r" inside it becomes a
// space, and a sentence that is then blank is skipped, since a blank line
// would end the document. The readers of this package never produce
// either. When the first sentence starts with U+FEFF, a UTF-8 byte order
// mark goes in front of it: readers remove a file's first byte order mark
// (line_reader.h), and would otherwise take the sentence's for it.
#ifndef BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_WRITER_H_
#define BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tasks/corpus/document.h"

namespace bertlab {

struct ReferenceFormatStats {
  int64_t documents = 0;
  int64_t sentences = 0;
  int64_t bytes = 0;  // written, line ends included
};

// Reads every document of `reader` and writes it to `out`; calls
// `after_document` after each one (for progress reports). Errors: the
// reader's, or a failed write.
absl::StatusOr<ReferenceFormatStats> WriteReferenceFormat(
    DocumentReader& reader, std::ostream& out,
    absl::FunctionRef<void(const ReferenceFormatStats&)> after_document =
        [](const ReferenceFormatStats&) {});

// Same, into the file at `path`, which appears only when all went well:
// the text goes to "<path>.partial" first, renamed over `path` at the end.
absl::StatusOr<ReferenceFormatStats> WriteReferenceFormatFile(
    DocumentReader& reader, const std::string& path,
    absl::FunctionRef<void(const ReferenceFormatStats&)> after_document =
        [](const ReferenceFormatStats&) {});

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_REFERENCE_FORMAT_WRITER_H_
