// Reads the output of WikiExtractor (attardi/wikiextractor), the usual
// source of BERT's Wikipedia text:
//
//   <doc id="12" url="http://en.wikipedia.org/wiki?curid=12" title="Anarchism">
//   Anarchism
//
//   Anarchism is a political philosophy that ...
//   Etymology and terminology.
//   ...
//   </doc>
//
// One document per <doc> block. The first line inside a block is the
// article title and is dropped. Every other non-blank line is a paragraph,
// split into sentences by SplitSentences (sentence_splitter.h). Lines that
// hold nothing but markup tags WikiExtractor left behind ("</dl>",
// "<poem>", "<br>") are dropped; tags inside text are kept (the tokenizer
// sees them as punctuation and words). A block without any text is
// skipped, as DocumentReader requires.
//
// The format is checked strictly, since a violation means a truncated file
// or the wrong --format: a <doc> line inside a block, a </doc> line outside
// one, non-blank text outside any block, and the end of a file inside a
// block are errors naming path:line (and where the block opened). Files are
// read in sequence; a block never spans files. A block reaching
// ReaderLimits.max_document_bytes is handed out in pieces of that size.
#ifndef BERTLAB_TASKS_CORPUS_WIKIEXTRACTOR_READER_H_
#define BERTLAB_TASKS_CORPUS_WIKIEXTRACTOR_READER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tasks/corpus/document.h"
#include "tasks/corpus/document_builder.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {

class WikiExtractorReader : public DocumentReader {
 public:
  // Checks that every file in `paths` can be opened (CheckInputFiles).
  static absl::StatusOr<std::unique_ptr<WikiExtractorReader>> Open(
      std::vector<std::string> paths, ReaderLimits limits = ReaderLimits());

  absl::StatusOr<bool> NextDocument(Document* document) override;

 private:
  WikiExtractorReader(std::vector<std::string> paths, ReaderLimits limits);

  const std::vector<std::string> paths_;
  const ReaderLimits limits_;
  size_t next_path_ = 0;
  std::unique_ptr<LineReader> lines_;
  std::string line_;
  bool in_doc_ = false;
  bool expecting_title_ = false;
  std::string doc_location_;  // where the open <doc> is
  DocumentBuilder builder_;
};

// Whether `line` is one or more markup tags and nothing else ("</dl>",
// "<poem style=\"x\">", "<br> <br>").
bool IsMarkupOnlyLine(absl::string_view line);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_CORPUS_WIKIEXTRACTOR_READER_H_
