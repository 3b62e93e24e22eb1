// Reads GLUE TSV files (tasks/glue/glue_tasks.h gives each task's layout)
// into raw text examples, and a task's split from a GLUE data directory
// laid out as the GLUE download script leaves it:
//
//   <glue_dir>/MRPC/{train,dev,test}.tsv
//   <glue_dir>/MNLI/{train,dev_matched,dev_mismatched,
//                    test_matched,test_mismatched}.tsv
//
// Fields are split on tab only; quotes are ordinary characters (the
// reference reads with csv quotechar=None). Lines are read by
// tasks/corpus/line_reader.h (CRLF, a UTF-8 byte order mark as in MRPC's
// header, and a last line without "\n" are handled; NUL bytes are an error).
//
// Bad input, all errors naming path:line:
// - a row whose number of fields differs from the header's (CoLA's
//   headerless train/dev: from 4) -- except in QQP, where, as HF's
//   QqpProcessor does (`except IndexError: continue`), a row with too FEW
//   fields is skipped and counted in GlueSet::skipped_rows (and its line
//   number kept); a QQP row with too many fields is still an error;
// - a label that is not in the task's label list, or an STS-B score that is
//   not a finite number;
// - a header with too few fields for the task's columns (a file of another
//   task), or an empty file where a header is expected.
// A file without data rows is fine (and yields no examples).
#ifndef BERTLAB_TASKS_GLUE_GLUE_READER_H_
#define BERTLAB_TASKS_GLUE_GLUE_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tasks/glue/glue_tasks.h"

namespace bertlab {

// One row of a GLUE file, before tokenization.
struct GlueRawExample {
  // The row's index/id column, or its 0-based data row number (CoLA, SST-2
  // and MRPC train/dev have no index column).
  std::string guid;
  std::string text_a;
  std::string text_b;
  bool has_text_b = false;
  bool has_label = false;  // false in test files
  int32_t label = 0;       // class id (index into GlueTaskSpec::labels)
  double score = 0.0;      // STS-B
  int64_t line = 0;        // 1-based line number in its file
};

// Whether a file carries labels: train/dev files do, test files do not.
enum class GlueFileKind { kLabelled, kTest };

struct GlueSet {
  std::string set_name;  // GlueFileSpec::set_name, e.g. "MNLI-mm"
  std::string path;
  std::vector<GlueRawExample> examples;
  // Rows skipped under the QQP rule above, and their line numbers.
  int64_t skipped_rows = 0;
  std::vector<int64_t> skipped_lines;
};

// Reads one file of `task` in the layout of `kind`. `set_name` is copied
// into the result.
absl::StatusOr<GlueSet> ReadGlueFile(const GlueTaskSpec& task,
                                     GlueFileKind kind, const std::string& path,
                                     const std::string& set_name = "");

// The path of `file` of `task` under `glue_dir`.
std::string GlueFilePath(const std::string& glue_dir, const GlueTaskSpec& task,
                         const GlueFileSpec& file);

// Reads every file of `split` (two for MNLI dev/test, else one).
absl::StatusOr<std::vector<GlueSet>> ReadGlueSplit(const std::string& glue_dir,
                                                   const GlueTaskSpec& task,
                                                   GlueSplit split);

}  // namespace bertlab

#endif  // BERTLAB_TASKS_GLUE_GLUE_READER_H_
