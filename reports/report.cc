#include "reports/report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <map>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "reports/statistics.h"

namespace bertlab {
namespace reports {
namespace {

std::vector<std::string> Sorted(const std::set<std::string>& values) {
  return std::vector<std::string>(values.begin(), values.end());
}

// Quotes and joins task display names: "MNLI-m, QNLI".
std::string JoinTasks(const std::set<std::string>& tasks) {
  std::vector<std::string> names;
  for (const std::string& task : tasks) names.push_back(TaskDisplayName(task));
  return absl::StrJoin(names, ", ");
}

// Distinct model sizes (by layers and hidden size) of row `variant`'s
// records.
std::vector<ModelSize> ModelsOf(const std::vector<const RunRecord*>& records,
                                const std::string& variant) {
  std::map<std::pair<int64_t, int64_t>, ModelSize> sizes;
  for (const RunRecord* record : records) {
    if (record->row_key() != variant || record->model.layers <= 0) continue;
    sizes.emplace(std::make_pair(record->model.layers, record->model.hidden),
                  record->model);
  }
  std::vector<ModelSize> models;
  for (const auto& [key, model] : sizes) models.push_back(model);
  return models;
}

// The cell of one selection: its best learning rate's restarts and where
// that rate lies in the grid.
void FillFromSelection(const CellSelection& selection,
                       const std::string& metric, ReportCell& cell) {
  const LearningRatePoint& best = selection.selected();
  cell.has_value = true;
  // A row pre-trained with several seeds: the unit is a seed, the mean of
  // its restarts, so the spread and the claims include pre-training's.
  std::map<std::string, std::vector<double>> by_seed;
  for (size_t i = 0; i < best.values.size(); ++i) {
    by_seed[best.variants[i]].push_back(best.values[i]);
  }
  if (by_seed.size() > 1) {
    cell.values.clear();
    for (const auto& [variant, values] : by_seed) {
      cell.values.push_back(Mean(values));
    }
    cell.pretraining_seeds = static_cast<int>(by_seed.size());
    cell.finetune_runs = static_cast<int>(best.values.size());
  } else {
    cell.values = best.values;
  }
  cell.mean = Mean(cell.values);
  cell.std = SampleStd(cell.values);
  cell.median = Median(cell.values);
  cell.runs = static_cast<int>(cell.values.size());
  cell.learning_rate = best.learning_rate;
  cell.chosen_on_tune = selection.chosen_on_tune;
  for (const RunRecord* record : best.records) {
    ClaimRun run;
    // "full.seed2" of row "full": seed "seed2"; "" for a row of one seed.
    if (!record->row.empty() && record->variant.size() > record->row.size()) {
      run.seed = record->variant.substr(record->row.size() + 1);
    }
    run.value = record->metrics.at(metric);
    run.examples = record->dev_examples.get();
    run.collapsed = RunCollapsed(*record);
    run.source = record->path;
    cell.collapsed += run.collapsed;
    cell.selected_runs.push_back(std::move(run));
    if (record->tune.has_value() && record->tune->epoch > 0) {
      cell.chosen_epochs.push_back(record->tune->epoch);
    }
  }
  for (const LearningRatePoint& point : selection.sweep) {
    cell.learning_rate_grid.push_back(point.learning_rate);
  }
  const int last = static_cast<int>(selection.sweep.size()) - 1;
  cell.learning_rate_at_grid_edge =
      last >= 1 && (selection.best == 0 || selection.best == last);
}

bool IsFinetuneColumn(const PaperTable& paper, const ReportColumn& column) {
  return column.paper.task != kPretrainTask &&
         column.paper.key != paper.average_column;
}

// The paper's Average (Table 1): the mean of the averaged columns, all
// required.
void FillAverage(const PaperTable& paper,
                 const std::vector<ReportColumn>& columns, ReportRow& row) {
  if (paper.average_column.empty()) return;
  int average = -1;
  std::vector<double> means;
  for (size_t c = 0; c < columns.size(); ++c) {
    const std::string& key = columns[c].paper.key;
    if (key == paper.average_column) average = static_cast<int>(c);
    if (std::find(paper.averaged_columns.begin(), paper.averaged_columns.end(),
                  key) != paper.averaged_columns.end() &&
        row.cells[c].has_value) {
      means.push_back(row.cells[c].mean);
    }
  }
  if (average < 0 || means.size() != paper.averaged_columns.size()) return;
  ReportCell& cell = row.cells[average];
  cell.has_value = true;
  cell.mean = Mean(means);
  cell.median = cell.mean;
  cell.runs = 0;
  if (cell.paper.has_value()) cell.diff = cell.mean - *cell.paper;
}

bool SameScore(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a));
}

// What a baseline row reads from a record: its trivial predictor, or its
// input baseline of one name; null when the record has none.
using BaselineOf = std::function<const TrivialBaseline*(const RunRecord&)>;

// A baseline row: per fine-tuning column, the score of the baseline `of`
// picks that the column's records carry (one value on the same dev
// examples). The trivial predictor's row (`trivial`) also sets each
// column's trivial_predictor and notes the columns without one.
ReportRow BaselineRow(
    const PaperTable& paper,
    const std::vector<std::vector<const RunRecord*>>& column_records,
    const std::string& key, const std::string& display, const BaselineOf& of,
    bool trivial, TableReport& table) {
  ReportRow row;
  row.key = key;
  row.display = display;
  row.name = row.display;
  row.trivial_predictor = true;
  row.cells.resize(table.columns.size());
  std::vector<std::string> named;
  std::vector<std::string> missing;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    ReportColumn& column = table.columns[c];
    ReportCell& cell = row.cells[c];
    cell.derived = column.derived;
    if (!IsFinetuneColumn(paper, column)) continue;
    std::vector<double> scores;
    std::set<std::string> predictors;
    for (const RunRecord* record : column_records[c]) {
      const TrivialBaseline* baseline = of(*record);
      if (baseline == nullptr) continue;
      auto it = baseline->metrics.find(column.paper.metric);
      if (it == baseline->metrics.end()) continue;
      bool seen = false;
      for (double score : scores) seen |= SameScore(score, it->second);
      if (!seen) scores.push_back(it->second);
      predictors.insert(baseline->predictor);
      if (cell.source_task.empty()) cell.source_task = record->task;
    }
    if (scores.empty()) {
      if (column.has_runs) missing.push_back(column.paper.display);
      continue;
    }
    const std::string predictor = absl::StrJoin(predictors, "; ");
    if (trivial) column.trivial_predictor = predictor;
    named.push_back(absl::StrCat(column.paper.display, ": ", predictor));
    if (scores.size() > 1) {
      std::sort(scores.begin(), scores.end());
      table.footnotes.push_back(absl::StrCat(
          display, ", ", column.paper.display, ": the records disagree (",
          absl::StrJoin(scores, ", ",
                        [](std::string* out, double score) {
                          absl::StrAppend(out, absl::StrFormat("%g", score));
                        }),
          ") although they should score the same dev examples; shown as "
          "n/a."));
      continue;
    }
    cell.has_value = true;
    cell.mean = cell.median = scores.front();
  }
  FillAverage(paper, table.columns, row);
  if (!named.empty()) {
    table.footnotes.push_back(
        trivial ? absl::StrCat(
                      "Trivial predictor row: the score a column must beat to "
                      "mean anything, on the same dev examples (",
                      absl::StrJoin(named, "; "), ").")
                : absl::StrCat(display,
                               " row: a baseline that reads the input, "
                               "fitted on train only, on the same dev "
                               "examples (tasks/finetune/input_baselines.h: ",
                               absl::StrJoin(named, "; "), ")."));
  }
  if (trivial && !missing.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Trivial predictor: n/a for ", absl::StrJoin(missing, ", "),
        ": no record of the column carries a trivial-predictor score."));
  }
  return row;
}

