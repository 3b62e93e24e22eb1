#include "reports/render.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "reports/report.h"
#include "reports/report_html.h"
#include "reports/report_writers.h"
#include "reports/run_records.h"

namespace bertlab {
namespace reports {

absl::StatusOr<RenderResult> RenderReport(const std::string& runs_dir,
                                          const std::string& output_dir,
                                          const RenderOptions& options) {
  ASSIGN_OR_RETURN(std::vector<RunRecord> records, LoadRunRecords(runs_dir));
  int64_t left_out = 0;
  if (!options.run_ids.empty()) {
    std::vector<RunRecord> own;
    for (RunRecord& record : records) {
      if (options.run_ids.count(record.run_id) > 0) {
        own.push_back(std::move(record));
      } else {
        ++left_out;
      }
    }
    records = std::move(own);
  }
  ReportOptions report_options;
  report_options.table = options.table;
  report_options.scale = options.scale;
  report_options.rows = options.rows;
  report_options.generated_at =
      options.generated_at.empty()
          ? absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                             absl::UTCTimeZone())
          : options.generated_at;
  ASSIGN_OR_RETURN(const Report report, BuildReport(records, report_options),
                   _.Prepend(runs_dir, ": "));

  std::error_code error;
  std::filesystem::create_directories(output_dir, error);
  if (error) {
    return absl::InternalError(absl::StrCat("cannot create output directory ",
                                            output_dir, ": ", error.message()));
  }
  RenderResult result;
  result.records_left_out = left_out;
  result.markdown = ToMarkdown(report);
  std::vector<std::pair<std::string, std::string>> files = {
      {"report.md", result.markdown},
      {"report.csv", ToCsv(report)},
      {"report.tex", ToLatex(report)},
      {"report.json", ToJson(report)},
      {"report.html", ToHtml(report, CollectCurves(report, records))},
  };
  for (const TableReport& table : report.tables) {
    std::string svg = ToSvg(table);
    if (!svg.empty()) {
      files.emplace_back(absl::StrCat(table.paper->id, "_lr_sweep.svg"),
                         std::move(svg));
    }
  }
  for (const auto& [name, contents] : files) {
    const std::string path = absl::StrCat(output_dir, "/", name);
    RETURN_IF_ERROR(WriteFileAtomically(path, contents));
    result.written_files.push_back(path);
  }
  return result;
}

}  // namespace reports
}  // namespace bertlab
