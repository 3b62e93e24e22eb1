#include "reports/report_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "common/check.h"
#include "reports/claims.h"
#include "reports/report_writers.h"
#include "reports/svg_chart.h"

namespace bertlab {
namespace reports {
namespace {

using svg::AppendXAxis;
using svg::AppendYAxis;
using svg::Frame;
using svg::PaddedRange;
using svg::Scale;
using svg::SeriesColor;
using svg::SvgNumber;

// System fonts only: nothing is fetched when the page opens.
constexpr absl::string_view kStyle = R"css(
body { font-family: system-ui, "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
  margin: 2em auto; max-width: 78em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2.5em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-top: 1.6em; }
nav ul { padding-left: 1.2em; }
div.scroll { overflow-x: auto; }
table.results { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
table.results th, table.results td { border: 1px solid #ccc; padding: 0.35em 0.6em; vertical-align: top; }
table.results thead th { background: #f2f2f2; text-align: center; }
table.results tbody th { text-align: left; white-space: nowrap; }
table.results tr.extra th { font-style: italic; }
td.cell { text-align: right; white-space: nowrap; }
td.cell .ours { font-weight: 600; font-size: 1.05em; }
td.cell .paper, td.cell .meta { display: block; color: #666; font-size: 0.85em; }
td.na .ours { color: #999; font-weight: normal; }
tr.trivial th, tr.trivial td { background: #f7f7f7; color: #555; }
.edge-marker { color: #b54708; }
.tag { font-size: 0.75em; color: #666; font-weight: normal; }
table.claims, table.compute { border-collapse: collapse; margin: 0.8em 0; font-size: 0.88em; }
table.claims th, table.claims td, table.compute th, table.compute td { border: 1px solid #ddd; padding: 0.25em 0.5em; }
table.compute caption { caption-side: top; text-align: left; color: #444; padding-bottom: 0.3em; }
td.num { text-align: right; white-space: nowrap; }
.verdict { font-weight: 600; padding: 0.1em 0.4em; border-radius: 0.3em; }
.verdict.reproduced { background: #dcfce7; color: #14532d; }
.verdict.contradicted { background: #fee2e2; color: #7f1d1d; }
.verdict.inconclusive, .verdict.too-few-restarts { background: #fef9c3; color: #713f12; }
p.summary { font-weight: 600; }
th.derived, td.derived { background: #fff8e6; }
.better { color: #1a7f37; } .worse { color: #b42318; }
ul.footnotes { font-size: 0.9em; color: #444; }
p.note { font-size: 0.9em; color: #444; }
figure { margin: 1em 0; overflow-x: auto; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.3em; }
footer.provenance { margin-top: 3em; font-size: 0.85em; color: #555; border-top: 1px solid #ccc; }
footer.provenance code { word-break: break-all; }
)css";

std::string Text(absl::string_view text) { return EscapeXml(text); }

std::string FormatLearningRate(double learning_rate) {
  return absl::StrFormat("%g", learning_rate);
}

// "better" / "worse" than the paper in the column's direction; "" for none.
std::string DiffClass(const ReportCell& cell, const ReportColumn& column,
                      int decimals) {
  if (!cell.diff.has_value()) return "";
  if (FormatNumber(*cell.diff, decimals).find_first_not_of("-0.") ==
      std::string::npos) {
    return "";
  }
  const bool better =
      column.paper.higher_is_better ? *cell.diff > 0 : *cell.diff < 0;
  return better ? "better" : "worse";
}

void AppendCell(const ReportRow& row, const ReportCell& cell,
                const ReportColumn& column, std::string& out) {
  const int decimals = column.paper.decimals;
  std::vector<std::string> classes = {"cell"};
  if (!cell.has_value) classes.push_back("na");
  if (cell.derived) classes.push_back("derived");
  if (cell.learning_rate_at_grid_edge) classes.push_back("grid-edge");
  absl::StrAppend(&out, "<td class=\"", absl::StrJoin(classes, " "),
                  "\" data-column=\"", Text(column.paper.key), "\">");
  std::string ours = "n/a";
  if (cell.has_value) {
    ours = FormatNumber(cell.mean, decimals);
    if (cell.runs > 1) {
      absl::StrAppend(&ours, " ± ", FormatNumber(cell.std, decimals));
    }
  }
  absl::StrAppend(&out, "<span class=\"ours\">", Text(ours));
  if (cell.learning_rate_at_grid_edge) {
    std::vector<std::string> grid;
    for (const double rate : cell.learning_rate_grid) {
      grid.push_back(FormatLearningRate(rate));
    }
    absl::StrAppend(
        &out, "<span class=\"edge-marker\" title=\"",
        Text(absl::StrCat(
            "learning rate ", FormatLearningRate(cell.learning_rate),
            " is at the edge of its grid (", absl::StrJoin(grid, ", "), ")")),
        "\">", kGridEdgeMarker, "</span>");
  }
  absl::StrAppend(&out, "</span>");
  absl::StrAppend(
      &out, "<span class=\"paper\">paper ",
      cell.paper.has_value() ? FormatNumber(*cell.paper, decimals) : "–");
  if (cell.diff.has_value()) {
    const std::string diff_class = DiffClass(cell, column, decimals);
    absl::StrAppend(&out, ", <span class=\"diff",
                    diff_class.empty() ? "" : " " + diff_class, "\">",
                    FormatDiff(*cell.diff, decimals), "</span>");
  }
  absl::StrAppend(&out, "</span>");
  if (cell.has_value) {
    std::vector<std::string> meta;
    if (row.trivial_predictor) {
      if (row.key == kTrivialPredictorRowKey &&
          !column.trivial_predictor.empty()) {
        meta.push_back(column.trivial_predictor);
      }
    } else if (cell.runs > 0) {
      if (cell.runs > 1) {
        meta.push_back(
            absl::StrCat("median ", FormatNumber(cell.median, decimals)));
      }
      meta.push_back(absl::StrCat("n = ", FormatCellCount(cell)));
    } else {
      meta.push_back("mean of the columns");
    }
    if (cell.learning_rate > 0) {
      meta.push_back(
          absl::StrCat("lr ", FormatLearningRate(cell.learning_rate)));
    }
    if (cell.derived && !cell.source_task.empty()) {
      meta.push_back(absl::StrCat("task ", cell.source_task));
    }
    if (!meta.empty()) {
      absl::StrAppend(&out, "<span class=\"meta\">",
                      Text(absl::StrJoin(meta, " · ")), "</span>");
    }
  }
  absl::StrAppend(&out, "</td>");
}

// The paper's claims with our verdicts: what a reader wants first.
void AppendVerdicts(const TableReport& table, std::string& out) {
  if (table.claims.empty()) return;
  const std::string& id = table.paper->id;
  std::map<std::string, int> counts;
  std::vector<std::string> not_measured;
  for (const ClaimCheck& check : table.claims) {
    ++counts[VerdictName(check.verdict)];
    if (check.verdict == Verdict::kNotMeasured) {
      not_measured.push_back(ClaimLabel(check));
    }
  }
  std::vector<std::string> summary;
  for (const Verdict verdict :
       {Verdict::kReproduced, Verdict::kContradicted, Verdict::kInconclusive,
        Verdict::kNotTestable, Verdict::kTooFewRuns, Verdict::kNotMeasured}) {
    const auto it = counts.find(VerdictName(verdict));
    if (it != counts.end()) {
      summary.push_back(absl::StrCat(it->second, " ", it->first));
    }
  }
  absl::StrAppend(&out, "<section class=\"verdicts\" id=\"", Text(id),
                  "-verdicts\">\n<h3>Verdicts on the paper's claims</h3>\n",
                  "<p class=\"summary\">", table.claims.size(),
                  " claim(s): ", Text(absl::StrJoin(summary, ", ")), ".</p>\n");
  for (const bool beyond_paper : {false, true}) {
    std::string rows;
    for (const ClaimCheck& check : table.claims) {
      if (check.verdict == Verdict::kNotMeasured ||
          check.claim.beyond_paper() != beyond_paper) {
        continue;
      }
      int decimals = 1;
      for (const ReportColumn& column : table.columns) {
        if (column.paper.key == check.claim.column) {
          decimals = column.paper.decimals;
        }
      }
      const std::vector<std::string> cells = ClaimCells(check, decimals);
      std::string verdict_class = cells[3];
      std::replace(verdict_class.begin(), verdict_class.end(), ' ', '-');
      absl::StrAppend(
          &rows, "<tr class=\"claim ", verdict_class, "\"><td>", Text(cells[0]),
          beyond_paper ? ""
                       : absl::StrCat(" <span class=\"meta\">",
                                      Text(check.claim.source), "</span>"),
          "</td>");
      for (size_t i = 1; i < cells.size(); ++i) {
        absl::StrAppend(
            &rows,
            i == 3 ? absl::StrCat("<td><span class=\"verdict ", verdict_class,
                                  "\">", Text(cells[i]), "</span></td>")
                   : absl::StrCat(i == cells.size() - 1 ? "<td class=\"note\">"
                                                        : "<td class=\"num\">",
                                  Text(cells[i]), "</td>"));
      }
      absl::StrAppend(&rows, "</tr>\n");
    }
    if (rows.empty()) continue;
    absl::StrAppend(&out, "<h4>",
                    beyond_paper ? "Beyond the paper: each pre-trained row "
                                   "above the no-pre-training control (the "
                                   "gate of the paper's claims)"
                                 : "The paper's claims",
                    "</h4>\n<table class=\"claims\" id=\"", Text(id),
                    beyond_paper ? "-control-claims" : "-claims",
                    "\">\n<thead>\n<tr>");
    for (const char* header : kClaimHeaders) {
      absl::StrAppend(&out, "<th scope=\"col\">", Text(header), "</th>");
    }
    absl::StrAppend(&out, "</tr>\n</thead>\n<tbody>\n", rows,
                    "</tbody>\n</table>\n");
  }
  if (!not_measured.empty()) {
    absl::StrAppend(&out,
                    "<p class=\"note\">Claims not measured (a cell without "
                    "runs): ",
                    Text(absl::StrJoin(not_measured, "; ")), ".</p>\n");
  }
  if (!table.claims_method.empty()) {
    absl::StrAppend(&out, "<p class=\"note\">", Text(table.claims_method),
                    "</p>\n");
  }
  absl::StrAppend(&out, "</section>\n");
}

// Each row's pre-training compute: rows are compared at equal steps.
void AppendCompute(const TableReport& table, std::string& out) {
  if (!table.has_compute) return;
  absl::StrAppend(&out, "<table class=\"compute\" id=\"", Text(table.paper->id),
                  "-compute\">\n<caption>Pre-training compute (rows compared "
                  "at equal steps; — = no pre-training record of the row's "
                  "own)</caption>\n<thead>\n<tr><th scope=\"col\">Row</th>"
                  "<th scope=\"col\">Steps</th><th scope=\"col\">Tokens</th>"
                  "<th scope=\"col\">Predicted positions</th><th "
                  "scope=\"col\">FLOPs</th>"
                  "<th scope=\"col\">Held-out LM ppl (unigram)</th></tr>\n"
                  "</thead>\n<tbody>\n");
  for (const ReportRow& row : table.rows) {
    if (row.trivial_predictor) continue;
    absl::StrAppend(&out, "<tr data-variant=\"", Text(row.key),
                    "\"><th scope=\"row\">", Text(row.display), "</th>");
    if (!row.compute.has_value()) {
      absl::StrAppend(&out,
                      "<td>—</td><td>—</td><td>—</td><td>—</td><td>—</td>"
                      "</tr>\n");
      continue;
    }
    const PretrainingCompute& compute = *row.compute;
    absl::StrAppend(
        &out, "<td class=\"num\">", compute.steps, "</td><td class=\"num\">",
        FormatCount(compute.tokens), "</td><td class=\"num\">",
        FormatCount(compute.predicted_positions), "</td><td class=\"num\">",
        FormatFlops(compute.flops), "</td><td class=\"num\">",
        FormatHeldOut(row.outcome), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</tbody>\n</table>\n");
}

void AppendResultsTable(const TableReport& table, std::string& out) {
  const std::string& id = table.paper->id;
  absl::StrAppend(&out,
                  "<div class=\"scroll\">\n<table class=\"results\" id=\"",
                  Text(id), "\">\n<thead>\n<tr><th scope=\"col\">",
                  Text(table.paper->row_header), "</th>");
  for (const ReportColumn& column : table.columns) {
    absl::StrAppend(&out, "<th scope=\"col\"",
                    column.derived ? " class=\"derived\"" : "",
                    " data-column=\"", Text(column.paper.key), "\">",
                    Text(column.header), "</th>");
  }
  absl::StrAppend(&out, "</tr>\n</thead>\n<tbody>\n");
  for (const ReportRow& row : table.rows) {
    const char* row_class = row.trivial_predictor ? "trivial"
                            : row.in_paper        ? "variant"
                                                  : "variant extra";
    absl::StrAppend(&out, "<tr class=\"", row_class, "\" data-variant=\"",
                    Text(row.key), "\"><th scope=\"row\">", Text(row.display),
                    row.in_paper || row.trivial_predictor
                        ? ""
                        : " <span class=\"tag\">not in the paper</span>",
                    "</th>");
    for (size_t c = 0; c < table.columns.size(); ++c) {
      AppendCell(row, row.cells[c], table.columns[c], out);
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody>\n</table>\n</div>\n");
  absl::StrAppend(
      &out,
      "<p class=\"note\">Cells: ours (mean ± sample std over restarts at the "
      "learning rate ",
      Text(CellRateSelection(table)),
      "; the mean alone for one restart), the paper's number and ours minus "
      "the paper's "
      "(<span class=\"better\">better</span> / <span "
      "class=\"worse\">worse</span> than the paper in the column's "
      "direction; no difference for a derived stand-in task), then the "
      "median and n (restarts, or pre-training records) and the selected "
      "learning rate; ",
      kGridEdgeMarker,
      " = the selected learning rate is at the edge of its grid. Shaded "
      "columns were measured on a derived stand-in task.</p>\n");
  AppendCompute(table, out);
  if (!table.footnotes.empty()) {
    absl::StrAppend(&out, "<ul class=\"footnotes\">\n");
    for (const std::string& note : table.footnotes) {
      absl::StrAppend(&out, "<li>", Text(note), "</li>\n");
    }
    absl::StrAppend(&out, "</ul>\n");
  }
}

// ToSvg's document as an element of the page: without the XML declaration
// (which HTML parses as a bogus comment) and with the class and id.
std::string InlineSweep(const TableReport& table) {
  std::string svg = ToSvg(table);
  if (svg.empty()) return svg;
  if (absl::StartsWith(svg, "<?xml")) svg.erase(0, svg.find('\n') + 1);
  CHECK(absl::StartsWith(svg, "<svg ")) << svg.substr(0, 40);
  svg.insert(4, absl::StrCat(" class=\"sweep\" id=\"", Text(table.paper->id),
                             "-sweep\" role=\"img\""));
  return svg;
}

std::string OpenSvg(absl::string_view classes, absl::string_view id_attribute,
                    double width, double height, absl::string_view label) {
  return absl::StrCat(
      "<svg class=\"", classes, "\"", id_attribute,
      " xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"",
      SvgNumber(width), "\" height=\"", SvgNumber(height), "\" viewBox=\"0 0 ",
      SvgNumber(width), " ", SvgNumber(height),
      "\" font-family=\"sans-serif\" font-size=\"11\">\n<title>", Text(label),
      "</title>\n<rect width=\"", SvgNumber(width), "\" height=\"",
      SvgNumber(height), "\" fill=\"white\"/>\n");
}

void AppendCurves(const TableReport& table, const TableCurves* curves,
                  std::string& out) {
  absl::StrAppend(&out, "<h3>Pre-training curves</h3>\n");
  if (curves == nullptr || curves->curves.empty()) {
    absl::StrAppend(&out,
                    "<p class=\"note\">No pre-training record of this table "
                    "has held-out evaluations (eval_curve).</p>\n");
    return;
  }
  constexpr double kWidth = 640, kPlotHeight = 300;
  constexpr double kLegendRow = 18;
  const Frame frame{64, 36, kWidth - 20, kPlotHeight - 46};
  std::vector<double> steps = {0};
  std::vector<double> perplexities;
  std::vector<std::string> objectives;
  for (const VariantCurve& curve : curves->curves) {
    for (const EvalPoint& point : curve.points) {
      steps.push_back(static_cast<double>(point.step));
      perplexities.push_back(point.perplexity);
    }
    if (std::find(objectives.begin(), objectives.end(), curve.objective) ==
        objectives.end()) {
      objectives.push_back(curve.objective);
    }
  }
  const Scale x =
      Scale::Linear(PaddedRange(steps, 0.02, false), frame.left, frame.right);
  const Scale y = Scale::Log(PaddedRange(perplexities, 0.05, true),
                             frame.bottom, frame.top);
  const double height = kPlotHeight + kLegendRow * curves->curves.size() + 10;
  const std::string title =
      absl::StrCat(table.paper->id, ": held-out perplexity against step",
                   table.scale.empty() ? "" : " (scale " + table.scale + ")");
  absl::StrAppend(
      &out, "<figure>\n",
      OpenSvg("curves",
              absl::StrCat(" id=\"", Text(table.paper->id), "-curves\""),
              kWidth, height, title));
  absl::StrAppend(&out, "<text x=\"8\" y=\"18\" font-size=\"13\">", Text(title),
                  "</text>\n");
  AppendXAxis(frame, x, x.Ticks(6), "pre-training step", out);
  AppendYAxis(frame, y, y.Ticks(5), "held-out perplexity (log scale)", out);
  for (size_t i = 0; i < curves->curves.size(); ++i) {
    const VariantCurve& curve = curves->curves[i];
    const char* color = SeriesColor(curve.row_index);
    std::vector<std::string> path;
    for (const EvalPoint& point : curve.points) {
      path.push_back(absl::StrCat(path.empty() ? "M" : "L",
                                  SvgNumber(x(static_cast<double>(point.step))),
                                  ",", SvgNumber(y(point.perplexity))));
    }
    absl::StrAppend(&out, "<g class=\"series\" data-variant=\"",
                    Text(curve.variant), "\">\n<path d=\"",
                    absl::StrJoin(path, " "), "\" fill=\"none\" stroke=\"",
                    color, "\" stroke-width=\"1.8\"/>\n");
    for (const EvalPoint& point : curve.points) {
      absl::StrAppend(
          &out, "<circle cx=\"", SvgNumber(x(static_cast<double>(point.step))),
          "\" cy=\"", SvgNumber(y(point.perplexity)), "\" r=\"2.5\" fill=\"",
          color, "\"><title>",
          Text(absl::StrCat(curve.display, ": step ", point.step,
                            ", perplexity ", FormatNumber(point.perplexity, 2),
                            ", accuracy ", FormatNumber(point.accuracy, 1),
                            "%")),
          "</title></circle>\n");
    }
    absl::StrAppend(&out, "</g>\n");
    const double legend_y = kPlotHeight + kLegendRow * i;
    absl::StrAppend(&out, "<rect x=\"", SvgNumber(frame.left), "\" y=\"",
                    SvgNumber(legend_y),
                    "\" width=\"12\" height=\"12\" fill=\"", color,
                    "\"/>\n<text x=\"", SvgNumber(frame.left + 18), "\" y=\"",
                    SvgNumber(legend_y + 10), "\">",
                    Text(curve.objective.empty()
                             ? curve.display
                             : absl::StrCat(curve.display, " (",
                                            curve.objective, " perplexity)")),
                    "</text>\n");
  }
  absl::StrAppend(&out,
                  "</svg>\n<figcaption>Held-out perplexity of each "
                  "variant's pre-training objective at every "
                  "evaluation (log scale).");
  if (objectives.size() > 1) {
    absl::StrAppend(&out,
                    " A masked LM predicts 15% of the tokens from both sides, "
                    "a left-to-right or right-to-left LM every token from one "
                    "side: their perplexities measure different tasks and are "
                    "not comparable with each other.");
  }
  absl::StrAppend(&out, "</figcaption>\n</figure>\n");
}

// One strip per row: every restart at the selected learning rate.
void AppendSpread(const TableReport& table, const SweepPanel& panel,
                  std::string& out) {
  // Each strip's label sits above it, so long row names need no margin.
  constexpr double kWidth = 560, kRowHeight = 40;
  constexpr double kLeft = 24, kTop = 44, kBottom = 44;
  const double height = kTop + kRowHeight * panel.series.size() + kBottom;
  const Frame frame{kLeft, kTop, kWidth - 20,
                    kTop + kRowHeight * panel.series.size()};
  std::vector<double> values;
  for (const SweepSeries& series : panel.series) {
    for (double value : series.selection.selected().values) {
      values.push_back(value);
    }
  }
  // The trivial predictor's score, what every dot must beat.
  std::optional<double> trivial;
  for (const ReportRow& row : table.rows) {
    if (row.key != kTrivialPredictorRowKey) continue;
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (table.columns[c].paper.key == panel.column_key &&
          row.cells[c].has_value) {
        trivial = row.cells[c].mean;
        values.push_back(*trivial);
      }
    }
  }
  const Scale x =
      Scale::Linear(PaddedRange(values, 0.08, false), frame.left, frame.right);
  const std::string title = absl::StrCat(
      panel.title, ": every restart at the selected learning rate");
  absl::StrAppend(&out, OpenSvg("spread",
                                absl::StrCat(" data-column=\"",
                                             Text(panel.column_key), "\""),
                                kWidth, height, title));
  absl::StrAppend(&out, "<text x=\"8\" y=\"18\" font-size=\"12\">", Text(title),
                  "</text>\n");
  AppendXAxis(frame, x, x.Ticks(5), panel.metric, out);
  if (trivial.has_value()) {
    const std::string at = SvgNumber(x(*trivial));
    absl::StrAppend(&out, "<g class=\"trivial\">\n<line x1=\"", at, "\" y1=\"",
                    SvgNumber(frame.top - 6), "\" x2=\"", at, "\" y2=\"",
                    SvgNumber(frame.bottom),
                    "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n<text x=\"",
                    at, "\" y=\"", SvgNumber(frame.top - 10),
                    "\" text-anchor=\"middle\" fill=\"#555\">trivial ",
                    Text(FormatNumber(*trivial, 1)), "</text>\n</g>\n");
  }
  for (size_t s = 0; s < panel.series.size(); ++s) {
    const SweepSeries& series = panel.series[s];
    int row_index = 0;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      if (table.rows[r].key == series.row_key) row_index = static_cast<int>(r);
    }
    const char* color = SeriesColor(row_index);
    const LearningRatePoint& point = series.selection.selected();
    const double center = kTop + kRowHeight * (s + 0.6);
    absl::StrAppend(
        &out, "<g class=\"series\" data-variant=\"", Text(series.row_key),
        "\">\n<line x1=\"", SvgNumber(frame.left), "\" y1=\"",
        SvgNumber(center), "\" x2=\"", SvgNumber(frame.right), "\" y2=\"",
        SvgNumber(center), "\" stroke=\"#eee\"/>\n<text x=\"",
        SvgNumber(frame.left), "\" y=\"", SvgNumber(center - 10),
        "\" fill=\"#333\">",
        Text(absl::StrCat(series.row_display, " (lr ",
                          FormatLearningRate(point.learning_rate), ")")),
        "</text>\n");
    for (size_t i = 0; i < point.values.size(); ++i) {
      // Restarts with equal scores would hide each other on one line; a
      // fixed offset per restart keeps them apart without randomness.
      const double offset = 3 + (static_cast<int>(i % 3) - 1) * 4.0;
      absl::StrAppend(
          &out, "<circle cx=\"", SvgNumber(x(point.values[i])), "\" cy=\"",
          SvgNumber(center + offset), "\" r=\"3.5\" fill=\"", color,
          "\" fill-opacity=\"0.7\"><title>",
          Text(absl::StrCat(series.row_display,
                            point.variants[i] == series.row_key
                                ? ""
                                : absl::StrCat(" [", point.variants[i], "]"),
                            ", restart ", point.restarts[i], ": ",
                            FormatNumber(point.values[i], 2))),
          "</title></circle>\n");
    }
    absl::StrAppend(
        &out, "<line class=\"mean\" x1=\"", SvgNumber(x(point.mean)),
        "\" y1=\"", SvgNumber(center - 10), "\" x2=\"",
        SvgNumber(x(point.mean)), "\" y2=\"", SvgNumber(center + 10),
        "\" stroke=\"black\" "
        "stroke-width=\"2\"/>\n</g>\n");
  }
  absl::StrAppend(&out, "</svg>\n");
}

void AppendProvenance(const Provenance& provenance, std::string& out) {
  absl::StrAppend(&out, "<footer class=\"provenance\">\n<h2>Provenance</h2>\n",
                  "<ul>\n<li>Generated: ", Text(provenance.generated_at),
                  "</li>\n<li>Runs: ", provenance.runs,
                  " (scale: ", Text(absl::StrJoin(provenance.scales, ", ")),
                  ")</li>\n<li>Experiments: ",
                  Text(absl::StrJoin(provenance.experiments, ", ")),
                  "</li>\n<li>Code versions: ",
                  Text(absl::StrJoin(provenance.code_versions, ", ")),
                  "</li>\n");
  if (provenance.data_hashes.empty()) {
    absl::StrAppend(&out, "<li>Data hashes: none recorded</li>\n");
  } else {
    absl::StrAppend(&out, "<li>Data hashes:<ul>\n");
    for (const auto& [path, hash] : provenance.data_hashes) {
      absl::StrAppend(&out, "<li><code>", Text(path), "</code>: <code>",
                      Text(hash), "</code></li>\n");
    }
    absl::StrAppend(&out, "</ul></li>\n");
  }
  absl::StrAppend(&out, "</ul>\n</footer>\n");
}

std::string TableTitle(const TableReport& table) {
  return absl::StrCat(
      table.paper->caption,
      table.scale.empty() ? "" : absl::StrCat(" Scale: ", table.scale, "."));
}

}  // namespace

std::vector<TableCurves> CollectCurves(const Report& report,
                                       const std::vector<RunRecord>& records) {
  std::vector<TableCurves> all;
  for (const TableReport& table : report.tables) {
    TableCurves table_curves;
    table_curves.table = table.paper->id;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      const ReportRow& row = table.rows[r];
      if (row.trivial_predictor) continue;
      std::vector<const RunRecord*> mine;
      for (const RunRecord& record : records) {
        if (record.kind != "pretrain" || record.table != table.paper->id ||
            record.row_key() != row.key || record.eval_curve.empty() ||
            (!table.scale.empty() && record.scale != table.scale)) {
          continue;
        }
        mine.push_back(&record);
      }
      std::stable_sort(mine.begin(), mine.end(),
                       [](const RunRecord* a, const RunRecord* b) {
                         return a->run_id < b->run_id;
                       });
      for (const RunRecord* record : mine) {
        VariantCurve curve;
        curve.variant = row.key;
        // Several curves of a row: its pre-training seeds by name, else
        // by run id.
        curve.display =
            mine.size() <= 1 ? row.display
            : record->variant != row.key
                ? absl::StrCat(row.display, " [", record->variant, "]")
                : absl::StrCat(row.display, " [run ", record->run_id, "]");
        curve.row_index = static_cast<int>(r);
        if (record->metrics.count("mlm_perplexity") > 0) {
          curve.objective = "masked LM";
        } else if (record->metrics.count("lm_perplexity") > 0) {
          curve.objective = "LM";
        }
        curve.points = record->eval_curve;
        table_curves.curves.push_back(std::move(curve));
      }
    }
    all.push_back(std::move(table_curves));
  }
  return all;
}

std::string ToHtml(const Report& report,
                   const std::vector<TableCurves>& curves) {
  std::map<std::string, const TableCurves*> curves_of;
  for (const TableCurves& table_curves : curves) {
    curves_of[table_curves.table] = &table_curves;
  }
  constexpr absl::string_view kTitle =
      "bertlab report: our dev results beside the paper's";
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>",
      Text(kTitle), "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n",
      "<header>\n<h1>", Text(kTitle), "</h1>\n");
  if (report.tables.size() > 1) {
    absl::StrAppend(&out, "<nav><ul>\n");
    for (const TableReport& table : report.tables) {
      absl::StrAppend(&out, "<li><a href=\"#section-", Text(table.paper->id),
                      "\">", Text(TableTitle(table)), "</a></li>\n");
    }
    absl::StrAppend(&out, "</ul></nav>\n");
  }
  absl::StrAppend(&out, "</header>\n<main>\n");
  for (const TableReport& table : report.tables) {
    const std::string& id = table.paper->id;
    absl::StrAppend(&out, "<section class=\"table-report\" id=\"section-",
                    Text(id), "\">\n<h2>", Text(TableTitle(table)), "</h2>\n");
    AppendVerdicts(table, out);
    AppendResultsTable(table, out);

    absl::StrAppend(&out, "<h3>Learning-rate sweeps</h3>\n");
    const std::string sweep = InlineSweep(table);
    if (sweep.empty()) {
      absl::StrAppend(&out,
                      "<p class=\"note\">No fine-tuning runs: nothing was "
                      "swept.</p>\n");
    } else {
      absl::StrAppend(&out, "<figure>\n", sweep,
                      "<figcaption>Dev score against learning rate (log "
                      "scale): a dot per restart, a line through the means, "
                      "the selected learning rate ringed.</figcaption>\n"
                      "</figure>\n");
    }

    const auto found = curves_of.find(id);
    AppendCurves(table, found == curves_of.end() ? nullptr : found->second,
                 out);

    absl::StrAppend(&out, "<h3>Spread of restarts</h3>\n");
    if (table.panels.empty()) {
      absl::StrAppend(&out,
                      "<p class=\"note\">No fine-tuning runs: no restarts to "
                      "show.</p>\n");
    } else {
      absl::StrAppend(&out, "<figure>\n");
      for (const SweepPanel& panel : table.panels) {
        AppendSpread(table, panel, out);
      }
      absl::StrAppend(&out,
                      "<figcaption>Each cell's restarts at its selected "
                      "learning rate: a dot per restart, a bar at their "
                      "mean (the number in the table).</figcaption>\n"
                      "</figure>\n");
    }
    absl::StrAppend(&out, "</section>\n");
  }
  absl::StrAppend(&out, "</main>\n");
  AppendProvenance(report.provenance, out);
  absl::StrAppend(&out, "</body>\n</html>\n");
  return out;
}

}  // namespace reports
}  // namespace bertlab
