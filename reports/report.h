// Turns run records into tables in the shape of the paper's (rows = variants
// or sizes, columns = tasks): our dev number (best learning rate on dev, mean
// ± sample std over restarts, run_records.h), the paper's number and the
// difference, plus the notes a reader needs (columns without runs, columns
// measured on a derived default task, records that fill no column) and the
// provenance of the numbers. report_writers.h formats a Report.
#ifndef BERTLAB_REPORTS_REPORT_H_
#define BERTLAB_REPORTS_REPORT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/paper_tables.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {

struct ReportCell {
  bool has_value = false;  // false: "n/a"
  double mean = 0.0;
  double std = 0.0;  // sample std; meaningful when runs > 1
  int runs = 0;      // restarts (fine-tuning) or records (pre-training)
  // The learning rate chosen on dev; 0 for pre-training and average cells.
  double learning_rate = 0.0;
  std::optional<double> paper;
  std::optional<double> diff;  // mean - paper
  bool derived = false;        // measured on a derived default task
  std::string source_task;     // the records' task ("web_pair", "mrpc")
};

struct ReportColumn {
  PaperColumn paper;
  std::string header;  // display, with "* (derived: TASK)" when derived
  bool has_runs = false;
  bool derived = false;
  std::vector<std::string> derived_tasks;    // distinct record tasks
  std::vector<std::string> derived_sources;  // distinct data_source values
};

struct ReportRow {
  std::string key;  // variant
  std::string display;
  bool in_paper = false;          // a row of the paper's table
  std::vector<ReportCell> cells;  // one per column
};

// One variant's learning-rate sweep in one column (for the plot).
struct SweepSeries {
  std::string row_key;
  std::string row_display;
  CellSelection selection;
};

struct SweepPanel {
  std::string column_key;
  std::string title;   // the column's header
  std::string metric;  // the metric plotted
  std::vector<SweepSeries> series;
};

struct TableReport {
  const PaperTable* paper = nullptr;
  std::string scale;
  std::vector<ReportColumn> columns;  // the measurable paper columns
  std::vector<ReportRow> rows;
  std::vector<std::string> footnotes;
  std::vector<SweepPanel> panels;
  int finetune_runs = 0;
  int pretrain_runs = 0;
};

struct Provenance {
  std::string generated_at;
  int runs = 0;
  std::vector<std::string> scales;         // distinct, sorted
  std::vector<std::string> experiments;    // distinct, sorted
  std::vector<std::string> code_versions;  // distinct, sorted
  // Distinct (path, sha256) pairs, sorted; a path with two hashes appears
  // twice, which a reader should treat as a warning.
  std::vector<std::pair<std::string, std::string>> data_hashes;
};

struct Report {
  std::vector<TableReport> tables;  // in paper order
  Provenance provenance;
};

struct ReportOptions {
  // "table5" etc.; empty: every table some record names.
  std::string table;
  // "mini" or "paper"; empty: all records, but a table whose records mix
  // scales is an error.
  std::string scale;
  // The date line of the provenance footer; copied verbatim.
  std::string generated_at;
  // Only the rows of these variants (a run of selected variants,
  // run_experiment --variants); empty: the paper's rows, with or without
  // records, then every other variant that has records.
  std::vector<std::string> rows;
};

absl::StatusOr<Report> BuildReport(const std::vector<RunRecord>& records,
                                   const ReportOptions& options);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_REPORT_H_
