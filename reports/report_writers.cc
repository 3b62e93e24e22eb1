#include "reports/report_writers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/check.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace reports {
namespace {

// "85.0 ± 1.0†": mean ± sample std (the mean alone for one restart), then
// the grid-edge marker.
std::string Ours(const ReportCell& cell, int decimals) {
  if (!cell.has_value) return "n/a";
  std::string text = FormatNumber(cell.mean, decimals);
  if (cell.runs > 1) {
    absl::StrAppend(&text, " ± ", FormatNumber(cell.std, decimals));
  }
  if (cell.learning_rate_at_grid_edge) absl::StrAppend(&text, kGridEdgeMarker);
  return text;
}

// A Markdown cell: "85.0 ± 1.0† (med 85.0, n=3; paper 86.7, -1.7)",
// "79.0 (n=1; paper 86.5)", "n/a (paper 84.4)".
std::string MarkdownCell(const ReportCell& cell, int decimals) {
  std::vector<std::string> spread;
  if (cell.has_value && cell.runs > 1) {
    spread.push_back(absl::StrCat("med ", FormatNumber(cell.median, decimals)));
  }
  if (cell.has_value && cell.runs > 0) {
    spread.push_back(absl::StrCat("n=", FormatCellCount(cell)));
  }
  std::vector<std::string> parts;
  if (!spread.empty()) parts.push_back(absl::StrJoin(spread, ", "));
  if (cell.paper.has_value()) {
    parts.push_back(absl::StrCat(
        "paper ", FormatNumber(*cell.paper, decimals),
        cell.diff.has_value() ? ", " + FormatDiff(*cell.diff, decimals) : ""));
  }
  std::string text = Ours(cell, decimals);
  if (!parts.empty()) {
    absl::StrAppend(&text, " (", absl::StrJoin(parts, "; "), ")");
  }
  return text;
}

// The decimals of the column with `key` (the paper's precision).
int ColumnDecimals(const TableReport& table, const std::string& key) {
  for (const ReportColumn& column : table.columns) {
    if (column.paper.key == key) return column.paper.decimals;
  }
  return 1;
}

std::string TableTitle(const TableReport& table) {
  return absl::StrCat(
      table.paper->caption,
      table.scale.empty() ? "" : absl::StrCat(" Scale: ", table.scale, "."));
}

std::string FormatLearningRate(double learning_rate) {
  return absl::StrFormat("%g", learning_rate);
}

// The claims and their verdicts: the first thing a reader of a table sees;
// the paper's claims, then those against the control that gate them.
void AppendClaimsMarkdown(const TableReport& table, std::string& out) {
  std::vector<std::string> not_measured;
  std::string paper_rows, control_rows;
  for (const ClaimCheck& check : table.claims) {
    if (check.verdict == Verdict::kNotMeasured) {
      not_measured.push_back(MarkdownText(ClaimLabel(check)));
      continue;
    }
    std::vector<std::string> cells =
        ClaimCells(check, ColumnDecimals(table, check.claim.column));
    for (std::string& cell : cells) cell = MarkdownText(cell);
    cells[3] = absl::StrCat("**", cells[3], "**");
    if (!check.claim.beyond_paper()) {
      cells[0] = absl::StrCat(cells[0], " — ", check.claim.source);
    }
    absl::StrAppend(check.claim.beyond_paper() ? &control_rows : &paper_rows,
                    "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  std::string header =
      absl::StrCat("| ", absl::StrJoin(kClaimHeaders, " | "), " |\n|");
  for (size_t i = 0; i < std::size(kClaimHeaders); ++i) header += "---|";
  header += "\n";
  if (!paper_rows.empty()) {
    absl::StrAppend(&out, "The paper's claims:\n\n", header, paper_rows, "\n");
  }
  if (!control_rows.empty()) {
    absl::StrAppend(&out,
                    "Beyond the paper: each pre-trained row above the "
                    "no-pre-training control (the gate of the paper's "
                    "claims):\n\n",
                    header, control_rows, "\n");
  }
  if (!paper_rows.empty() || !control_rows.empty()) {
    absl::StrAppend(&out, MarkdownText(table.claims_method), "\n\n");
  }
  if (!not_measured.empty()) {
    absl::StrAppend(&out, "Claims not measured (a cell without runs): ",
                    absl::StrJoin(not_measured, "; "), ".\n\n");
  }
}

// Each row's pre-training compute, under the table.
void AppendComputeMarkdown(const TableReport& table, std::string& out) {
  if (!table.has_compute) return;
  absl::StrAppend(&out,
                  "\nPre-training compute (rows compared at equal steps; — = "
                  "no pre-training record of the row's own):\n\n| Row | "
                  "Steps | Tokens | Predicted positions | FLOPs | "
                  "Held-out LM ppl (unigram) |\n|---|---|---|---|---|---|\n");
  for (const ReportRow& row : table.rows) {
    if (row.trivial_predictor) continue;
    absl::StrAppend(&out, "| ", MarkdownText(row.display));
    if (!row.compute.has_value()) {
      absl::StrAppend(&out, " | — | — | — | — | — |\n");
      continue;
    }
    const PretrainingCompute& compute = *row.compute;
    absl::StrAppend(
        &out, " | ", compute.steps, " | ", FormatCount(compute.tokens), " | ",
        FormatCount(compute.predicted_positions), " | ",
        FormatFlops(compute.flops), " | ", FormatHeldOut(row.outcome), " |\n");
  }
}

void AppendProvenanceMarkdown(const Provenance& provenance, std::string& out) {
  absl::StrAppend(&out, "## Provenance\n\n");
  absl::StrAppend(&out, "- Generated: ", provenance.generated_at, "\n");
  absl::StrAppend(&out, "- Runs: ", provenance.runs,
                  " (scale: ", absl::StrJoin(provenance.scales, ", "), ")\n");
  absl::StrAppend(&out, "- Experiments: ",
                  absl::StrJoin(provenance.experiments, ", "), "\n");
  absl::StrAppend(&out, "- Code versions: ",
                  absl::StrJoin(provenance.code_versions, ", "), "\n");
  if (provenance.data_hashes.empty()) {
    absl::StrAppend(&out, "- Data hashes: none recorded\n");
  } else {
    absl::StrAppend(&out, "- Data hashes:\n");
    for (const auto& [path, hash] : provenance.data_hashes) {
      absl::StrAppend(&out, "  - `", path, "`: `", hash, "`\n");
    }
  }
}

// The CSV's columns in order: every line has each, empty where it does not
// apply; `entry` says whether a line is a cell or a claim.
const std::vector<std::string>& CsvColumns() {
  static const auto* const columns =
      new std::vector<std::string>{"table",
                                   "scale",
                                   "row_key",
                                   "row",
                                   "column_key",
                                   "column",
                                   "task",
                                   "metric",
                                   "derived",
                                   "source_task",
                                   "runs",
                                   "learning_rate",
                                   "ours_mean",
                                   "ours_std",
                                   "paper",
                                   "diff",
                                   "ours_median",
                                   "lr_at_grid_edge",
                                   "pretrain_tokens",
                                   "pretrain_flops",
                                   "entry",
                                   "claim",
                                   "claim_source",
                                   "than_row_key",
                                   "verdict",
                                   "claim_runs",
                                   "claim_than_runs",
                                   "claim_diff",
                                   "claim_ci_low",
                                   "claim_ci_high",
                                   "claim_se",
                                   "claim_p",
                                   "claim_holm_p",
                                   "claim_mde",
                                   "claim_equivalence_bound",
                                   "claim_seeds",
                                   "claim_than_seeds",
                                   "claim_collapsed",
                                   "claim_than_collapsed",
                                   "claim_paper_diff",
                                   "claim_not_testable_reason",
                                   "pretrain_heldout_perplexity"};
  return *columns;
}

// One CSV line from (column, value); columns it does not name are empty.
std::string CsvLine(const std::map<std::string, std::string>& values) {
  const std::vector<std::string>& columns = CsvColumns();
  for (const auto& [column, value] : values) {
    CHECK(std::find(columns.begin(), columns.end(), column) != columns.end())
        << "no CSV column " << column;
  }
  std::vector<std::string> fields;
  for (const std::string& column : columns) {
    const auto it = values.find(column);
    fields.push_back(CsvField(it == values.end() ? "" : it->second));
  }
  return absl::StrCat(absl::StrJoin(fields, ","), "\n");
}

}  // namespace

std::string FormatCount(int64_t count) {
  static const std::pair<double, const char*> kUnits[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, unit] : kUnits) {
    if (std::abs(static_cast<double>(count)) >= scale) {
      return absl::StrCat(absl::StrFormat("%.3g", count / scale), unit);
    }
  }
  return absl::StrCat(count);
}

std::string FormatFlops(double flops) {
  return flops == 0 ? "0" : absl::StrFormat("%.2e", flops);
}

std::string FormatHeldOut(const std::optional<PretrainingOutcome>& outcome) {
  if (!outcome.has_value() || !outcome->perplexity.has_value()) return "—";
  std::string text = FormatNumber(*outcome->perplexity, 1);
  if (outcome->unigram_perplexity.has_value()) {
    absl::StrAppend(&text, " (", FormatNumber(*outcome->unigram_perplexity, 1),
                    ")");
  }
  return text;
}

std::string FormatCellCount(const ReportCell& cell) {
  if (cell.pretraining_seeds == 0) return absl::StrCat(cell.runs);
  return absl::StrCat(cell.pretraining_seeds, " seeds, ", cell.finetune_runs,
                      " runs");
}

std::string FormatNumber(double value, int decimals) {
  // A diverged run's perplexity may be astronomically large; in fixed
  // notation 1e300 would fill a table cell with 301 digits.
  if (std::abs(value) >= kFixedNotationLimit) {
    return absl::StrFormat("%.*e", std::max(decimals, 1), value);
  }
  std::string text = absl::StrFormat("%.*f", decimals, value);
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

std::string FormatDiff(double value, int decimals) {
  std::string text = FormatNumber(value, decimals);
  if (text[0] != '-' && text.find_first_not_of("0.") != std::string::npos) {
    text.insert(0, "+");
  }
  return text;
}

std::vector<std::string> ClaimCells(const ClaimCheck& check, int decimals) {
  const auto interval = [&](const MultiBootstrapResult& result) {
    return absl::StrCat(FormatDiff(result.difference, decimals), " [",
                        FormatNumber(result.lower95, decimals), ", ",
                        FormatNumber(result.upper95, decimals), "]");
  };
  const auto n = [](int seeds, int runs) {
    return absl::StrCat(seeds, " × ", runs);
  };
  std::vector<std::string> notes;
  if (!check.not_testable_reason.empty()) {
    notes.push_back(check.not_testable_reason);
  }
  if (check.collapsed + check.than_collapsed > 0) {
    notes.push_back(absl::StrCat(
        "collapsed runs ", check.collapsed, " / ", check.than_collapsed,
        check.without_collapsed.has_value()
            ? absl::StrCat("; without them ",
                           interval(*check.without_collapsed))
            : "; no run left without them"));
  }
  if (check.bootstrap.has_value() && !check.bootstrap->examples_resampled) {
    notes.push_back("dev examples not resampled");
  }
  if (check.bootstrap.has_value() && check.bootstrap->example_groups > 0 &&
      check.bootstrap->example_groups < kFewExampleGroups) {
    notes.push_back(absl::StrCat(
        "only ", check.bootstrap->example_groups,
        " articles: the bootstrap's article draw is coarse and its interval "
        "narrower than it should be"));
  }
  const int fewest_seeds = std::min(check.seeds, check.than_seeds);
  const int most_seeds = std::max(check.seeds, check.than_seeds);
  if (most_seeds > 1 && most_seeds < kFewPretrainingSeeds) {
    notes.push_back(absl::StrCat(
        "only ", most_seeds,
        " pre-training seeds: the bootstrap's seed draw is coarse and its "
        "interval narrower than it should be"));
  } else if (fewest_seeds == 1 && most_seeds == 1 &&
             check.bootstrap.has_value()) {
    notes.push_back("one checkpoint per row");
  }
  // A pre-trained row run on one seed beside a row with several (Table 5
  // mini's + BiLSTM): the interval holds no variance between its seeds.
  // The control is not pre-trained, so it has none to leave out.
  const bool one_checkpoint_side =
      (check.seeds == 1 && check.claim.row != kNoPretrainingVariant) ||
      (check.than_seeds == 1 && check.claim.than_row != kNoPretrainingVariant);
  if (most_seeds > 1 && one_checkpoint_side && check.bootstrap.has_value()) {
    notes.push_back(
        "one side is one pre-trained checkpoint: its variance between "
        "pre-training seeds is not in the interval");
  }
  if (check.equivalence_bound.has_value() &&
      check.paper_difference.has_value() &&
      *check.equivalence_bound < std::abs(*check.paper_difference)) {
    notes.push_back("an effect as large as the paper's is ruled out");
  }
  return {
      ClaimLabel(check),
      check.bootstrap.has_value()    ? interval(*check.bootstrap)
      : check.difference.has_value() ? FormatDiff(*check.difference, decimals)
                                     : "—",
      check.paper_difference.has_value()
          ? FormatDiff(*check.paper_difference, decimals)
          : "–",
      VerdictName(check.verdict),
      absl::StrCat(n(check.seeds, check.runs), " / ",
                   n(check.than_seeds, check.than_runs)),
      check.detectable_effect.has_value()
          ? FormatNumber(*check.detectable_effect, decimals)
          : "—",
      check.equivalence_bound.has_value()
          ? FormatNumber(*check.equivalence_bound, decimals)
          : "—",
      !check.holm_p_value.has_value() ? std::string("—")
      : *check.holm_p_value < 0.001
          ? std::string("<0.001")
          : absl::StrFormat("%.3f", *check.holm_p_value),
      absl::StrJoin(notes, "; "),
  };
}

std::string MarkdownText(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}});
}

