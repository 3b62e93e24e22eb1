// Fuzz target: any bytes as a corpus file for every reader of tasks/corpus
// (reference format, WikiExtractor, Gutenberg, diatheke), each with the
// default ReaderLimits and with tiny ones (so that line, paragraph and
// document caps are hit), reading every document. The bytes go to an
// in-memory file (memfd), opened by the readers as /proc/self/fd/N.
//
// Invariants, each a CHECK:
//   * NextDocument either fails with a message naming the file, or gives
//     a document with a source and at least one sentence, each non-empty
//     and without "\n".
//   * A document stops growing once it reaches max_document_bytes: the
//     reference format reader ends it at the sentence that reaches it (its
//     bytes before its last sentence are fewer); the others add a
//     paragraph's (or verse text's) sentences at a time, so they may pass
//     it by one such unit, at most 2 * max_line_bytes + 1 bytes.
//   * After the end, NextDocument keeps returning false.
//   * The reference format round-trips: what WriteReferenceFormat writes of
//     a ReferenceFormatReader's documents reads back as the same documents
//     (with "\r" inside a sentence written as a space).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/corpus/diatheke_reader.h"
#include "tasks/corpus/document.h"
#include "tasks/corpus/gutenberg_reader.h"
#include "tasks/corpus/line_reader.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/corpus/reference_format_writer.h"
#include "tasks/corpus/wikiextractor_reader.h"
#include "tasks/fuzz/memory_file.h"

namespace bertlab {
namespace {

ReaderLimits TinyLimits() {
  ReaderLimits limits;
  limits.max_line_bytes = 48;
  limits.max_document_bytes = 64;
  return limits;
}

// Reads every document (at most max_documents: no reader may loop forever),
// checking the invariants; returns them, or the reader's error.
absl::StatusOr<std::vector<Document>> ReadAll(DocumentReader& reader,
                                              const ReaderLimits& limits,
                                              const std::string& path,
                                              size_t max_documents,
                                              bool cut_at_sentences) {
  std::vector<Document> documents;
  Document document;
  while (true) {
    absl::StatusOr<bool> more = reader.NextDocument(&document);
    if (!more.ok()) {
      CHECK(absl::StrContains(more.status().message(), path))
          << "an error that does not name the file: " << more.status();
      return more.status();
    }
    if (!*more) break;
    CHECK(!document.source.empty());
    CHECK(!document.sentences.empty()) << document.source;
    int64_t bytes = 0;
    int64_t bytes_before_last = 0;
    for (const std::string& sentence : document.sentences) {
      CHECK(!sentence.empty()) << document.source;
      CHECK(sentence.find('\n') == std::string::npos) << document.source;
      bytes_before_last = bytes;
      bytes += static_cast<int64_t>(sentence.size());
    }
    if (cut_at_sentences) {
      CHECK_LT(bytes_before_last, limits.max_document_bytes) << document.source;
    } else {
      CHECK_LT(bytes, limits.max_document_bytes + 2 * limits.max_line_bytes + 1)
          << document.source;
    }
    documents.push_back(std::move(document));
    CHECK_LE(documents.size(), max_documents) << "too many documents";
  }
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<bool> more = reader.NextDocument(&document);
    CHECK(more.ok() && !*more) << "NextDocument after the end";
  }
  return documents;
}

// Writes `documents` in the reference format and reads them back.
void CheckReferenceRoundTrip(const std::vector<Document>& documents,
                             const ReaderLimits& limits, MemoryFile* file) {
  struct VectorReader : DocumentReader {
    const std::vector<Document>* documents;
    size_t next = 0;
    absl::StatusOr<bool> NextDocument(Document* document) override {
      if (next == documents->size()) return false;
      *document = (*documents)[next++];
      return true;
    }
  } source;
  source.documents = &documents;
  std::ostringstream text;
  CHECK(WriteReferenceFormat(source, text).ok());
  file->Set(text.str());
  absl::StatusOr<std::unique_ptr<ReferenceFormatReader>> reader =
      ReferenceFormatReader::Open({file->path()}, limits);
  CHECK(reader.ok()) << reader.status();
  absl::StatusOr<std::vector<Document>> again =
      ReadAll(**reader, limits, file->path(), documents.size(),
              /*cut_at_sentences=*/true);
  CHECK(again.ok()) << "the written text does not read back: "
                    << again.status();
  CHECK_EQ(again->size(), documents.size());
  for (size_t d = 0; d < documents.size(); ++d) {
    std::vector<std::string> expected = documents[d].sentences;
    for (std::string& sentence : expected) {
      for (char& c : sentence) c = c == '\r' ? ' ' : c;
    }
    CHECK(expected == (*again)[d].sentences) << "document " << d;
  }
}

using OpenReader =
    std::function<absl::StatusOr<std::unique_ptr<DocumentReader>>(
        std::vector<std::string>, const ReaderLimits&)>;

template <typename Reader>
OpenReader Opener() {
  return [](std::vector<std::string> paths, const ReaderLimits& limits)
             -> absl::StatusOr<std::unique_ptr<DocumentReader>> {
    auto reader = Reader::Open(std::move(paths), limits);
    if (!reader.ok()) return reader.status();
    return std::unique_ptr<DocumentReader>(*std::move(reader));
  };
}

absl::StatusOr<std::unique_ptr<DocumentReader>> OpenGutenberg(
    std::vector<std::string> paths, const ReaderLimits& limits,
    double max_front_matter_fraction) {
  GutenbergReaderOptions options;
  options.limits = limits;
  options.max_front_matter_fraction = max_front_matter_fraction;
  auto reader = GutenbergReader::Open(std::move(paths), options);
  if (!reader.ok()) return reader.status();
  return std::unique_ptr<DocumentReader>(*std::move(reader));
}

// The reference format reader first: the only one that cuts documents at
// sentences, and the one whose output round-trips.
const std::vector<OpenReader>& Openers() {
  static const std::vector<OpenReader>* const openers =
      new std::vector<OpenReader>{
          Opener<ReferenceFormatReader>(),
          Opener<WikiExtractorReader>(),
          Opener<DiathekeReader>(),
          [](std::vector<std::string> paths, const ReaderLimits& limits) {
            return OpenGutenberg(std::move(paths), limits, 0.1);
          },
          [](std::vector<std::string> paths, const ReaderLimits& limits) {
            return OpenGutenberg(std::move(paths), limits, 0.0);
          },
      };
  return *openers;
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using bertlab::MemoryFile;
  static MemoryFile* const input = new MemoryFile("corpus_fuzz_input");
  static MemoryFile* const written = new MemoryFile("corpus_fuzz_written");
  input->Set(absl::string_view(reinterpret_cast<const char*>(data), size));
  const size_t max_documents = size + 2;
  for (const bertlab::ReaderLimits& limits :
       {bertlab::ReaderLimits(), bertlab::TinyLimits()}) {
    for (size_t kind = 0; kind < bertlab::Openers().size(); ++kind) {
      // One file, and the same file twice (documents never span files).
      for (int copies = 1; copies <= 2; ++copies) {
        auto reader = bertlab::Openers()[kind](
            std::vector<std::string>(copies, input->path()), limits);
        CHECK(reader.ok()) << reader.status();
        absl::StatusOr<std::vector<bertlab::Document>> documents =
            bertlab::ReadAll(**reader, limits, input->path(),
                             copies * max_documents,
                             /*cut_at_sentences=*/kind == 0);
        if (kind == 0 && copies == 1 && documents.ok()) {
          bertlab::CheckReferenceRoundTrip(*documents, limits, written);
        }
      }
    }
  }
  return 0;
}
