#include "tasks/corpus/document_builder.h"

#include <utility>

namespace bertlab {

void DocumentBuilder::Add(std::string sentence, absl::string_view source) {
  if (sentence.empty()) return;
  if (sentences_.empty()) source_ = std::string(source);
  bytes_ += static_cast<int64_t>(sentence.size());
  sentences_.push_back(std::move(sentence));
}

void DocumentBuilder::AddAll(std::vector<std::string> sentences,
                             absl::string_view source) {
  for (std::string& sentence : sentences) Add(std::move(sentence), source);
}

bool DocumentBuilder::Take(Document* document) {
  if (sentences_.empty()) return false;
  document->sentences = std::move(sentences_);
  document->source = std::move(source_);
  Clear();
  return true;
}

void DocumentBuilder::Clear() {
  sentences_.clear();
  source_.clear();
  bytes_ = 0;
}

}  // namespace bertlab
