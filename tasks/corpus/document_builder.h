// Collects the sentences of one document for a corpus reader and ends it
// when ReaderLimits.max_document_bytes is reached, so no reader holds more
// than one bounded document.
#ifndef BERTLAB_TASKS_CORPUS_DOCUMENT_BUILDER_H_
#define BERTLAB_TASKS_CORPUS_DOCUMENT_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"

namespace bertlab {

class DocumentBuilder {
 public:
  explicit DocumentBuilder(int64_t max_document_bytes)
      : max_document_bytes_(max_document_bytes) {}

  // Appends `sentence` (skipped when empty); `source` ("path:line") becomes
  // the document's source when it is the first sentence.
  void Add(std::string sentence, absl::string_view source);
  // Appends each of `sentences`, all from `source`.
  void AddAll(std::vector<std::string> sentences, absl::string_view source);

  // Whether the sentences reached max_document_bytes: time to end it.
  bool full() const { return bytes_ >= max_document_bytes_; }
  bool empty() const { return sentences_.empty(); }
  // Bytes of the sentences collected so far.
  int64_t bytes() const { return bytes_; }

  // Moves the document into *document and starts a new one; returns false
  // (leaving *document alone) when there is nothing to take.
  bool Take(Document* document);
  // Drops what was collected.
  void Clear();

 private:
  const int64_t max_document_bytes_;
  std::vector<std::string> sentences_;
  std::string source_;
  int64_t bytes_ = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_DOCUMENT_BUILDER_H_
