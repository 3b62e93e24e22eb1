// report.html: the report as one self-contained page a person would rather
// read than the Markdown: per table the verdicts, the results table, the
// learning-rate sweep plot (ToSvg, inlined), the pre-training curves of every
// variant (held-out LM perplexity against step, log scale) and the spread of
// restarts in each cell. Inline CSS and inline SVG only: no script, no
// external URL, no web font, so it opens offline and archives as one file.
//
//   ASSIGN_OR_RETURN(const Report report, BuildReport(records, options));
//   const std::string html =
//       ToHtml(report, CollectCurves(report, records));
//
// Like report_writers.h, a pure function of its inputs: the same records
// give byte-identical pages. Elements a test or a reader's tool may look for
// (TABLE is the paper table's id, "table5"):
//   <section class="table-report" id="section-TABLE">
//   <table class="results" id="TABLE">: a header row, then one
//       <tr class="variant" data-variant="KEY"> per row of the report
//   <svg class="sweep" id="TABLE-sweep">     (ToSvg's plot, when it has one)
//   <svg class="curves" id="TABLE-curves">   (when the table has curves)
//   <svg class="spread" data-column="KEY">   (one per fine-tuning column)
#ifndef BERTLAB_REPORTS_REPORT_HTML_H_
#define BERTLAB_REPORTS_REPORT_HTML_H_

#include <string>
#include <vector>

#include "reports/report.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {

// One pre-training run's held-out curve.
struct VariantCurve {
  std::string variant;  // the row key
  std::string display;  // the row's display name (with the run id when a
                        // row has more than one pre-training record)
  int row_index = 0;    // index into TableReport::rows (its colour)
  // Which perplexity the points are: "masked LM" when the record's metrics
  // hold mlm_perplexity, "LM" (left-to-right / right-to-left) when they hold
  // lm_perplexity, else empty.
  std::string objective;
  std::vector<EvalPoint> points;  // steps rising (ParseRunRecord checks it)
};

struct TableCurves {
  std::string table;                 // TableReport::paper->id
  std::vector<VariantCurve> curves;  // row order, then run id
};

// The curves of the pre-training records behind each table of `report`, as
// BuildReport selected them: records of that table and of the table's scale
// whose variant is one of its rows (so --table, --scale and --rows filter
// the curves as they filter the table). Records with an empty eval_curve
// are left out. One TableCurves per table of the report, in its order.
std::vector<TableCurves> CollectCurves(const Report& report,
                                       const std::vector<RunRecord>& records);

// The page. `curves` as CollectCurves returns them; a table without an entry
// (or with no curves) shows a note instead of the chart.
std::string ToHtml(const Report& report,
                   const std::vector<TableCurves>& curves);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_REPORT_HTML_H_
