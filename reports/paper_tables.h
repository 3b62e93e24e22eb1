// The paper's result tables as data (Devlin et al. 2019, arXiv v2), copied
// from docs PAPER.md section 1: Table 1 (GLUE test), 2 (SQuAD v1.1),
// 3 (SQuAD v2.0), 4 (SWAG), 5 (pre-training ablation), 6 (model size) and
// 8 (masking mix). Reports put our dev numbers beside these.
//
// A column names the task key of the run records that fill it ("mrpc",
// "squad1", or "pretrain" for columns read from pre-training records) and
// the metric (a key of a record's "metrics"). A row key is the run record's
// "variant" that fills the row (Table 5: "full", "no_nsp", ...; Table 6:
// "L12_H768_A12", ...). Rows of systems we do not train (OpenAI GPT, human
// scores, ensembles) are kept for completeness with reproducible = false.
#ifndef BERTLAB_REPORTS_PAPER_TABLES_H_
#define BERTLAB_REPORTS_PAPER_TABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {
namespace reports {

// Task key of columns that read pre-training records (Table 6's LM (ppl)).
inline constexpr char kPretrainTask[] = "pretrain";

struct PaperColumn {
  std::string key;      // unique in the table, e.g. "mrpc:accuracy"
  std::string task;     // run record "task" (or kPretrainTask)
  std::string metric;   // run record metrics key, e.g. "accuracy", "f1"
  std::string display;  // header as the paper prints it, e.g. "MRPC (Acc)"
  int decimals = 1;     // the paper's precision
  // Whether a larger value is better (false for perplexity).
  bool higher_is_better = true;
  // False for columns only the paper can fill (test-server scores).
  bool measurable = true;
  // Our runs measure dev; set where the paper's column is not dev.
  std::string paper_split = "dev";
  // False for a column the paper does not have (Table 5's cloze test): no
  // row has a paper value, and a report shows it only where records fill it,
  // with `note` (what it measures) as a footnote.
  bool in_paper = true;
  std::string note;
};

struct PaperRow {
  std::string key;      // run record "variant"
  std::string display;  // as the paper prints it
  bool reproducible = true;
  // One per column; nullopt where the paper prints "–".
  std::vector<std::optional<double>> values;
};

struct PaperTable {
  std::string id;  // "table1" .. "table6", "table8"
  std::string caption;
  std::string row_header;  // "System", "Model", "#L/#H/#A", ...
  std::vector<PaperColumn> columns;
  std::vector<PaperRow> rows;
  // Paper notes that matter when reading our numbers beside its own.
  std::vector<std::string> notes;
  // For Table 1: the "Average" column is the mean of these columns.
  std::string average_column;
  std::vector<std::string> averaged_columns;
};

// All tables, in paper order. Built once; valid for the program's lifetime.
const std::vector<PaperTable>& PaperTables();

// The table with `id`; NotFound lists the known ids.
absl::StatusOr<const PaperTable*> FindPaperTable(absl::string_view id);

// Index of the column with `key` in `table`, or -1.
int FindColumn(const PaperTable& table, absl::string_view key);

// The display name of a task key for notes ("mnli_m" -> "MNLI-m"); the key
// itself for tasks it does not know.
std::string TaskDisplayName(absl::string_view task);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_PAPER_TABLES_H_
