// Fuzz target: any bytes as a GLUE TSV file (tasks/glue/glue_reader.h) in
// every layout the reader knows: each of the nine tasks, as a train/dev file
// and as a test file (18 layouts; CoLA's train/dev have no header, QQP skips
// short rows, STS-B reads a score, MNLI's label is the last field). The
// bytes go to an in-memory file, read by ReadGlueFile as /proc/self/fd/N.
//
// Invariants, each a CHECK, against a model of the file made here: its
// lines split at "\n" (a "\r" at the end of a line and a byte order mark
// at the start of the first dropped), their fields split at tabs.
//   * An error names the file.
//   * An OK read accounts for every data line (all lines, less the header):
//     each is an example or, in QQP only, a skipped short row, in file order
//     and with its 1-based line number.
//   * An example's guid, texts and label are the fields of its line that the
//     task's columns name (the label the last field where the columns say
//     so); a guid without a column is the 0-based example number; a label
//     is an index into the task's labels whose string is the field; a score
//     is finite; a test file's examples have no label.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "tasks/fuzz/memory_file.h"
#include "tasks/glue/glue_reader.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {
namespace {

// The lines of `contents` as LineReader returns them.
std::vector<absl::string_view> Lines(absl::string_view contents) {
  std::vector<absl::string_view> lines;
  if (contents.empty()) return lines;
  absl::ConsumeSuffix(&contents, "\n");  // a last "\n" ends, not starts, a line
  for (absl::string_view line : absl::StrSplit(contents, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    lines.push_back(line);
  }
  absl::ConsumePrefix(&lines[0], "\xEF\xBB\xBF");
  return lines;
}

// The field `column` names in `fields` (GlueColumns::kLastColumn: the last).
absl::string_view FieldAt(const std::vector<absl::string_view>& fields,
                          int column) {
  const size_t index = column == GlueColumns::kLastColumn
                           ? fields.size() - 1
                           : static_cast<size_t>(column);
  CHECK_LT(index, fields.size());
  return fields[index];
}

void CheckExample(const GlueTaskSpec& task, const GlueColumns& columns,
                  bool labelled, const GlueRawExample& example,
                  int64_t example_number, absl::string_view line) {
  const std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
  if (columns.guid == GlueColumns::kNone) {
    CHECK_EQ(example.guid, absl::StrCat(example_number));
  } else {
    CHECK(example.guid == FieldAt(fields, columns.guid)) << example.line;
  }
  CHECK(example.text_a == FieldAt(fields, columns.text_a)) << example.line;
  CHECK_EQ(example.has_text_b, columns.text_b != GlueColumns::kNone);
  if (example.has_text_b) {
    CHECK(example.text_b == FieldAt(fields, columns.text_b)) << example.line;
  } else {
    CHECK(example.text_b.empty());
  }
  CHECK_EQ(example.has_label, labelled);
  CHECK_EQ(labelled, columns.label != GlueColumns::kNone);
  if (!labelled) return;
  const absl::string_view label = FieldAt(fields, columns.label);
  if (task.is_regression) {
    CHECK(std::isfinite(example.score)) << example.line;
    double score = 0;
    CHECK(absl::SimpleAtod(label, &score) && score == example.score)
        << example.line;
  } else {
    CHECK_GE(example.label, 0);
    CHECK_LT(static_cast<size_t>(example.label), task.labels.size());
    CHECK(task.labels[example.label] == label) << example.line;
  }
}

void CheckLayout(const GlueTaskSpec& task, GlueFileKind kind,
                 const MemoryFile& file,
                 const std::vector<absl::string_view>& lines) {
  const bool labelled = kind == GlueFileKind::kLabelled;
  const GlueColumns& columns =
      labelled ? task.labelled_columns : task.test_columns;
  const absl::StatusOr<GlueSet> set =
      ReadGlueFile(task, kind, file.path(), task.name);
  if (!set.ok()) {
    CHECK(absl::StrContains(set.status().message(), file.path()))
        << "an error that does not name the file: " << set.status();
    return;
  }
  CHECK_EQ(set->path, file.path());
  CHECK_EQ(set->set_name, task.name);
  CHECK(set->skipped_rows == 0 || task.skip_short_rows) << task.name;
  CHECK_EQ(set->skipped_lines.size(), static_cast<size_t>(set->skipped_rows));
  const int64_t first_data_line = columns.has_header ? 2 : 1;
  const int64_t num_lines = static_cast<int64_t>(lines.size());
  const int64_t num_data_lines =
      std::max<int64_t>(num_lines - first_data_line + 1, 0);
  CHECK_EQ(static_cast<int64_t>(set->examples.size()) + set->skipped_rows,
           num_data_lines)
      << task.name << ": data lines lost or made up";
  // Walk the data lines in order, matching each to an example or a skip.
  size_t next_example = 0;
  size_t next_skipped = 0;
  for (int64_t line = first_data_line; line <= num_lines; ++line) {
    if (next_skipped < set->skipped_lines.size() &&
        set->skipped_lines[next_skipped] == line) {
      ++next_skipped;
      continue;
    }
    CHECK_LT(next_example, set->examples.size()) << task.name << ":" << line;
    const GlueRawExample& example = set->examples[next_example];
    CHECK_EQ(example.line, line) << task.name;
    CheckExample(task, columns, labelled, example,
                 static_cast<int64_t>(next_example), lines[line - 1]);
    ++next_example;
  }
}

}  // namespace
}  // namespace bertlab

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bertlab::MemoryFile* const file =
      new bertlab::MemoryFile("glue_fuzz_input");
  const absl::string_view contents(reinterpret_cast<const char*>(data), size);
  file->Set(contents);
  const std::vector<absl::string_view> lines = bertlab::Lines(contents);
  for (const bertlab::GlueTaskSpec& task : bertlab::GlueTasks()) {
    for (bertlab::GlueFileKind kind :
         {bertlab::GlueFileKind::kLabelled, bertlab::GlueFileKind::kTest}) {
      bertlab::CheckLayout(task, kind, *file, lines);
    }
  }
  return 0;
}
