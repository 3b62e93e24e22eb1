// A document of a pre-training corpus, and the streaming interface every
// corpus reader implements. Readers never hold a whole corpus: NextDocument
// hands out one document at a time, so memory stays bounded whatever the
// corpus size.
//
// A document is a list of sentences of raw UTF-8 text (not yet tokenized),
// in order, the unit of google-research/bert's create_pretraining_data.py
// input format: one sentence per line, a blank line between documents.
#ifndef BERTLAB_TASKS_CORPUS_DOCUMENT_H_
#define BERTLAB_TASKS_CORPUS_DOCUMENT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {

struct Document {
  std::vector<std::string> sentences;
  // Where it came from, for messages: "path:line" of its first sentence.
  std::string source;
};

class DocumentReader {
 public:
  virtual ~DocumentReader() = default;
  // Fills *document with the next non-empty document and returns true, or
  // returns false at the end of the corpus. Errors name the file and line.
  virtual absl::StatusOr<bool> NextDocument(Document* document) = 0;
};

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_DOCUMENT_H_