// The display name of an input baseline's row.
std::string BaselineDisplay(const std::string& name) {
  if (name == "word_overlap") return "Word overlap (fitted on train)";
  if (name == "string_alignment") return "String alignment";
  if (name == "frequent_name") return "Most frequent name";
  if (name == "word_frequency") return "Most frequent candidate";
  return absl::StrCat("Baseline ", name);
}

// The trivial predictor's row, then one row per input baseline that a
// record of a fine-tuning column carries, in name order.
void AddBaselineRows(
    const PaperTable& paper,
    const std::vector<std::vector<const RunRecord*>>& column_records,
    TableReport& table) {
  table.rows.push_back(BaselineRow(
      paper, column_records, kTrivialPredictorRowKey, "Trivial predictor",
      [](const RunRecord& record) {
        return record.trivial.has_value() ? &*record.trivial : nullptr;
      },
      /*trivial=*/true, table));
  std::set<std::string> names;
  for (const std::vector<const RunRecord*>& records : column_records) {
    for (const RunRecord* record : records) {
      for (const TrivialBaseline& baseline : record->baselines) {
        names.insert(baseline.name);
      }
    }
  }
  for (const std::string& name : names) {
    table.rows.push_back(BaselineRow(
        paper, column_records, absl::StrCat("baseline_", name),
        BaselineDisplay(name),
        [&name](const RunRecord& record) -> const TrivialBaseline* {
          for (const TrivialBaseline& baseline : record.baselines) {
            if (baseline.name == name) return &baseline;
          }
          return nullptr;
        },
        /*trivial=*/false, table));
  }
}

// The first of `names` that `record` has among its metrics.
std::optional<double> FindMetric(const RunRecord& record,
                                 std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto found = record.metrics.find(name);
    if (found != record.metrics.end()) return found->second;
  }
  return std::nullopt;
}