std::string EscapeLatex(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\\':
        out += "\\textbackslash{}";
        break;
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      default:
        out += c;
    }
  }
  // Characters outside ASCII that the paper's names use.
  return absl::StrReplaceAll(out, {{"±", "$\\pm$"},
                                   {"–", "--"},
                                   {"—", "---"},
                                   {"−", "$-$"},
                                   {"†", "\\textsuperscript{\\dag}"}});
}

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\r\n") == absl::string_view::npos) {
    return std::string(text);
  }
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string EscapeXml(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"},
                                    {"<", "&lt;"},
                                    {">", "&gt;"},
                                    {"\"", "&quot;"},
                                    {"'", "&apos;"}});
}

std::string ToMarkdown(const Report& report) {
  std::string out = "# bertlab report: our dev results beside the paper's\n";
  for (const TableReport& table : report.tables) {
    absl::StrAppend(&out, "\n## ", MarkdownText(TableTitle(table)), "\n\n");
    AppendClaimsMarkdown(table, out);
    absl::StrAppend(&out, "| ", MarkdownText(table.paper->row_header));
    for (const ReportColumn& column : table.columns) {
      absl::StrAppend(&out, " | ", MarkdownText(column.header));
    }
    absl::StrAppend(&out, " |\n|---");
    for (size_t i = 0; i < table.columns.size(); ++i) {
      absl::StrAppend(&out, "|---");
    }
    absl::StrAppend(&out, "|\n");
    for (const ReportRow& row : table.rows) {
      absl::StrAppend(&out, "| ", MarkdownText(row.display));
      for (size_t c = 0; c < table.columns.size(); ++c) {
        absl::StrAppend(
            &out, " | ",
            MarkdownCell(row.cells[c], table.columns[c].paper.decimals));
      }
      absl::StrAppend(&out, " |\n");
    }
    absl::StrAppend(
        &out,
        "\nCells: ours = mean ± sample std over restarts at the learning rate ",
        CellRateSelection(table),
        " (the mean alone for one restart; med = median, n = restarts), then "
        "the paper's number and ours minus the paper's (no difference for a "
        "derived stand-in task).\n");
    AppendComputeMarkdown(table, out);
    if (!table.footnotes.empty()) {
      absl::StrAppend(&out, "\nNotes:\n\n");
      for (const std::string& note : table.footnotes) {
        absl::StrAppend(&out, "- ", MarkdownText(note), "\n");
      }
    }
    bool any_selection = false;
    for (const ReportRow& row : table.rows) {
      for (const ReportCell& cell : row.cells) {
        any_selection |= cell.learning_rate > 0;
      }
    }
    if (any_selection) {
      absl::StrAppend(&out,
                      "\nSelection (learning rate best on dev, restarts "
                      "averaged):\n\n| Row | Column | Task | Learning rate | "
                      "Grid | Restarts |\n|---|---|---|---|---|---|\n");
      for (const ReportRow& row : table.rows) {
        for (size_t c = 0; c < table.columns.size(); ++c) {
          const ReportCell& cell = row.cells[c];
          if (cell.learning_rate <= 0) continue;
          absl::StrAppend(
              &out, "| ", MarkdownText(row.display), " | ",
              MarkdownText(table.columns[c].paper.display), " | ",
              cell.source_task, " | ", FormatLearningRate(cell.learning_rate),
              cell.learning_rate_at_grid_edge ? kGridEdgeMarker : "", " | ",
              absl::StrJoin(cell.learning_rate_grid, ", ",
                            [](std::string* text, double rate) {
                              absl::StrAppend(text, FormatLearningRate(rate));
                            }),
              " | ", FormatCellCount(cell), " |\n");
        }
      }
    }
  }
  absl::StrAppend(&out, "\n");
  AppendProvenanceMarkdown(report.provenance, out);
  return out;
}

