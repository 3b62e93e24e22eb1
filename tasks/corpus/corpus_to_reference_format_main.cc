// Converts a corpus in one of its distribution formats into the input
// format of create_pretraining_data.py (one sentence per line, a blank line
// after each document).
//
//   bazel run //tasks/corpus:corpus_to_reference_format --
//       --format=wikiextractor|gutenberg|reference|diatheke --out=FILE
//       INPUT...
//
// Formats (one reader each, documented in its header):
//   wikiextractor  WikiExtractor's <doc> blocks      wikiextractor_reader.h
//   gutenberg      Project Gutenberg / plain books   gutenberg_reader.h
//   reference      the reference format itself       reference_format_reader.h
//   diatheke       `diatheke -f internal -o f` dump  diatheke_reader.h
// Relative paths are taken relative to the directory where `bazel run` was
// started (BUILD_WORKING_DIRECTORY). FILE appears only when the whole
// conversion succeeded. A progress line goes to stderr every few seconds,
// and a summary at the end.
//
// Input without documents (empty files) gives an empty FILE and a warning.
// A line over --max_line_bytes (a file without line breaks) or with a NUL
// byte (a binary file; tasks/corpus/line_reader.h) is an error naming
// path:line, and FILE does not appear.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "tasks/corpus/diatheke_reader.h"
#include "tasks/corpus/gutenberg_reader.h"
#include "tasks/corpus/reference_format_reader.h"
#include "tasks/corpus/reference_format_writer.h"
#include "tasks/corpus/wikiextractor_reader.h"

ABSL_FLAG(std::string, format, "",
          "input format: wikiextractor, gutenberg, reference or diatheke "
          "(required)");
ABSL_FLAG(std::string, out, "", "output file (required)");
ABSL_FLAG(double, max_front_matter_fraction,
          bertlab::GutenbergReaderOptions().max_front_matter_fraction,
          "gutenberg: the text before a book's first chapter heading is "
          "dropped when it is at most this fraction of the book (0: keep "
          "it always)");
ABSL_FLAG(int64_t, max_line_bytes, bertlab::ReaderLimits().max_line_bytes,
          "a longer input line is an error");
ABSL_FLAG(int64_t, max_document_bytes,
          bertlab::ReaderLimits().max_document_bytes,
          "a document reaching this size is cut there");
ABSL_FLAG(double, progress_seconds, 5.0,
          "seconds between progress lines on stderr (0: none)");
ABSL_FLAG(bool, quiet, false,
          "no progress, notes or summary on stderr (errors only)");

namespace bertlab {
namespace {

void ReportGutenbergBooks(const GutenbergReader& reader) {
  for (const GutenbergBookInfo& book : reader.books()) {
    if (book.header_end_line == 0 && book.footer_start_line == 0) {
      std::cerr << "corpus_to_reference_format: note: " << book.path
                << " has no Project Gutenberg header or footer marker; all "
                   "of it was read as the book\n";
    }
    if (book.documents == 0) {
      std::cerr << "corpus_to_reference_format: warning: " << book.path
                << " gave no documents\n";
    }
  }
}

absl::Status Run(const std::vector<std::string>& inputs) {
  const std::string format = absl::GetFlag(FLAGS_format);
  const std::string out_flag = absl::GetFlag(FLAGS_out);
  if (out_flag.empty()) {
    return absl::InvalidArgumentError("--out is required");
  }
  if (inputs.empty()) {
    return absl::InvalidArgumentError("no input files given");
  }
  std::vector<std::string> paths;
  for (const std::string& input : inputs) {
    paths.push_back(ResolveUserPath(input));
  }
  ReaderLimits limits;
  limits.max_line_bytes = absl::GetFlag(FLAGS_max_line_bytes);
  limits.max_document_bytes = absl::GetFlag(FLAGS_max_document_bytes);

  std::unique_ptr<DocumentReader> reader;
  GutenbergReader* gutenberg = nullptr;
  if (format == "wikiextractor") {
    ASSIGN_OR_RETURN(reader, WikiExtractorReader::Open(paths, limits));
  } else if (format == "gutenberg") {
    GutenbergReaderOptions options;
    options.limits = limits;
    options.max_front_matter_fraction =
        absl::GetFlag(FLAGS_max_front_matter_fraction);
    ASSIGN_OR_RETURN(std::unique_ptr<GutenbergReader> books,
                     GutenbergReader::Open(paths, options));
    gutenberg = books.get();
    reader = std::move(books);
  } else if (format == "reference") {
    ASSIGN_OR_RETURN(reader, ReferenceFormatReader::Open(paths, limits));
  } else if (format == "diatheke") {
    ASSIGN_OR_RETURN(reader, DiathekeReader::Open(paths, limits));
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--format=", format,
                     ": expected wikiextractor, gutenberg, reference or "
                     "diatheke"));
  }

  using Clock = std::chrono::steady_clock;
  const bool quiet = absl::GetFlag(FLAGS_quiet);
  const double progress_seconds =
      quiet ? 0.0 : absl::GetFlag(FLAGS_progress_seconds);
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  const auto seconds_since = [](Clock::time_point then) {
    return std::chrono::duration<double>(Clock::now() - then).count();
  };
  const std::string out_path = ResolveUserPath(out_flag);
  ASSIGN_OR_RETURN(
      const ReferenceFormatStats stats,
      WriteReferenceFormatFile(
          *reader, out_path, [&](const ReferenceFormatStats& so_far) {
            if (progress_seconds <= 0 ||
                seconds_since(last_report) < progress_seconds) {
              return;
            }
            last_report = Clock::now();
            std::cerr << absl::StrFormat(
                "corpus_to_reference_format: %d documents, %d sentences, "
                "%.1f MB written (%.0f s)\n",
                so_far.documents, so_far.sentences, so_far.bytes / 1e6,
                seconds_since(start));
          }));
  if (quiet) return absl::OkStatus();
  if (gutenberg != nullptr) ReportGutenbergBooks(*gutenberg);
  if (stats.documents == 0) {
    std::cerr << "corpus_to_reference_format: warning: the input holds no "
                 "documents (empty files?); "
              << out_path << " is empty\n";
  }
  std::cerr << absl::StrFormat(
      "corpus_to_reference_format: wrote %s: %d documents, %d sentences, %d "
      "bytes from %d input files in %.1f s\n",
      out_path, stats.documents, stats.sentences, stats.bytes, paths.size(),
      seconds_since(start));
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("corpus_to_reference_format", [&] {
    absl::SetProgramUsageMessage(
        "--format=wikiextractor|gutenberg|reference|diatheke --out=FILE "
        "INPUT...\nWrites the corpus in create_pretraining_data.py's input "
        "format: one sentence per line, a blank line after each document.");
    std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
    const std::vector<std::string> inputs(positional.begin() + 1,
                                          positional.end());
    return bertlab::Run(inputs);
  });
}