// Each row's pre-training compute (ReportRow::compute) and the notes on
// how to read it. Pre-training records that give a row its compute count
// as used.
void FillCompute(const std::vector<const RunRecord*>& records,
                 std::set<const RunRecord*>& used, TableReport& table) {
  std::vector<std::string> without_compute;
  for (ReportRow& row : table.rows) {
    if (row.trivial_predictor) continue;
    std::vector<const RunRecord*> own;
    for (const RunRecord* record : records) {
      if (!record->scores_task() && record->row_key() == row.key) {
        own.push_back(record);
      }
    }
    const auto with_compute = std::find_if(
        own.begin(), own.end(),
        [](const RunRecord* record) { return record->compute.has_value(); });
    if (with_compute != own.end()) {
      // A row's pre-training seeds cost the same; their perplexities are
      // averaged.
      row.compute = *(*with_compute)->compute;
      std::vector<double> perplexities;
      std::vector<double> unigram;
      for (const RunRecord* record : own) {
        if (!record->compute.has_value()) continue;
        used.insert(record);
        const std::optional<double> perplexity =
            FindMetric(*record, {"mlm_perplexity", "lm_perplexity"});
        const std::optional<double> baseline =
            FindMetric(*record, {"unigram_perplexity"});
        if (perplexity.has_value()) perplexities.push_back(*perplexity);
        if (baseline.has_value()) unigram.push_back(*baseline);
      }
      row.outcome = PretrainingOutcome{
          perplexities.empty() ? std::nullopt
                               : std::optional<double>(Mean(perplexities)),
          unigram.empty() ? std::nullopt
                          : std::optional<double>(Mean(unigram))};
      table.has_compute = true;
    } else if (row.key == kNoPretrainingVariant && own.empty()) {
      row.compute = PretrainingCompute();
    } else if (!own.empty()) {
      without_compute.push_back(row.name);
    }
  }
  if (!table.has_compute) return;
  table.footnotes.push_back(
      "Pre-training compute: rows are compared at equal pre-training steps, "
      "as in the paper, not at equal tokens or FLOPs; LTR and RTL predict "
      "every token while the masked LM predicts 15% of them, so the rows "
      "differ in what each step teaches and costs. — = no pre-training "
      "record of the row's own (fine-tuned from another variant's "
      "checkpoint); no pre-training = 0.");
  if (!without_compute.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Pre-training compute: — also for ",
        absl::StrJoin(without_compute, ", "),
        ": their pre-training records carry no compute (written before it "
        "was recorded)."));
  }
}

// The footnote on the rows pre-trained with several seeds.
void NoteSeeds(TableReport& table) {
  std::vector<std::string> rows;
  for (const ReportRow& row : table.rows) {
    int seeds = 0;
    for (const ReportCell& cell : row.cells) {
      seeds = std::max(seeds, cell.pretraining_seeds);
    }
    if (seeds > 0) rows.push_back(absl::StrCat(row.name, " (", seeds, ")"));
  }
  if (rows.empty()) return;
  table.footnotes.push_back(absl::StrCat(
      "Pre-training seeds: ", absl::StrJoin(rows, ", "),
      " were pre-trained once per seed, and each seed fine-tuned with every "
      "restart. Their cells give the mean ± sample std and the median of "
      "the seeds' means (n = seeds, then runs); the pre-training table gives "
      "one pre-training's compute and the seeds' mean perplexity."));
}

// The footnote on collapsed fine-tuning runs (RunCollapsed), cell by cell;
// a cell where most runs collapsed says so.
void NoteCollapsed(TableReport& table) {
  std::vector<std::string> cells;
  bool most = false;
  for (const ReportRow& row : table.rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const ReportCell& cell = row.cells[c];
      if (cell.collapsed == 0) continue;
      const int runs = static_cast<int>(cell.selected_runs.size());
      const bool majority = 2 * cell.collapsed > runs;
      most |= majority;
      std::vector<double> kept;
      for (const ClaimRun& run : cell.selected_runs) {
        if (!run.collapsed) kept.push_back(run.value);
      }
      cells.push_back(absl::StrCat(
          row.name, " / ", table.columns[c].paper.display, " ", cell.collapsed,
          " of ", runs, majority ? " (most)" : "",
          kept.empty()
              ? std::string(", none left")
              : absl::StrFormat(", mean without them %.1f", Mean(kept))));
    }
  }
  if (cells.empty()) return;
  table.footnotes.push_back(absl::StrCat(
      "Collapsed runs (dev predictions all the same, or a training loss that "
      "never fell below its first step's): ",
      absl::StrJoin(cells, "; "),
      ". They are in the cells' means; each "
      "claim touching them is also given without them.",
      most ? " Where most runs of a cell collapsed, its mean describes "
             "collapsed models, not what the encoder can learn."
           : ""));
}