std::string ToCsv(const Report& report) {
  std::string out = absl::StrCat(absl::StrJoin(CsvColumns(), ","), "\n");
  const auto optional = [](const std::optional<double>& value) {
    return value.has_value() ? FormatNumber(*value, 4) : std::string();
  };
  const auto flag = [](bool value) { return value ? "true" : "false"; };
  for (const TableReport& table : report.tables) {
    for (const ReportRow& row : table.rows) {
      for (size_t c = 0; c < table.columns.size(); ++c) {
        const ReportColumn& column = table.columns[c];
        const ReportCell& cell = row.cells[c];
        const bool spread = cell.has_value && cell.runs > 1;
        out += CsvLine({
            {"entry", "cell"},
            {"table", table.paper->id},
            {"scale", table.scale},
            {"row_key", row.key},
            {"row", row.display},
            {"column_key", column.paper.key},
            {"column", column.header},
            {"task", column.paper.task},
            {"metric", column.paper.metric},
            {"derived", flag(cell.derived)},
            {"source_task", cell.source_task},
            {"runs", cell.has_value ? absl::StrCat(cell.runs) : "0"},
            {"learning_rate", cell.learning_rate > 0
                                  ? FormatLearningRate(cell.learning_rate)
                                  : ""},
            {"ours_mean", cell.has_value ? FormatNumber(cell.mean, 4) : ""},
            {"ours_std", spread ? FormatNumber(cell.std, 4) : ""},
            {"paper",
             cell.paper.has_value() ? FormatNumber(*cell.paper, 2) : ""},
            {"diff", optional(cell.diff)},
            {"ours_median", spread ? FormatNumber(cell.median, 4) : ""},
            {"lr_at_grid_edge", flag(cell.learning_rate_at_grid_edge)},
            {"pretrain_tokens",
             row.compute.has_value() ? absl::StrCat(row.compute->tokens) : ""},
            {"pretrain_flops",
             row.compute.has_value() ? FormatFlops(row.compute->flops) : ""},
            {"pretrain_heldout_perplexity",
             row.outcome.has_value() && row.outcome->perplexity.has_value()
                 ? FormatNumber(*row.outcome->perplexity, 4)
                 : ""},
        });
      }
    }
    for (const ClaimCheck& check : table.claims) {
      std::map<std::string, std::string> line = {
          {"entry", "claim"},
          {"table", table.paper->id},
          {"scale", table.scale},
          {"row_key", check.claim.row},
          {"column_key", check.claim.column},
          {"source_task", check.derived_task},
          {"claim", ClaimLabel(check)},
          {"claim_source", check.claim.source},
          {"than_row_key", check.claim.than_row},
          {"verdict", VerdictName(check.verdict)},
          {"claim_not_testable_reason", check.not_testable_reason},
          {"claim_runs", absl::StrCat(check.runs)},
          {"claim_than_runs", absl::StrCat(check.than_runs)},
          {"claim_seeds", absl::StrCat(check.seeds)},
          {"claim_than_seeds", absl::StrCat(check.than_seeds)},
          {"claim_collapsed", absl::StrCat(check.collapsed)},
          {"claim_than_collapsed", absl::StrCat(check.than_collapsed)},
          {"claim_diff", optional(check.difference)},
          {"claim_p", optional(check.p_value)},
          {"claim_holm_p", optional(check.holm_p_value)},
          {"claim_mde", optional(check.detectable_effect)},
          {"claim_equivalence_bound", optional(check.equivalence_bound)},
          {"claim_paper_diff", optional(check.paper_difference)},
      };
      for (const ReportColumn& column : table.columns) {
        if (column.paper.key != check.claim.column) continue;
        line["column"] = column.header;
        line["task"] = column.paper.task;
        line["metric"] = column.paper.metric;
        line["derived"] = flag(column.derived);
      }
      if (check.bootstrap.has_value()) {
        line["claim_ci_low"] = FormatNumber(check.bootstrap->lower95, 4);
        line["claim_ci_high"] = FormatNumber(check.bootstrap->upper95, 4);
        line["claim_se"] = FormatNumber(check.bootstrap->standard_error, 4);
      }
      out += CsvLine(line);
    }
  }
  return out;
}

