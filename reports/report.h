// Turns run records into tables in the shape of the paper's (rows = variants
// or sizes, columns = tasks): our dev number (best learning rate on dev, mean
// ± sample std and median over restarts, run_records.h), the paper's number
// and the difference (paper tasks only, not derived stand-ins), plus what a
// reader needs to tell an effect from noise: a trivial-predictor baseline
// row, each row's pre-training compute, the paper's claims with a verdict
// from our restarts (claims.h), and notes (columns without runs, columns
// measured on a derived default task, learning rates at the edge of their
// grid, records that fill no column) and the provenance of the numbers.
// report_writers.h formats a Report.
#ifndef BERTLAB_REPORTS_REPORT_H_
#define BERTLAB_REPORTS_REPORT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/bert/model_size.h"
#include "reports/claims.h"
#include "reports/paper_tables.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {

// The key of the baseline row built from the records' `trivial` scores.
inline constexpr char kTrivialPredictorRowKey[] = "trivial_predictor";
// Marks a cell whose selected learning rate is at the edge of its grid.
inline constexpr char kGridEdgeMarker[] = "†";

struct ReportCell {
  bool has_value = false;  // false: "n/a"
  double mean = 0.0;       // of `values`
  double std = 0.0;        // sample std of `values`; meaningful when runs > 1
  double median = 0.0;     // of `values`; meaningful when runs > 1
  int runs = 0;            // the number of `values`; 0 for average and
                           // trivial-predictor cells
  // The column's metric, one per restart at the selected learning rate (one
  // per record for pre-training cells): what claims compare. For a row
  // pre-trained with several seeds (RunRecord::row), one per seed instead:
  // the mean of that seed's restarts.
  std::vector<double> values;
  // That row's number of pre-training seeds and of fine-tuning runs at the
  // selected learning rate; both 0 when `values` are restarts.
  int pretraining_seeds = 0;
  int finetune_runs = 0;
  // Fine-tuning cells: every run at the selected learning rate (what the
  // claims resample), and how many of them collapsed (RunCollapsed).
  std::vector<ClaimRun> selected_runs;
  int collapsed = 0;
  // The learning rate chosen (on the tune split when chosen_on_tune, else
  // on dev); 0 for pre-training and average cells.
  double learning_rate = 0.0;
  bool chosen_on_tune = false;
  // The epoch each run at that rate reported, chosen on its tune split
  // (RunRecord tune.epoch), in the runs' order; empty where none chose.
  std::vector<int64_t> chosen_epochs;
  // Every learning rate run for this cell, ascending.
  std::vector<double> learning_rate_grid;
  // The grid has at least two rates and the chosen one is its smallest or
  // largest: the grid may not bracket the optimum.
  bool learning_rate_at_grid_edge = false;
  std::optional<double> paper;
  // mean - paper; only where the column is the paper's task (not derived).
  std::optional<double> diff;
  bool derived = false;     // measured on a derived default task
  std::string source_task;  // the records' task ("web_pair", "mrpc")
};

struct ReportColumn {
  PaperColumn paper;
  std::string header;  // display, with "* (derived: TASK)" when derived
  bool has_runs = false;
  bool derived = false;
  std::vector<std::string> derived_tasks;    // distinct record tasks
  std::vector<std::string> derived_sources;  // distinct data_source values
  // The column's trivial predictor ("majority class (1)", distinct ones
  // joined by "; "); empty where no record carries one.
  std::string trivial_predictor;
};

// A row's own pre-training run's last held-out evaluation. (Not its wall
// time: a report is a function of the runs' results, the same wherever
// and however fast they ran; run.json keeps the timings.)
struct PretrainingOutcome {
  // The objective's held-out LM perplexity (masked, or left/right-to-left)
  // and the unigram baseline's over the same predictions; nullopt when the
  // record has none.
  std::optional<double> perplexity;
  std::optional<double> unigram_perplexity;
};

struct ReportRow {
  // The records' row (RunRecord::row_key: the variant, or the row its
  // pre-training seeds share), or kTrivialPredictorRowKey.
  std::string key;
  // What ran: "BERT (L2/H128, mini)" (RowLabel); the name alone for a row
  // without records.
  std::string display;
  std::string name;       // without the size suffix: "BERT", "No NSP"
  bool in_paper = false;  // a row of the paper's table
  // A baseline row, not a variant: the trivial predictor's
  // (kTrivialPredictorRowKey) or an input baseline's ("baseline_<name>").
  bool trivial_predictor = false;
  std::vector<ReportCell> cells;  // one per column
  // The row's pre-training compute: from its own pre-training record; all
  // zero for kNoPretrainingVariant; nullopt ("—") for a row fine-tuned from
  // another variant's checkpoint, a record without compute, and the
  // trivial-predictor row.
  std::optional<PretrainingCompute> compute;
  // Set with compute when it comes from the row's own pre-training record
  // (the mean over its pre-training seeds' records).
  std::optional<PretrainingOutcome> outcome;
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
  // The paper's claims (and ours beyond it) with their verdicts, in order.
  std::vector<ClaimCheck> claims;
  std::string claims_method;  // ClaimsMethod() when there are claims
  // Some row has compute from a pre-training record: writers show it.
  bool has_compute = false;
  std::vector<SweepPanel> panels;
  int finetune_runs = 0;
  int cloze_runs = 0;
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
  // A scale name (run_records.h kScaleNames); empty: all records, but a
  // table whose records mix scales is an error.
  std::string scale;
  // The date line of the provenance footer; copied verbatim.
  std::string generated_at;
  // Only the rows of these variants (a run of selected variants,
  // run_experiment --variants); empty: the paper's rows, with or without
  // records, then every other variant that has records. A name that no
  // record's row is makes BuildReport fail (NotFound, with the rows there
  // are).
  std::vector<std::string> rows;
};

// What a row ran: `name` with the paper's size words replaced ("BERT-BASE",
// "BERT-LARGE" -> "BERT"), then the records' distinct layer/hidden sizes and
// the scale: RowLabel("BERT-BASE", {L2_H128_A2}, "mini") = "BERT (L2/H128,
// mini)". Without models (nothing ran) the plain name alone.
std::string RowLabel(absl::string_view name,
                     const std::vector<ModelSize>& models,
                     absl::string_view scale);
// `name` with the paper's size words replaced: "BERT-BASE (Single)" ->
// "BERT (Single)".
std::string PlainRowName(absl::string_view name);
// A variant description's head, the row name of a variant the paper does
// not have: the text before the first ": " ("LTR & RTL, ELMo-style (not in
// the paper): the LTR and RTL encoders ..." -> "LTR & RTL, ELMo-style (not
// in the paper)"); the whole description without one.
std::string ShortVariantName(absl::string_view description);

// How the cells' learning rate was selected, for the writers' "Cells:"
// line: "with the best mean dev score", or by the tune split's scores where
// cells chose on one (ReportCell::chosen_on_tune).
std::string CellRateSelection(const TableReport& table);

absl::StatusOr<Report> BuildReport(const std::vector<RunRecord>& records,
                                   const ReportOptions& options);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_REPORT_H_