// The footnotes on learning rates: the columns run at one fixed rate, and
// the cells whose selected rate is at its grid's edge (each such cell, or
// "every selected cell" with the grids when all are).
void NoteGridEdges(TableReport& table) {
  const auto join_rates = [](const std::vector<double>& rates) {
    return absl::StrJoin(rates, ", ", [](std::string* out, double rate) {
      absl::StrAppend(out, absl::StrFormat("%g", rate));
    });
  };
  std::vector<std::string> cells;
  std::set<std::string> grids;
  std::set<std::string> fixed;       // columns run at one learning rate
  std::set<std::string> on_dev;      // columns chosen from a grid
  std::vector<std::string> on_tune;  // "row / column 0.0001"
  int selected = 0;
  for (const ReportRow& row : table.rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const ReportCell& cell = row.cells[c];
      if (cell.learning_rate <= 0) continue;
      if (cell.learning_rate_grid.size() == 1) {
        fixed.insert(absl::StrCat(table.columns[c].paper.display, " at ",
                                  absl::StrFormat("%g", cell.learning_rate)));
        continue;
      }
      ++selected;
      if (cell.chosen_on_tune) {
        on_tune.push_back(
            absl::StrCat(row.name, " / ", table.columns[c].paper.display, " ",
                         absl::StrFormat("%g", cell.learning_rate)));
      } else {
        on_dev.insert(table.columns[c].paper.display);
      }
      if (!cell.learning_rate_at_grid_edge) continue;
      grids.insert(join_rates(cell.learning_rate_grid));
      cells.push_back(
          absl::StrCat(row.name, " / ", table.columns[c].paper.display, " (",
                       absl::StrFormat("%g", cell.learning_rate), " of ",
                       join_rates(cell.learning_rate_grid), ")"));
    }
  }
  if (!fixed.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Learning rate fixed (a grid of one, nothing selected on dev): ",
        absl::StrJoin(fixed, "; "), "."));
  }
  std::vector<std::string> epochs;  // "row / column: 2, 3, 3"
  for (const ReportRow& row : table.rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const ReportCell& cell = row.cells[c];
      if (cell.chosen_epochs.empty()) continue;
      epochs.push_back(absl::StrCat(row.name, " / ",
                                    table.columns[c].paper.display, ": ",
                                    absl::StrJoin(cell.chosen_epochs, ", ")));
    }
  }
  if (!epochs.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Epochs chosen per run on the task's tune split (the epoch each run "
        "at the selected rate reported; dev chose nothing): ",
        absl::StrJoin(epochs, "; "), "."));
  }
  if (!on_tune.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Learning rate chosen per cell on the task's tune split (held out of "
        "training; the dev scores shown chose nothing): ",
        absl::StrJoin(on_tune, "; "), "."));
  }
  if (!on_dev.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Learning rate chosen per cell on the dev scores shown (no tune "
        "split), which flatters those cells: ",
        absl::StrJoin(on_dev, ", "), "."));
  }
  if (cells.empty()) return;
  const std::string which =
      static_cast<int>(cells.size()) == selected && selected > 1
          ? absl::StrCat("every selected cell (grid ",
                         absl::StrJoin(grids, "; grid "), ")")
          : absl::StrJoin(cells, "; ");
  table.footnotes.push_back(absl::StrCat(
      kGridEdgeMarker,
      " = the selected learning rate is the smallest or largest of its grid, "
      "so the grid may not bracket the optimum: ",
      which, "."));
}

// The paper's claims about the table, and ours beyond it when a
// no-pretraining row exists, each judged from the two cells it compares
// (claims.h); claims about a row the table does not show are left out.
absl::StatusOr<std::vector<ClaimCheck>> CheckTableClaims(
    const PaperTable& paper, const TableReport& table) {
  std::vector<Claim> claims = PaperClaims(paper.id);
  const auto find_row = [&](const std::string& key) -> const ReportRow* {
    for (const ReportRow& row : table.rows) {
      if (row.key == key) return &row;
    }
    return nullptr;
  };
  const ReportRow* control = find_row(kNoPretrainingVariant);
  const bool control_was_run =
      control != nullptr &&
      std::any_of(control->cells.begin(), control->cells.end(),
                  [](const ReportCell& cell) { return cell.has_value; });
  if (control != nullptr) {
    std::vector<std::string> pretrained;
    for (const ReportRow& row : table.rows) {
      if (!row.trivial_predictor && row.key != kNoPretrainingVariant) {
        pretrained.push_back(row.key);
      }
    }
    std::vector<std::string> columns;
    for (const ReportColumn& column : table.columns) {
      if (IsFinetuneColumn(paper, column)) columns.push_back(column.paper.key);
    }
    for (Claim& claim : NoPretrainingClaims(pretrained, columns)) {
      claims.push_back(std::move(claim));
    }
  }
  std::vector<ClaimCheck> checks;
  for (const Claim& claim : claims) {
    // A row left out of the report (ReportOptions::rows) drops its claims.
    if (find_row(claim.row) == nullptr || find_row(claim.than_row) == nullptr) {
      continue;
    }
    int column = -1;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (table.columns[c].paper.key == claim.column) {
        column = static_cast<int>(c);
      }
    }
    // A column beyond the paper is shown only where it was measured; so are
    // its claims.
    const int in_table = FindColumn(paper, claim.column);
    if (column < 0 && in_table >= 0 && !paper.columns[in_table].in_paper) {
      continue;
    }
    const auto side = [&](const std::string& key) {
      ClaimSide side;
      if (column < 0) return side;  // a column the table does not measure
      const ReportCell& cell = find_row(key)->cells[column];
      side.measured = cell.has_value;
      side.runs = cell.selected_runs;
      return side;
    };
    const ClaimSide row_side = side(claim.row);
    ExampleMetric metric = nullptr;
    if (!row_side.runs.empty() && row_side.runs.front().examples != nullptr) {
      const absl::StatusOr<ExampleMetric> found =
          FindExampleMetric(row_side.runs.front().examples->kind,
                            table.columns[column].paper.metric);
      if (found.ok()) metric = *found;
    }
    ASSIGN_OR_RETURN(ClaimCheck check,
                     CheckClaim(claim, row_side, side(claim.than_row), metric));
    const int paper_column = FindColumn(paper, claim.column);
    const std::string column_display =
        paper_column < 0 ? claim.column : paper.columns[paper_column].display;
    check.statement =
        ClaimStatement(find_row(claim.row)->name, claim.direction,
                       find_row(claim.than_row)->name, column_display);
    if (column >= 0 && table.columns[column].derived) {
      check.derived_task =
          absl::StrJoin(table.columns[column].derived_tasks, ", ");
    }
    std::optional<double> paper_row, paper_than_row;
    for (const PaperRow& row : paper.rows) {
      if (paper_column < 0) break;
      if (row.key == claim.row) paper_row = row.values[paper_column];
      if (row.key == claim.than_row) paper_than_row = row.values[paper_column];
    }
    if (paper_row.has_value() && paper_than_row.has_value()) {
      check.paper_difference = *paper_row - *paper_than_row;
    }
    // A beyond-the-paper claim on a column nobody measured is noise.
    if (claim.beyond_paper() && check.verdict == Verdict::kNotMeasured) {
      continue;
    }
    checks.push_back(std::move(check));
  }
  JudgeClaims(
      [&](const std::string& key) {
        const ReportRow* row = find_row(key);
        return row == nullptr ? key : row->name;
      },
      control_was_run, checks);
  return checks;
}

