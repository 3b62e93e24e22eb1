#include "tasks/corpus/reference_format_writer.h"

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bertlab {
namespace {

constexpr absl::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

absl::StatusOr<ReferenceFormatStats> WriteReferenceFormat(
    DocumentReader& reader, std::ostream& out,
    absl::FunctionRef<void(const ReferenceFormatStats&)> after_document) {
  ReferenceFormatStats stats;
  Document document;
  std::string line;
  while (true) {
    ASSIGN_OR_RETURN(const bool more, reader.NextDocument(&document));
    if (!more) break;
    int64_t written = 0;
    for (const std::string& sentence : document.sentences) {
      line = sentence;
      for (char& c : line) {
        if (c == '\n' || c == '\r') c = ' ';
      }
      if (absl::StripAsciiWhitespace(line).empty()) continue;
      if (stats.bytes == 0 && absl::StartsWith(line, kByteOrderMark)) {
        // The readers would take the sentence's U+FEFF for the file's byte
        // order mark and drop it; a mark in front keeps it.
        out << kByteOrderMark;
        stats.bytes += static_cast<int64_t>(kByteOrderMark.size());
      }
      out << line << '\n';
      stats.bytes += static_cast<int64_t>(line.size()) + 1;
      ++written;
    }
    if (written == 0) continue;
    out << '\n';
    stats.bytes += 1;
    stats.sentences += written;
    ++stats.documents;
    if (!out) {
      return absl::DataLossError(
          absl::StrCat("write failed after ", stats.bytes, " bytes"));
    }
    after_document(stats);
  }
  out.flush();
  if (!out) {
    return absl::DataLossError(
        absl::StrCat("write failed after ", stats.bytes, " bytes"));
  }
  return stats;
}

absl::StatusOr<ReferenceFormatStats> WriteReferenceFormatFile(
    DocumentReader& reader, const std::string& path,
    absl::FunctionRef<void(const ReferenceFormatStats&)> after_document) {
  const std::string partial = absl::StrCat(path, ".partial");
  absl::StatusOr<ReferenceFormatStats> stats;
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat("cannot create ", partial));
    }
    stats = WriteReferenceFormat(reader, out, after_document);
    out.close();
    if (stats.ok() && !out) {
      stats = absl::DataLossError(absl::StrCat("cannot close ", partial));
    }
  }
  if (!stats.ok()) {
    std::remove(partial.c_str());
    return Annotate(stats.status(), absl::StrCat("writing ", path, ": "));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    const absl::Status error = absl::ErrnoToStatus(
        errno, absl::StrCat("cannot rename ", partial, " to ", path));
    std::remove(partial.c_str());
    return error;
  }
  return stats;
}

}  // namespace bertlab