std::string ToLatex(const Report& report) {
  std::string out =
      "% bertlab report (generated; needs \\usepackage{booktabs}).\n";
  for (const TableReport& table : report.tables) {
    const size_t columns = table.columns.size();
    absl::StrAppend(&out, "\n\\begin{table}[t]\n\\centering\n\\small\n");
    absl::StrAppend(&out, "\\caption{", EscapeLatex(TableTitle(table)),
                    "}\n\\label{tab:", table.paper->id, "}\n");
    absl::StrAppend(&out, "\\begin{tabular}{l");
    for (size_t c = 0; c < columns; ++c) absl::StrAppend(&out, "rrr");
    absl::StrAppend(&out, "}\n\\toprule\n",
                    EscapeLatex(table.paper->row_header));
    for (const ReportColumn& column : table.columns) {
      absl::StrAppend(&out, " & \\multicolumn{3}{c}{",
                      EscapeLatex(column.header), "}");
    }
    absl::StrAppend(&out, " \\\\\n");
    for (size_t c = 0; c < columns; ++c) {
      absl::StrAppend(&out, "\\cmidrule(lr){", 2 + 3 * c, "-", 4 + 3 * c, "}");
    }
    absl::StrAppend(&out, "\n");
    for (size_t c = 0; c < columns; ++c) {
      absl::StrAppend(&out, " & Ours & Paper & $\\Delta$");
    }
    absl::StrAppend(&out, " \\\\\n\\midrule\n");
    for (const ReportRow& row : table.rows) {
      absl::StrAppend(&out, EscapeLatex(row.display));
      for (size_t c = 0; c < columns; ++c) {
        const ReportCell& cell = row.cells[c];
        const int decimals = table.columns[c].paper.decimals;
        std::string ours = "n/a";
        if (cell.has_value) {
          ours = cell.runs > 1
                     ? absl::StrCat("$", FormatNumber(cell.mean, decimals),
                                    " \\pm ", FormatNumber(cell.std, decimals),
                                    "$")
                     : FormatNumber(cell.mean, decimals);
          if (cell.learning_rate_at_grid_edge) {
            absl::StrAppend(&ours, EscapeLatex(kGridEdgeMarker));
          }
          if (cell.runs > 1) {
            absl::StrAppend(&ours, " (med ",
                            FormatNumber(cell.median, decimals), ")");
          }
        }
        absl::StrAppend(
            &out, " & ", ours, " & ",
            cell.paper.has_value() ? FormatNumber(*cell.paper, decimals) : "--",
            " & ",
            cell.diff.has_value()
                ? absl::StrCat("$", FormatDiff(*cell.diff, decimals), "$")
                : "--");
      }
      absl::StrAppend(&out, " \\\\\n");
    }
    absl::StrAppend(&out, "\\bottomrule\n\\end{tabular}\n");
    if (!table.footnotes.empty()) {
      absl::StrAppend(&out, "\n\\par\\footnotesize\n");
      for (const std::string& note : table.footnotes) {
        absl::StrAppend(&out, EscapeLatex(note), "\\\\\n");
      }
    }
    absl::StrAppend(&out, "\\end{table}\n");
  }
  const Provenance& provenance = report.provenance;
  absl::StrAppend(&out, "\n% Generated: ", provenance.generated_at, "\n");
  absl::StrAppend(&out, "% Runs: ", provenance.runs,
                  " (scale: ", absl::StrJoin(provenance.scales, ", "), ")\n");
  absl::StrAppend(&out, "% Code versions: ",
                  absl::StrJoin(provenance.code_versions, ", "), "\n");
  for (const auto& [path, hash] : provenance.data_hashes) {
    absl::StrAppend(&out, "% Data: ", path, " sha256 ", hash, "\n");
  }
  return out;
}

