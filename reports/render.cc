#include "reports/render.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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
namespace {

namespace fs = std::filesystem;

constexpr char kStagingInfix[] = ".staging-";

// What render writes: report.* and TABLE_lr_sweep.svg.
bool IsReportFile(const std::string& name) {
  return absl::StartsWith(name, "report.") ||
         absl::EndsWith(name, "_lr_sweep.svg");
}

absl::Status FilesystemError(absl::string_view what, const std::string& path,
                             const std::error_code& error) {
  return absl::InternalError(
      absl::StrCat("cannot ", what, " ", path, ": ", error.message()));
}

// Writes `files` as one set: into a staging directory beside output_dir,
// which then takes output_dir's place in one rename (renameat2's
// RENAME_EXCHANGE where output_dir exists), so a reader sees the old report
// or the new one, never a mix, and a full disk or a kill leaves the old one
// whole. Staging directories of killed renders are removed first. An
// output_dir with files render does not write is refused: it would be
// replaced as a whole.
absl::Status WriteReportSet(
    const std::string& output_dir,
    const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path target = fs::absolute(fs::path(output_dir)).lexically_normal();
  const fs::path parent = target.parent_path();
  const std::string base = target.filename().string();
  std::error_code error;
  fs::create_directories(parent, error);
  if (error)
    return FilesystemError("create output directory", output_dir, error);
  if (fs::exists(target, error)) {
    if (!fs::is_directory(target, error)) {
      return absl::FailedPreconditionError(
          absl::StrCat(output_dir, " is not a directory"));
    }
    for (const auto& entry : fs::directory_iterator(target, error)) {
      const std::string name = entry.path().filename().string();
      if (!IsReportFile(name) || !entry.is_regular_file()) {
        return absl::FailedPreconditionError(absl::StrCat(
            output_dir, " holds ", name,
            ", which is not a report's file: a report directory is replaced "
            "as a whole, so give an empty or report-only --output_dir"));
      }
    }
    if (error) return FilesystemError("list", target.string(), error);
  }
  // Left by a render that was killed (its process is gone); a live one's is
  // its own business.
  const std::string prefix = absl::StrCat(base, kStagingInfix);
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    if (!absl::StartsWith(name, prefix) ||
        !absl::SimpleAtoi(name.substr(prefix.size()), &pid)) {
      continue;
    }
    if (pid <= 0 || ::kill(pid, 0) != 0) fs::remove_all(entry.path(), error);
  }
  const fs::path staging =
      parent / absl::StrCat(base, kStagingInfix, ::getpid());
  fs::remove_all(staging, error);
  fs::create_directory(staging, error);
  if (error)
    return FilesystemError("create directory", staging.string(), error);
  const auto abandon = [&](absl::Status status) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return status;
  };
  for (const auto& [name, contents] : files) {
    const absl::Status written =
        WriteFileAtomically((staging / name).string(), contents);
    if (!written.ok()) return abandon(written);
  }
  if (!fs::exists(target, error)) {
    if (::rename(staging.c_str(), target.c_str()) != 0) {
      return abandon(absl::ErrnoToStatus(
          errno, absl::StrCat("cannot rename ", staging.string(), " to ",
                              target.string())));
    }
    return absl::OkStatus();
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(),
                  RENAME_EXCHANGE) != 0) {
    return abandon(absl::ErrnoToStatus(
        errno, absl::StrCat("cannot exchange ", staging.string(), " with ",
                            target.string())));
  }
  fs::remove_all(staging, error);  // now the old report
  return absl::OkStatus();
}

}  // namespace

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
  RETURN_IF_ERROR(WriteReportSet(output_dir, files));
  for (const auto& [name, contents] : files) {
    result.written_files.push_back(absl::StrCat(output_dir, "/", name));
  }
  return result;
}

}  // namespace reports
}  // namespace bertlab