// The records that feed each column of a table (BuildTable's columns, in
// order).
using ColumnRecords = std::vector<std::vector<const RunRecord*>>;

// The scale every record shares; more than one is an error.
absl::StatusOr<std::string> OneScale(
    const PaperTable& paper, const std::vector<const RunRecord*>& records) {
  std::set<std::string> scales;
  for (const RunRecord* record : records) scales.insert(record->scale);
  if (scales.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        paper.id, ": the records mix scales (", absl::StrJoin(scales, ", "),
        "); choose one with --scale"));
  }
  return scales.empty() ? "" : *scales.begin();
}

// The columns the records can fill, and which records feed each: real data
// wins, a derived stand-in fills a column only without it.
void ChooseColumns(const PaperTable& paper,
                   const std::vector<const RunRecord*>& records,
                   TableReport* table, ColumnRecords* column_records,
                   std::set<const RunRecord*>* used) {
  std::vector<std::string> not_measured;
  for (const PaperColumn& paper_column : paper.columns) {
    if (!paper_column.measurable) {
      not_measured.push_back(paper_column.display);
      continue;
    }
    ReportColumn column;
    column.paper = paper_column;
    column.header = paper_column.display;
    std::vector<const RunRecord*> real;
    std::vector<const RunRecord*> derived;
    for (const RunRecord* record : records) {
      if (record->column_task() != paper_column.task) continue;
      (record->derived ? derived : real).push_back(record);
    }
    // Real data wins; derived records fill a column only without it.
    std::vector<const RunRecord*>& chosen = real.empty() ? derived : real;
    for (const RunRecord* record : real) used->insert(record);
    for (const RunRecord* record : derived) used->insert(record);
    if (!real.empty() && !derived.empty()) {
      table->footnotes.push_back(absl::StrCat(
          column.header, ": ", derived.size(),
          " records of a derived stand-in task were left out because real ",
          TaskDisplayName(paper_column.task), " records exist."));
    }
    column.has_runs = !chosen.empty();
    if (!paper_column.in_paper) {
      if (!column.has_runs) continue;
      table->footnotes.push_back(
          absl::StrCat(paper_column.display, ": ", paper_column.note));
    }
    if (real.empty() && !derived.empty()) {
      column.derived = true;
      std::set<std::string> tasks;
      std::set<std::string> sources;
      for (const RunRecord* record : derived) {
        tasks.insert(record->task);
        sources.insert(record->data_source);
      }
      column.derived_tasks = Sorted(tasks);
      column.derived_sources = Sorted(sources);
      column.header =
          absl::StrCat(paper_column.display,
                       "* (derived: ", absl::StrJoin(tasks, ", "), ")");
    }
    table->columns.push_back(std::move(column));
    column_records->push_back(std::move(chosen));
  }
  if (!not_measured.empty()) {
    table->footnotes.push_back(
        absl::StrCat("Paper columns we do not measure (leaderboard/test "
                     "scores): ",
                     absl::StrJoin(not_measured, ", "), "."));
  }
}

