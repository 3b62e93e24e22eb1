#include "tasks/glue/glue_reader.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "tasks/corpus/line_reader.h"

namespace bertlab {
namespace {

// The field index `column` names in a row of `num_fields` fields.
int Resolve(int column, int num_fields) {
  return column == GlueColumns::kLastColumn ? num_fields - 1 : column;
}

// The number of fields a row needs for `columns` (kLastColumn needs one
// more than the largest explicit column).
int FieldsNeeded(const GlueColumns& columns) {
  const int largest =
      std::max({columns.guid, columns.text_a, columns.text_b, columns.label});
  // The label, when last, must come after every other field.
  return columns.label == GlueColumns::kLastColumn ? largest + 2 : largest + 1;
}

std::string Quoted(absl::string_view text) {
  constexpr size_t kMaxShown = 60;
  if (text.size() <= kMaxShown) return absl::StrCat("\"", text, "\"");
  return absl::StrCat("\"", text.substr(0, kMaxShown), "...\"");
}

}  // namespace

absl::StatusOr<GlueSet> ReadGlueFile(const GlueTaskSpec& task,
                                     GlueFileKind kind, const std::string& path,
                                     const std::string& set_name) {
  const GlueColumns& columns = kind == GlueFileKind::kLabelled
                                   ? task.labelled_columns
                                   : task.test_columns;
  ASSIGN_OR_RETURN(std::unique_ptr<LineReader> reader,
                   LineReader::Open(path, ReaderLimits().max_line_bytes));
  GlueSet set;
  set.set_name = set_name;
  set.path = path;
  const int needed = FieldsNeeded(columns);
  int expected_fields = columns.columns_without_header;
  std::string line;
  if (columns.has_header) {
    ASSIGN_OR_RETURN(const bool has_line, reader->Next(&line));
    if (!has_line) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": empty file; expected a ", task.name, " ",
                       kind == GlueFileKind::kLabelled ? "train/dev" : "test",
                       " header line"));
    }
    // CR-only line ends make the whole file its header line: say so rather
    // than report a file without rows.
    if (line.find('\r') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader->Location(),
          ": a carriage return without a line feed: the file has CR-only "
          "(classic Mac) line ends; save it with LF (or CRLF) line ends"));
    }
    expected_fields =
        static_cast<int>(std::count(line.begin(), line.end(), '\t')) + 1;
    if (expected_fields < needed) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader->Location(), ": header has ", expected_fields, " fields, a ",
          task.name, kind == GlueFileKind::kLabelled ? " train/dev" : " test",
          " file needs at least ", needed, " (is this the right file?)"));
    }
  }
  int64_t data_row = 0;
  while (true) {
    ASSIGN_OR_RETURN(const bool has_line, reader->Next(&line));
    if (!has_line) break;
    const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    const int num_fields = static_cast<int>(fields.size());
    if (num_fields < expected_fields && task.skip_short_rows) {
      ++set.skipped_rows;
      set.skipped_lines.push_back(reader->line_number());
      continue;
    }
    if (num_fields != expected_fields) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader->Location(), ": ", num_fields, " tab-separated fields, ",
          "expected ", expected_fields,
          columns.has_header ? " (as in the header)" : "", " for ", task.name,
          task.skip_short_rows ? " (short rows are skipped, long ones not)"
                               : ""));
    }
    GlueRawExample example;
    example.line = reader->line_number();
    example.guid = columns.guid == GlueColumns::kNone
                       ? absl::StrCat(data_row)
                       : std::string(fields[columns.guid]);
    ++data_row;
    example.text_a = std::string(fields[columns.text_a]);
    if (columns.text_b != GlueColumns::kNone) {
      example.has_text_b = true;
      example.text_b = std::string(fields[columns.text_b]);
    }
    if (columns.label != GlueColumns::kNone) {
      const absl::string_view label =
          fields[Resolve(columns.label, num_fields)];
      example.has_label = true;
      if (task.is_regression) {
        if (!absl::SimpleAtod(label, &example.score) ||
            !std::isfinite(example.score)) {
          return absl::InvalidArgumentError(
              absl::StrCat(reader->Location(), ": ", task.name, " score ",
                           Quoted(label), " is not a number"));
        }
      } else {
        const auto found =
            std::find(task.labels.begin(), task.labels.end(), label);
        if (found == task.labels.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat(reader->Location(), ": unknown ", task.name,
                           " label ", Quoted(label), "; expected one of ",
                           absl::StrJoin(task.labels, ", ")));
        }
        example.label = static_cast<int32_t>(found - task.labels.begin());
      }
    }
    set.examples.push_back(std::move(example));
  }
  return set;
}

std::string GlueFilePath(const std::string& glue_dir, const GlueTaskSpec& task,
                         const GlueFileSpec& file) {
  return absl::StrCat(glue_dir, "/", task.name, "/", file.file_name);
}

absl::StatusOr<std::vector<GlueSet>> ReadGlueSplit(const std::string& glue_dir,
                                                   const GlueTaskSpec& task,
                                                   GlueSplit split) {
  const GlueFileKind kind =
      split == GlueSplit::kTest ? GlueFileKind::kTest : GlueFileKind::kLabelled;
  std::vector<GlueSet> sets;
  for (const GlueFileSpec& file : task.Files(split)) {
    ASSIGN_OR_RETURN(
        GlueSet set,
        ReadGlueFile(task, kind, GlueFilePath(glue_dir, task, file),
                     file.set_name));
    sets.push_back(std::move(set));
  }
  return sets;
}

}  // namespace bertlab