std::string ToJson(const Report& report) {
  using Json = nlohmann::json;
  auto optional = [](const std::optional<double>& value) {
    return value.has_value() ? Json(*value) : Json(nullptr);
  };
  Json tables = Json::array();
  for (const TableReport& table : report.tables) {
    Json columns = Json::array();
    for (const ReportColumn& column : table.columns) {
      columns.push_back({{"key", column.paper.key},
                         {"task", column.paper.task},
                         {"metric", column.paper.metric},
                         {"display", column.paper.display},
                         {"decimals", column.paper.decimals},
                         {"header", column.header},
                         {"paper_split", column.paper.paper_split},
                         {"has_runs", column.has_runs},
                         {"derived", column.derived},
                         {"derived_tasks", column.derived_tasks},
                         {"derived_sources", column.derived_sources},
                         {"trivial_predictor", column.trivial_predictor}});
    }
    Json rows = Json::array();
    for (const ReportRow& row : table.rows) {
      Json cells = Json::array();
      for (size_t c = 0; c < table.columns.size(); ++c) {
        const ReportCell& cell = row.cells[c];
        Json ours = nullptr;
        if (cell.has_value) {
          ours = {
              {"mean", cell.mean},
              {"std", cell.runs > 1 ? Json(cell.std) : Json(nullptr)},
              {"median", cell.runs > 1 ? Json(cell.median) : Json(nullptr)},
              {"runs", cell.runs},
              {"values", cell.values},
              {"learning_rate", cell.learning_rate > 0
                                    ? Json(cell.learning_rate)
                                    : Json(nullptr)},
              {"learning_rate_grid", cell.learning_rate_grid},
              {"learning_rate_at_grid_edge", cell.learning_rate_at_grid_edge}};
        }
        cells.push_back({{"column", table.columns[c].paper.key},
                         {"ours", ours},
                         {"paper", optional(cell.paper)},
                         {"diff", optional(cell.diff)},
                         {"derived", cell.derived},
                         {"source_task", cell.source_task}});
      }
      Json compute = nullptr;
      if (row.compute.has_value()) {
        compute = {{"steps", row.compute->steps},
                   {"tokens", row.compute->tokens},
                   {"predicted_positions", row.compute->predicted_positions},
                   {"flops", row.compute->flops}};
        if (row.outcome.has_value()) {
          compute["held_out_perplexity"] = optional(row.outcome->perplexity);
          compute["unigram_perplexity"] =
              optional(row.outcome->unigram_perplexity);
        }
      }
      rows.push_back({{"key", row.key},
                      {"display", row.display},
                      {"name", row.name},
                      {"in_paper", row.in_paper},
                      {"trivial_predictor", row.trivial_predictor},
                      {"compute", compute},
                      {"cells", cells}});
    }
    Json sweeps = Json::array();
    for (const SweepPanel& panel : table.panels) {
      for (const SweepSeries& series : panel.series) {
        Json points = Json::array();
        for (const LearningRatePoint& point : series.selection.sweep) {
          points.push_back({{"learning_rate", point.learning_rate},
                            {"restarts", point.restarts},
                            {"values", point.values},
                            {"mean", point.mean},
                            {"selection_mean", point.selection_mean}});
        }
        sweeps.push_back({{"column", panel.column_key},
                          {"row", series.row_key},
                          {"primary_metric", series.selection.primary_metric},
                          {"selected_learning_rate",
                           series.selection.selected().learning_rate},
                          {"points", points}});
      }
    }
    Json claims = Json::array();
    for (const ClaimCheck& check : table.claims) {
      const auto bootstrap_json =
          [](const std::optional<MultiBootstrapResult>& result) -> Json {
        if (!result.has_value()) return nullptr;
        return {{"difference", result->difference},
                {"lower95", result->lower95},
                {"upper95", result->upper95},
                {"lower90", result->lower90},
                {"upper90", result->upper90},
                {"standard_error", result->standard_error},
                {"share_at_or_below_zero", result->share_at_or_below_zero},
                {"share_at_or_above_zero", result->share_at_or_above_zero},
                {"rounds", result->rounds},
                {"random_seed", result->seed},
                {"paired_seeds", result->paired_seeds},
                {"examples_resampled", result->examples_resampled},
                {"examples", result->examples},
                {"example_groups", result->example_groups},
                {"seeds", result->seeds_a},
                {"than_seeds", result->seeds_b},
                {"runs", result->runs_a},
                {"than_runs", result->runs_b}};
      };
      claims.push_back(
          {{"row", check.claim.row},
           {"direction", check.claim.direction == ClaimDirection::kBelow
                             ? "below"
                             : "above"},
           {"than_row", check.claim.than_row},
           {"column", check.claim.column},
           {"source", check.claim.source},
           {"beyond_paper", check.claim.beyond_paper()},
           {"statement", check.statement},
           {"label", ClaimLabel(check)},
           {"derived_task", check.derived_task},
           {"verdict", VerdictName(check.verdict)},
           {"not_testable_reason", check.not_testable_reason},
           {"seeds", check.seeds},
           {"than_seeds", check.than_seeds},
           {"runs", check.runs},
           {"than_runs", check.than_runs},
           {"collapsed", check.collapsed},
           {"than_collapsed", check.than_collapsed},
           {"difference", optional(check.difference)},
           {"bootstrap", bootstrap_json(check.bootstrap)},
           {"without_collapsed", bootstrap_json(check.without_collapsed)},
           {"p_value", optional(check.p_value)},
           {"holm_p_value", optional(check.holm_p_value)},
           {"family_size", check.family_size},
           {"detectable_effect", optional(check.detectable_effect)},
           {"equivalence_bound", optional(check.equivalence_bound)},
           {"paper_difference", optional(check.paper_difference)}});
    }
    tables.push_back({{"id", table.paper->id},
                      {"caption", table.paper->caption},
                      {"scale", table.scale},
                      {"row_header", table.paper->row_header},
                      {"columns", columns},
                      {"rows", rows},
                      {"claims", claims},
                      {"claims_method", table.claims_method},
                      {"has_compute", table.has_compute},
                      {"footnotes", table.footnotes},
                      {"sweeps", sweeps},
                      {"finetune_runs", table.finetune_runs},
                      {"cloze_runs", table.cloze_runs},
                      {"pretrain_runs", table.pretrain_runs}});
  }
  const Provenance& provenance = report.provenance;
  Json hashes = Json::array();
  for (const auto& [path, hash] : provenance.data_hashes) {
    hashes.push_back({{"path", path}, {"sha256", hash}});
  }
  Json json = {{"schema", 1},
               {"tables", tables},
               {"provenance",
                {{"generated_at", provenance.generated_at},
                 {"runs", provenance.runs},
                 {"scales", provenance.scales},
                 {"experiments", provenance.experiments},
                 {"code_versions", provenance.code_versions},
                 {"data_hashes", hashes}}}};
  return json.dump(2) + "\n";
}