// The paper's reproducible rows in its order, then variants of ours the
// paper does not have, the control last.
void AddRows(const PaperTable& paper,
             const std::vector<const RunRecord*>& records,
             const std::vector<std::string>& only_rows, TableReport* table) {
  const auto shown = [&](const std::string& key) {
    return only_rows.empty() || std::find(only_rows.begin(), only_rows.end(),
                                          key) != only_rows.end();
  };
  std::set<std::string> variants;
  std::map<std::string, std::string> descriptions;
  for (const RunRecord* record : records) {
    variants.insert(record->row_key());
    if (!record->variant_description.empty()) {
      descriptions.emplace(record->row_key(), record->variant_description);
    }
  }
  std::vector<std::string> skipped_baselines;
  for (const PaperRow& paper_row : paper.rows) {
    if (!shown(paper_row.key)) continue;
    if (!paper_row.reproducible && variants.count(paper_row.key) == 0) {
      skipped_baselines.push_back(paper_row.display);
      continue;
    }
    ReportRow row;
    row.key = paper_row.key;
    row.name = PlainRowName(paper_row.display);
    row.display =
        RowLabel(paper_row.display, ModelsOf(records, row.key), table->scale);
    row.in_paper = true;
    table->rows.push_back(std::move(row));
  }
  // Variants the paper does not have; the encoder without pre-training
  // last, below the pre-trained rows it is a baseline for.
  std::vector<std::string> extra_variants;
  for (const std::string& variant : variants) {
    const bool known =
        std::any_of(paper.rows.begin(), paper.rows.end(),
                    [&](const PaperRow& row) { return row.key == variant; });
    if (!known && shown(variant)) extra_variants.push_back(variant);
  }
  std::stable_partition(extra_variants.begin(), extra_variants.end(),
                        [](const std::string& variant) {
                          return variant != kNoPretrainingVariant;
                        });
  std::vector<std::string> extra_rows;
  for (const std::string& variant : extra_variants) {
    ReportRow row;
    row.key = variant;
    auto it = descriptions.find(variant);
    row.name =
        it == descriptions.end() ? variant : ShortVariantName(it->second);
    row.display = RowLabel(row.name, ModelsOf(records, variant), table->scale);
    // The whole description once, in the note; the label keeps its head.
    extra_rows.push_back(
        it == descriptions.end() || row.name == it->second
            ? absl::StrCat("\"", variant, "\"")
            : absl::StrCat("\"", variant, "\" (", it->second, ")"));
    table->rows.push_back(std::move(row));
  }
  if (!skipped_baselines.empty()) {
    table->footnotes.push_back(
        absl::StrCat("Paper rows of systems not trained here are left out: ",
                     absl::StrJoin(skipped_baselines, "; "), "."));
  }
  if (!extra_rows.empty()) {
    table->footnotes.push_back(absl::StrCat(
        "Variants that are not rows of the paper's table (no paper numbers "
        "beside them): ",
        absl::StrJoin(extra_rows, ", "), "."));
  }
}

// Every cell: the pre-training metric's runs, or the fine-tuning runs of
// the cell's chosen learning rate; then the average column.
absl::Status FillCells(const PaperTable& paper,
                       const ColumnRecords& column_records,
                       TableReport* table) {
  for (ReportRow& row : table->rows) {
    const PaperRow* paper_row = nullptr;
    for (const PaperRow& candidate : paper.rows) {
      if (candidate.key == row.key) paper_row = &candidate;
    }
    for (size_t c = 0; c < table->columns.size(); ++c) {
      const ReportColumn& column = table->columns[c];
      ReportCell cell;
      if (paper_row != nullptr) {
        cell.paper = paper_row->values[FindColumn(paper, column.paper.key)];
      }
      cell.derived = column.derived;
      std::vector<const RunRecord*> mine;
      for (const RunRecord* record : column_records[c]) {
        if (record->row_key() == row.key) mine.push_back(record);
      }
      if (!mine.empty()) {
        cell.source_task =
            mine.front()->scores_task() ? mine.front()->task : kPretrainTask;
      }
      if (mine.empty()) {
        // n/a
      } else if (column.paper.task == kPretrainTask) {
        std::vector<double> values;
        for (const RunRecord* record : mine) {
          auto it = record->metrics.find(column.paper.metric);
          if (it == record->metrics.end()) {
            return absl::InvalidArgumentError(
                absl::StrCat(record->path, ": field \"metrics.",
                             column.paper.metric, "\": missing, and ", paper.id,
                             "'s column ", column.paper.display, " needs it"));
          }
          values.push_back(it->second);
        }
        cell.has_value = true;
        cell.mean = Mean(values);
        cell.std = SampleStd(values);
        cell.median = Median(values);
        cell.runs = static_cast<int>(values.size());
        cell.values = std::move(values);
      } else {
        ASSIGN_OR_RETURN(CellSelection selection,
                         SelectBestLearningRate(mine, column.paper.metric),
                         _.Prepend(paper.id, ", row \"", row.key, "\", column ",
                                   column.paper.display, ": "));
        FillFromSelection(selection, column.paper.metric, cell);
      }
      // A derived stand-in is another task: no difference from the paper.
      if (cell.has_value && cell.paper.has_value() && !column.derived) {
        cell.diff = cell.mean - *cell.paper;
      }
      row.cells.push_back(std::move(cell));
    }
    FillAverage(paper, table->columns, row);
  }
  if (!paper.average_column.empty()) {
    for (ReportColumn& column : table->columns) {
      if (column.paper.key != paper.average_column) continue;
      column.has_runs = false;
      for (const ReportRow& row : table->rows) {
        if (row.cells[&column - table->columns.data()].has_value) {
          column.has_runs = true;
        }
      }
      if (!column.has_runs) {
        table->footnotes.push_back(
            "Average: n/a where a row lacks any of the nine averaged "
            "columns.");
      }
    }
  }

  return absl::OkStatus();
}

