// The whole report from a runs directory, for the command line
// (//reports:render) and for the experiment runner after its runs:
//
//   RenderOptions options;
//   options.generated_at = "2024-05-01T12:00:00Z";  // or empty: now (UTC)
//   ASSIGN_OR_RETURN(RenderResult result,
//                    RenderReport(runs_dir, runs_dir + "/report", options));
//
// Writes report.md, report.csv, report.tex, report.json, report.html
// (report_html.h: the page with the tables and every plot) and, per table
// with fine-tuning runs, TABLE_lr_sweep.svg, as one set: into a staging
// directory beside output_dir that then replaces it in one rename, so the
// directory never holds files of two renders (a full disk or a kill leaves
// the previous report whole; the next render removes the staging
// directory). An output_dir holding other files is refused.
#ifndef BERTLAB_REPORTS_RENDER_H_
#define BERTLAB_REPORTS_RENDER_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace bertlab {
namespace reports {

struct RenderOptions {
  std::string table;         // "table5"...; empty: the tables in the records
  std::string scale;         // kScaleNames; empty: all
  std::string generated_at;  // date line; empty: the current UTC time
  std::vector<std::string> rows;  // only these variants' rows (ReportOptions)
  // Non-empty: only the records of these runs (the runner's own, so that a
  // record an earlier version or config left in the directory is not mixed
  // in); the others are counted in RenderResult.records_left_out.
  std::set<std::string> run_ids;
};

struct RenderResult {
  std::string markdown;                    // what report.md holds
  std::vector<std::string> written_files;  // full paths, in write order
  int64_t records_left_out = 0;            // not in RenderOptions.run_ids
};

absl::StatusOr<RenderResult> RenderReport(const std::string& runs_dir,
                                          const std::string& output_dir,
                                          const RenderOptions& options);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_RENDER_H_
