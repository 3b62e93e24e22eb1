#include "reports/report.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

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

absl::StatusOr<TableReport> BuildTable(
    const PaperTable& paper, const std::vector<const RunRecord*>& records,
    const std::vector<std::string>& only_rows) {
  const auto shown = [&](const std::string& key) {
    return only_rows.empty() || std::find(only_rows.begin(), only_rows.end(),
                                          key) != only_rows.end();
  };
  TableReport table;
  table.paper = &paper;

  std::set<std::string> scales;
  for (const RunRecord* record : records) scales.insert(record->scale);
  if (scales.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        paper.id, ": the records mix scales (", absl::StrJoin(scales, ", "),
        "); choose one with --scale"));
  }
  table.scale = scales.empty() ? "" : *scales.begin();

  // Columns we can measure; which records feed each.
  std::vector<std::string> not_measured;
  std::vector<std::vector<const RunRecord*>> column_records;
  std::set<const RunRecord*> used;
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
    for (const RunRecord* record : real) used.insert(record);
    for (const RunRecord* record : derived) used.insert(record);
    if (!real.empty() && !derived.empty()) {
      table.footnotes.push_back(absl::StrCat(
          column.header, ": ", derived.size(),
          " records of a derived stand-in task were left out because real ",
          TaskDisplayName(paper_column.task), " records exist."));
    }
    column.has_runs = !chosen.empty();
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
    table.columns.push_back(std::move(column));
    column_records.push_back(std::move(chosen));
  }
  if (!not_measured.empty()) {
    table.footnotes.push_back(
        absl::StrCat("Paper columns we do not measure (leaderboard/test "
                     "scores): ",
                     absl::StrJoin(not_measured, ", "), "."));
  }

  // Rows: the paper's reproducible rows in its order, then variants of ours
  // the paper does not have.
  std::set<std::string> variants;
  std::map<std::string, std::string> descriptions;
  for (const RunRecord* record : records) {
    variants.insert(record->variant);
    if (!record->variant_description.empty()) {
      descriptions.emplace(record->variant, record->variant_description);
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
    row.display = paper_row.display;
    row.in_paper = true;
    table.rows.push_back(std::move(row));
  }
  std::vector<std::string> extra_rows;
  for (const std::string& variant : variants) {
    const bool known =
        std::any_of(paper.rows.begin(), paper.rows.end(),
                    [&](const PaperRow& row) { return row.key == variant; });
    if (known || !shown(variant)) continue;
    ReportRow row;
    row.key = variant;
    auto it = descriptions.find(variant);
    row.display = it == descriptions.end() ? variant : it->second;
    table.rows.push_back(std::move(row));
    extra_rows.push_back(absl::StrCat("\"", variant, "\""));
  }
  if (!skipped_baselines.empty()) {
    table.footnotes.push_back(
        absl::StrCat("Paper rows of systems not trained here are left out: ",
                     absl::StrJoin(skipped_baselines, "; "), "."));
  }
  if (!extra_rows.empty()) {
    table.footnotes.push_back(absl::StrCat(
        "Variants that are not rows of the paper's table (no paper numbers "
        "beside them): ",
        absl::StrJoin(extra_rows, ", "), "."));
  }

  // Cells.
  for (ReportRow& row : table.rows) {
    const PaperRow* paper_row = nullptr;
    for (const PaperRow& candidate : paper.rows) {
      if (candidate.key == row.key) paper_row = &candidate;
    }
    for (size_t c = 0; c < table.columns.size(); ++c) {
      const ReportColumn& column = table.columns[c];
      ReportCell cell;
      if (paper_row != nullptr) {
        cell.paper = paper_row->values[FindColumn(paper, column.paper.key)];
      }
      cell.derived = column.derived;
      std::vector<const RunRecord*> mine;
      for (const RunRecord* record : column_records[c]) {
        if (record->variant == row.key) mine.push_back(record);
      }
      if (!mine.empty()) {
        cell.source_task =
            mine.front()->is_finetune() ? mine.front()->task : kPretrainTask;
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
        cell.runs = static_cast<int>(values.size());
      } else {
        ASSIGN_OR_RETURN(CellSelection selection,
                         SelectBestLearningRate(mine, column.paper.metric),
                         _.Prepend(paper.id, ", row \"", row.key, "\", column ",
                                   column.paper.display, ": "));
        const LearningRatePoint& best = selection.selected();
        cell.has_value = true;
        cell.mean = best.mean;
        cell.std = best.std;
        cell.runs = static_cast<int>(best.values.size());
        cell.learning_rate = best.learning_rate;
      }
      if (cell.has_value && cell.paper.has_value()) {
        cell.diff = cell.mean - *cell.paper;
      }
      row.cells.push_back(std::move(cell));
    }
    // The paper's Average: mean of the averaged columns, all required.
    if (!paper.average_column.empty()) {
      const int average = [&] {
        for (size_t c = 0; c < table.columns.size(); ++c) {
          if (table.columns[c].paper.key == paper.average_column) {
            return static_cast<int>(c);
          }
        }
        return -1;
      }();
      std::vector<double> means;
      for (size_t c = 0; c < table.columns.size(); ++c) {
        const std::string& key = table.columns[c].paper.key;
        if (std::find(paper.averaged_columns.begin(),
                      paper.averaged_columns.end(),
                      key) != paper.averaged_columns.end() &&
            row.cells[c].has_value) {
          means.push_back(row.cells[c].mean);
        }
      }
      if (average >= 0 && means.size() == paper.averaged_columns.size()) {
        ReportCell& cell = row.cells[average];
        cell.has_value = true;
        cell.mean = Mean(means);
        cell.runs = 0;
        if (cell.paper.has_value()) cell.diff = cell.mean - *cell.paper;
      }
    }
  }
  if (!paper.average_column.empty()) {
    for (ReportColumn& column : table.columns) {
      if (column.paper.key != paper.average_column) continue;
      column.has_runs = false;
      for (const ReportRow& row : table.rows) {
        if (row.cells[&column - table.columns.data()].has_value) {
          column.has_runs = true;
        }
      }
      if (!column.has_runs) {
        table.footnotes.push_back(
            "Average: n/a where a row lacks any of the nine averaged "
            "columns.");
      }
    }
  }

  // Notes on missing and derived columns.
  std::set<std::string> missing_tasks;
  for (const ReportColumn& column : table.columns) {
    if (!column.has_runs && column.paper.key != paper.average_column) {
      missing_tasks.insert(column.paper.task);
    }
  }
  if (!missing_tasks.empty()) {
    table.footnotes.insert(
        table.footnotes.begin(),
        absl::StrCat("n/a = not available: no runs for ",
                     JoinTasks(missing_tasks),
                     " (no data, or not run at this scale)."));
  }
  for (const ReportColumn& column : table.columns) {
    if (!column.derived) continue;
    table.footnotes.insert(
        table.footnotes.begin(),
        absl::StrCat("* ", column.paper.display,
                     " was measured on the "
                     "derived default task ",
                     absl::StrJoin(column.derived_tasks, ", "),
                     " (data: ", absl::StrJoin(column.derived_sources, "; "),
                     ") standing in for ", TaskDisplayName(column.paper.task),
                     "; its numbers are not comparable with the paper's."));
  }
  for (const std::string& note : paper.notes) table.footnotes.push_back(note);

  // Records that fill no column.
  std::map<std::string, int> ignored;
  for (const RunRecord* record : records) {
    if (used.count(record) == 0) ++ignored[record->column_task()];
  }
  for (const auto& [task, count] : ignored) {
    table.footnotes.push_back(absl::StrCat(count, " record(s) of task \"", task,
                                           "\" fill no column of ", paper.id,
                                           " and are left out."));
  }

  for (const RunRecord* record : records) {
    (record->is_finetune() ? table.finetune_runs : table.pretrain_runs) += 1;
  }

  // Plot data: one panel per fine-tuning column with runs.
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const ReportColumn& column = table.columns[c];
    if (!column.has_runs || column.paper.task == kPretrainTask ||
        column.paper.key == paper.average_column) {
      continue;
    }
    SweepPanel panel;
    panel.column_key = column.paper.key;
    panel.title = column.header;
    panel.metric = column.paper.metric;
    for (const ReportRow& row : table.rows) {
      std::vector<const RunRecord*> mine;
      for (const RunRecord* record : column_records[c]) {
        if (record->variant == row.key) mine.push_back(record);
      }
      if (mine.empty()) continue;
      ASSIGN_OR_RETURN(CellSelection selection,
                       SelectBestLearningRate(mine, column.paper.metric));
      panel.series.push_back({row.key, row.display, std::move(selection)});
    }
    table.panels.push_back(std::move(panel));
  }
  return table;
}

}  // namespace

absl::StatusOr<Report> BuildReport(const std::vector<RunRecord>& records,
                                   const ReportOptions& options) {
  if (!options.scale.empty() && options.scale != "mini" &&
      options.scale != "paper") {
    return absl::InvalidArgumentError(
        absl::StrCat("scale \"", options.scale, "\": expected mini or paper"));
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