// The notes on columns without runs and on derived columns, first.
void NoteMissingAndDerivedColumns(const PaperTable& paper, TableReport* table) {
  std::set<std::string> missing_tasks;
  for (const ReportColumn& column : table->columns) {
    if (!column.has_runs && column.paper.key != paper.average_column) {
      missing_tasks.insert(column.paper.task);
    }
  }
  if (!missing_tasks.empty()) {
    table->footnotes.insert(
        table->footnotes.begin(),
        absl::StrCat("n/a = not available: no runs for ",
                     JoinTasks(missing_tasks),
                     " (no data, or not run at this scale)."));
  }
  for (const ReportColumn& column : table->columns) {
    if (!column.derived) continue;
    table->footnotes.insert(
        table->footnotes.begin(),
        absl::StrCat("* ", column.paper.display,
                     " was measured on the "
                     "derived default task ",
                     absl::StrJoin(column.derived_tasks, ", "),
                     " (data: ", absl::StrJoin(column.derived_sources, "; "),
                     ") standing in for ", TaskDisplayName(column.paper.task),
                     "; its numbers are not comparable with the paper's."));
  }
}

// How the table's claims were tested, from what its cells and claims hold.
std::string DescribeClaimsMethod(const TableReport& table) {
  // Cells whose learning rate was chosen from a grid, on dev or on tune.
  const auto chosen = [&](bool on_tune) {
    return std::any_of(
        table.rows.begin(), table.rows.end(), [&](const ReportRow& row) {
          return std::any_of(row.cells.begin(), row.cells.end(),
                             [&](const ReportCell& cell) {
                               return cell.learning_rate_grid.size() > 1 &&
                                      cell.chosen_on_tune == on_tune;
                             });
        });
  };
  const bool selected = chosen(false);
  const bool tuned = chosen(true);
  bool one_seed = false;
  bool examples = true;
  int64_t articles = 0;
  int paper_family = 0, control_family = 0;
  for (const ClaimCheck& check : table.claims) {
    if (!check.difference.has_value()) continue;
    one_seed |= check.seeds == 1 || check.than_seeds == 1;
    examples &=
        check.bootstrap.has_value() && check.bootstrap->examples_resampled;
    if (check.bootstrap.has_value()) {
      articles = std::max(articles, check.bootstrap->example_groups);
    }
    (check.claim.beyond_paper() ? control_family : paper_family) =
        check.family_size;
  }
  return ClaimsMethod(selected, tuned, one_seed, examples, articles,
                      paper_family, control_family);
}

// Notes the records that fill no column, and counts the runs by kind.
void NoteUnusedRecords(const PaperTable& paper,
                       const std::vector<const RunRecord*>& records,
                       const std::set<const RunRecord*>& used,
                       TableReport* table) {
  std::map<std::string, int> ignored;
  for (const RunRecord* record : records) {
    if (used.count(record) == 0) ++ignored[record->column_task()];
  }
  for (const auto& [task, count] : ignored) {
    table->footnotes.push_back(absl::StrCat(count, " record(s) of task \"",
                                            task, "\" fill no column of ",
                                            paper.id, " and are left out."));
  }

  for (const RunRecord* record : records) {
    (record->is_finetune() ? table->finetune_runs
     : record->is_cloze()  ? table->cloze_runs
                           : table->pretrain_runs) += 1;
  }
}

// The plot data: one panel per fine-tuning column with runs.
absl::Status AddSweepPanels(const PaperTable& paper,
                            const ColumnRecords& column_records,
                            TableReport* table) {
  for (size_t c = 0; c < table->columns.size(); ++c) {
    const ReportColumn& column = table->columns[c];
    if (!column.has_runs || column.paper.task == kPretrainTask ||
        column.paper.key == paper.average_column) {
      continue;
    }
    SweepPanel panel;
    panel.column_key = column.paper.key;
    panel.title = column.header;
    panel.metric = column.paper.metric;
    for (const ReportRow& row : table->rows) {
      std::vector<const RunRecord*> mine;
      for (const RunRecord* record : column_records[c]) {
        if (record->row_key() == row.key) mine.push_back(record);
      }
      if (mine.empty()) continue;
      ASSIGN_OR_RETURN(CellSelection selection,
                       SelectBestLearningRate(mine, column.paper.metric));
      panel.series.push_back({row.key, row.display, std::move(selection)});
    }
    table->panels.push_back(std::move(panel));
  }
  return absl::OkStatus();
}

absl::StatusOr<TableReport> BuildTable(
    const PaperTable& paper, const std::vector<const RunRecord*>& records,
    const std::vector<std::string>& only_rows) {
  TableReport table;
  table.paper = &paper;
  ASSIGN_OR_RETURN(table.scale, OneScale(paper, records));
  ColumnRecords column_records;
  std::set<const RunRecord*> used;
  ChooseColumns(paper, records, &table, &column_records, &used);
  AddRows(paper, records, only_rows, &table);
  RETURN_IF_ERROR(FillCells(paper, column_records, &table));
  NoteMissingAndDerivedColumns(paper, &table);
  for (const std::string& note : paper.notes) table.footnotes.push_back(note);
  NoteGridEdges(table);
  if (std::any_of(table.columns.begin(), table.columns.end(),
                  [&](const ReportColumn& column) {
                    return IsFinetuneColumn(paper, column);
                  })) {
    AddBaselineRows(paper, column_records, table);
  }
  FillCompute(records, used, table);
  NoteSeeds(table);
  ASSIGN_OR_RETURN(table.claims, CheckTableClaims(paper, table));
  if (!table.claims.empty()) table.claims_method = DescribeClaimsMethod(table);
  NoteCollapsed(table);
  NoteUnusedRecords(paper, records, used, &table);
  RETURN_IF_ERROR(AddSweepPanels(paper, column_records, &table));
  return table;
}

}  // namespace