std::string ToSvg(const TableReport& table) {
  if (table.panels.empty()) return "";
  constexpr double kPanelWidth = 340;
  constexpr double kPanelHeight = 260;
  constexpr double kLeft = 56, kRight = 16, kTop = 40, kBottom = 48;
  constexpr double kTitleHeight = 28;
  static const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                        "#9467bd", "#ff7f0e", "#8c564b",
                                        "#e377c2", "#17becf"};
  constexpr int kNumColors = sizeof(kColors) / sizeof(kColors[0]);

  // Legend: every row that appears in some panel, in row order.
  std::vector<std::string> legend_keys;
  std::vector<std::string> legend_names;
  for (const ReportRow& row : table.rows) {
    for (const SweepPanel& panel : table.panels) {
      bool found = false;
      for (const SweepSeries& series : panel.series) {
        found |= series.row_key == row.key;
      }
      if (found) {
        legend_keys.push_back(row.key);
        legend_names.push_back(row.display);
        break;
      }
    }
  }
  auto color_of = [&](const std::string& key) {
    const auto it = std::find(legend_keys.begin(), legend_keys.end(), key);
    return kColors[(it - legend_keys.begin()) % kNumColors];
  };

  const double width = kPanelWidth * table.panels.size();
  const double legend_height = 20.0 * legend_keys.size() + 10;
  const double height = kTitleHeight + kPanelHeight + legend_height;
  auto num = [](double value) { return absl::StrFormat("%.2f", value); };

  std::string out = absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", num(width),
      "\" height=\"", num(height), "\" viewBox=\"0 0 ", num(width), " ",
      num(height), "\" font-family=\"sans-serif\" font-size=\"11\">\n");
  absl::StrAppend(&out, "<rect width=\"", num(width), "\" height=\"",
                  num(height), "\" fill=\"white\"/>\n");
  absl::StrAppend(&out, "<text x=\"8\" y=\"18\" font-size=\"13\">",
                  EscapeXml(absl::StrCat(
                      table.paper->id, ": dev score against learning rate",
                      table.scale.empty() ? "" : " (scale " + table.scale + ")",
                      "; dots = restarts, line = mean, ring = selected")),
                  "</text>\n");

  for (size_t p = 0; p < table.panels.size(); ++p) {
    const SweepPanel& panel = table.panels[p];
    const double x0 = kPanelWidth * p + kLeft;
    const double x1 = kPanelWidth * (p + 1) - kRight;
    const double y0 = kTitleHeight + kTop;                    // top
    const double y1 = kTitleHeight + kPanelHeight - kBottom;  // bottom
    double lr_min = std::numeric_limits<double>::infinity();
    double lr_max = -lr_min, v_min = lr_min, v_max = -lr_min;
    std::set<double> learning_rates;
    for (const SweepSeries& series : panel.series) {
      for (const LearningRatePoint& point : series.selection.sweep) {
        learning_rates.insert(point.learning_rate);
        lr_min = std::min(lr_min, std::log10(point.learning_rate));
        lr_max = std::max(lr_max, std::log10(point.learning_rate));
        for (double value : point.values) {
          v_min = std::min(v_min, value);
          v_max = std::max(v_max, value);
        }
      }
    }
    if (lr_max - lr_min < 1e-9) {
      lr_min -= 0.5;
      lr_max += 0.5;
    } else {
      const double pad = 0.08 * (lr_max - lr_min);
      lr_min -= pad;
      lr_max += pad;
    }
    if (v_max - v_min < 1e-9) {
      v_min -= 1;
      v_max += 1;
    } else {
      const double pad = 0.08 * (v_max - v_min);
      v_min -= pad;
      v_max += pad;
    }
    auto sx = [&](double learning_rate) {
      return x0 + (std::log10(learning_rate) - lr_min) / (lr_max - lr_min) *
                      (x1 - x0);
    };
    auto sy = [&](double value) {
      return y1 - (value - v_min) / (v_max - v_min) * (y1 - y0);
    };
    absl::StrAppend(&out, "<g>\n<text x=\"", num((x0 + x1) / 2), "\" y=\"",
                    num(y0 - 12), "\" text-anchor=\"middle\" font-size=\"12\">",
                    EscapeXml(panel.title), "</text>\n");
    // Axes.
    absl::StrAppend(&out, "<line x1=\"", num(x0), "\" y1=\"", num(y1),
                    "\" x2=\"", num(x1), "\" y2=\"", num(y1),
                    "\" stroke=\"black\"/>\n");
    absl::StrAppend(&out, "<line x1=\"", num(x0), "\" y1=\"", num(y0),
                    "\" x2=\"", num(x0), "\" y2=\"", num(y1),
                    "\" stroke=\"black\"/>\n");
    for (double learning_rate : learning_rates) {
      const double x = sx(learning_rate);
      absl::StrAppend(&out, "<line x1=\"", num(x), "\" y1=\"", num(y1),
                      "\" x2=\"", num(x), "\" y2=\"", num(y1 + 4),
                      "\" stroke=\"black\"/>\n");
      absl::StrAppend(&out, "<text x=\"", num(x), "\" y=\"", num(y1 + 16),
                      "\" text-anchor=\"middle\">",
                      EscapeXml(FormatLearningRate(learning_rate)),
                      "</text>\n");
    }
    for (int tick = 0; tick <= 4; ++tick) {
      const double value = v_min + (v_max - v_min) * tick / 4.0;
      const double y = sy(value);
      absl::StrAppend(&out, "<line x1=\"", num(x0 - 4), "\" y1=\"", num(y),
                      "\" x2=\"", num(x0), "\" y2=\"", num(y),
                      "\" stroke=\"black\"/>\n");
      absl::StrAppend(&out, "<text x=\"", num(x0 - 6), "\" y=\"", num(y + 4),
                      "\" text-anchor=\"end\">", FormatNumber(value, 1),
                      "</text>\n");
    }
    absl::StrAppend(&out, "<text x=\"", num((x0 + x1) / 2), "\" y=\"",
                    num(y1 + 34),
                    "\" text-anchor=\"middle\">learning rate (log "
                    "scale)</text>\n");
    absl::StrAppend(&out, "<text transform=\"translate(", num(x0 - 42), ",",
                    num((y0 + y1) / 2),
                    ") rotate(-90)\" text-anchor=\"middle\">",
                    EscapeXml(panel.metric), "</text>\n");
    // Data.
    for (const SweepSeries& series : panel.series) {
      const char* color = color_of(series.row_key);
      std::vector<std::string> points;
      for (const LearningRatePoint& point : series.selection.sweep) {
        points.push_back(absl::StrCat(num(sx(point.learning_rate)), ",",
                                      num(sy(point.mean))));
        for (double value : point.values) {
          absl::StrAppend(&out, "<circle cx=\"", num(sx(point.learning_rate)),
                          "\" cy=\"", num(sy(value)), "\" r=\"3\" fill=\"",
                          color, "\" fill-opacity=\"0.5\"/>\n");
        }
      }
      absl::StrAppend(&out, "<polyline points=\"", absl::StrJoin(points, " "),
                      "\" fill=\"none\" stroke=\"", color,
                      "\" stroke-width=\"1.5\"/>\n");
      const LearningRatePoint& best = series.selection.selected();
      absl::StrAppend(&out, "<circle cx=\"", num(sx(best.learning_rate)),
                      "\" cy=\"", num(sy(best.mean)),
                      "\" r=\"6\" fill=\"none\" stroke=\"", color,
                      "\" stroke-width=\"1.5\"/>\n");
    }
    absl::StrAppend(&out, "</g>\n");
  }
  for (size_t i = 0; i < legend_keys.size(); ++i) {
    const double y = kTitleHeight + kPanelHeight + 20.0 * i + 6;
    absl::StrAppend(&out, "<rect x=\"", num(kLeft), "\" y=\"", num(y),
                    "\" width=\"12\" height=\"12\" fill=\"",
                    color_of(legend_keys[i]), "\"/>\n");
    absl::StrAppend(&out, "<text x=\"", num(kLeft + 18), "\" y=\"", num(y + 10),
                    "\">", EscapeXml(legend_names[i]), "</text>\n");
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

}  // namespace reports
}  // namespace bertlab
