#include "tasks/swag/csv.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace bertlab {

absl::StatusOr<std::vector<CsvRecord>> ParseCsv(absl::string_view contents,
                                                absl::string_view source) {
  constexpr absl::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (contents.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    contents.remove_prefix(kByteOrderMark.size());
  }
  std::vector<CsvRecord> records;
  int64_t line = 1;
  size_t i = 0;
  const size_t size = contents.size();
  while (i < size) {
    CsvRecord record;
    record.line = line;
    // A blank line is no record.
    if (contents[i] == '\n' || contents[i] == '\r') {
      if (contents[i] == '\r' && i + 1 < size && contents[i + 1] == '\n') ++i;
      ++i;
      ++line;
      continue;
    }
    bool end_of_record = false;
    while (!end_of_record) {
      std::string field;
      if (i < size && contents[i] == '"') {
        const int64_t quote_line = line;
        ++i;
        bool closed = false;
        while (i < size) {
          const char c = contents[i];
          if (c == '"') {
            if (i + 1 < size && contents[i + 1] == '"') {
              field.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (c == '\0') {
            return absl::InvalidArgumentError(absl::StrCat(
                source, ":", line, ": NUL byte; is this a binary file?"));
          }
          if (c == '\n') ++line;
          field.push_back(c);
          ++i;
        }
        if (!closed) {
          return absl::InvalidArgumentError(
              absl::StrCat(source, ":", quote_line,
                           ": quoted field never closes (no ending '\"' "
                           "before the end of the file)"));
        }
        if (i < size && contents[i] != ',' && contents[i] != '\n' &&
            contents[i] != '\r') {
          return absl::InvalidArgumentError(absl::StrCat(
              source, ":", line, ": unexpected '",
              absl::string_view(&contents[i], 1),
              "' after a closing quote (expected ',' or the end of the line)"));
        }
      } else {
        while (i < size && contents[i] != ',' && contents[i] != '\n' &&
               contents[i] != '\r') {
          if (contents[i] == '\0') {
            return absl::InvalidArgumentError(absl::StrCat(
                source, ":", line, ": NUL byte; is this a binary file?"));
          }
          field.push_back(contents[i]);
          ++i;
        }
      }
      record.fields.push_back(std::move(field));
      if (i >= size) {
        end_of_record = true;
      } else if (contents[i] == ',') {
        ++i;
      } else {
        if (contents[i] == '\r' && i + 1 < size && contents[i + 1] == '\n') {
          ++i;
        }
        ++i;
        ++line;
        end_of_record = true;
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::string FormatCsvRecord(const std::vector<std::string>& fields) {
  // Written bare, one empty field would be a blank line, which reads as no
  // record; Python's csv.writer quotes it for that reason.
  if (fields.size() == 1 && fields[0].empty()) return "\"\"\n";
  std::string out;
  for (size_t f = 0; f < fields.size(); ++f) {
    if (f > 0) out.push_back(',');
    const std::string& field = fields[f];
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
      out += field;
      continue;
    }
    out.push_back('"');
    for (char c : field) {
      if (c == '"') out.push_back('"');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('\n');
  return out;
}

}  // namespace bertlab