std::string CellRateSelection(const TableReport& table) {
  bool on_tune = false;
  bool on_dev = false;
  for (const ReportRow& row : table.rows) {
    for (const ReportCell& cell : row.cells) {
      if (cell.learning_rate <= 0 || cell.learning_rate_grid.size() < 2) {
        continue;
      }
      (cell.chosen_on_tune ? on_tune : on_dev) = true;
    }
  }
  if (on_tune && !on_dev) {
    return "with the best mean score on its task's tune split, not on dev";
  }
  if (on_tune) {
    return "with the best mean score on its task's tune split where it has "
           "one, else on dev";
  }
  return "with the best mean dev score";
}

std::string ShortVariantName(absl::string_view description) {
  const size_t colon = description.find(": ");
  return std::string(colon == absl::string_view::npos
                         ? description
                         : description.substr(0, colon));
}

std::string PlainRowName(absl::string_view name) {
  return absl::StrReplaceAll(name, {{"BERT-BASE", "BERT"},
                                    {"BERT-LARGE", "BERT"},
                                    {"BERT_BASE", "BERT"},
                                    {"BERT_LARGE", "BERT"}});
}

std::string RowLabel(absl::string_view name,
                     const std::vector<ModelSize>& models,
                     absl::string_view scale) {
  if (models.empty()) return PlainRowName(name);
  std::vector<std::string> sizes;
  for (const ModelSize& model : models) {
    sizes.push_back(absl::StrCat("L", model.layers, "/H", model.hidden));
  }
  return absl::StrCat(PlainRowName(name), " (", absl::StrJoin(sizes, ", "),
                      scale.empty() ? "" : ", ", scale, ")");
}

absl::StatusOr<Report> BuildReport(const std::vector<RunRecord>& records,
                                   const ReportOptions& options) {
  if (!options.scale.empty() && !IsScaleName(options.scale)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scale \"", options.scale, "\": expected ", ScaleNamesText()));
  }
  std::vector<const RunRecord*> selected;
  for (const RunRecord& record : records) {
    if (!options.scale.empty() && record.scale != options.scale) continue;
    if (!options.table.empty() && record.table != options.table) continue;
    selected.push_back(&record);
  }
  if (!options.table.empty()) {
    RETURN_IF_ERROR(FindPaperTable(options.table).status());
  }
  if (selected.empty()) {
    std::set<std::string> tables;
    for (const RunRecord& record : records) {
      tables.insert(absl::StrCat(record.table, "/", record.scale));
    }
    return absl::NotFoundError(absl::StrCat(
        "none of the ", records.size(), " run records is for table \"",
        options.table.empty() ? "any" : options.table, "\" at scale \"",
        options.scale.empty() ? "any" : options.scale,
        "\"; the records have (table/scale): ", absl::StrJoin(tables, ", ")));
  }

  // A row asked for by name must be one the records fill: a misspelt name
  // would otherwise give a table with no rows, and exit 0.
  std::set<std::string> known_rows;
  for (const RunRecord* record : selected) known_rows.insert(record->row_key());
  for (const std::string& row : options.rows) {
    if (known_rows.count(row) == 0) {
      return absl::NotFoundError(absl::StrCat(
          "row \"", row, "\": no run record fills it; the records' rows are ",
          absl::StrJoin(known_rows, ", ")));
    }
  }

  Report report;
  std::set<std::string> scales;
  std::set<std::string> experiments;
  std::set<std::string> code_versions;
  std::set<std::pair<std::string, std::string>> hashes;
  for (const RunRecord* record : selected) {
    scales.insert(record->scale);
    experiments.insert(record->experiment);
    code_versions.insert(record->code_version);
    for (const auto& entry : record->data_hashes) hashes.insert(entry);
  }
  for (const PaperTable& paper : PaperTables()) {
    std::vector<const RunRecord*> mine;
    for (const RunRecord* record : selected) {
      if (record->table == paper.id) mine.push_back(record);
    }
    if (mine.empty() && paper.id != options.table) continue;
    ASSIGN_OR_RETURN(TableReport table, BuildTable(paper, mine, options.rows));
    report.tables.push_back(std::move(table));
  }
  Provenance& provenance = report.provenance;
  provenance.generated_at = options.generated_at;
  provenance.runs = static_cast<int>(selected.size());
  provenance.scales = Sorted(scales);
  provenance.experiments = Sorted(experiments);
  provenance.code_versions = Sorted(code_versions);
  provenance.data_hashes.assign(hashes.begin(), hashes.end());
  return report;
}

}  // namespace reports
}  // namespace bertlab
