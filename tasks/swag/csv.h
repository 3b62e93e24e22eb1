// Comma-separated values as Python's csv module reads and writes them with
// its default dialect ("excel", RFC 4180): fields separated by ',', records
// by "\n" or "\r\n"; a field that starts with '"' is quoted, may hold
// commas, line breaks and doubled quotes ("" for one "), and ends at the
// next lone '"'. The official SWAG files (rowanz/swagaf data/*.csv) were
// written by pandas in this dialect.
//
// Differences from Python's reader, all about malformed input, which is an
// error here (naming the source and line) instead of being read leniently:
// text after a closing quote other than ',' or the end of the record, a
// quote that never closes, and a NUL byte (a binary file). A blank line is
// skipped, as Python's reader does (it yields an empty row).
#ifndef BERTLAB_TASKS_SWAG_CSV_H_
#define BERTLAB_TASKS_SWAG_CSV_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

struct CsvRecord {
  std::vector<std::string> fields;
  // 1-based line of the file on which the record starts (a record with a
  // quoted line break spans several lines).
  int64_t line = 0;
};

// Every record of `contents` in order, the header included. A UTF-8 byte
// order mark at the start is dropped. `source` names the text in messages
// ("path:line: ...").
absl::StatusOr<std::vector<CsvRecord>> ParseCsv(absl::string_view contents,
                                                absl::string_view source);

// One record in the default dialect with minimal quoting (Python's
// csv.QUOTE_MINIMAL): a field is quoted only when it holds ',', '"', '\r'
// or '\n', or when it is the record's only field and empty (as Python's
// writer does: a bare line break would read as a blank line). Ends with "\n"
// (pandas' to_csv; Python's csv.writer would end with "\r\n", which ParseCsv
// reads the same).
std::string FormatCsvRecord(const std::vector<std::string>& fields);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_SWAG_CSV_H_
