// Renders the report of a runs directory: our dev results beside the
// paper's tables, from the run records (run.json) alone.
//
//   bazel run //reports:render -- RUNS_DIR [--output_dir=DIR]
//       [--table=table5] [--scale=mini] [--rows=no_nsp,full]
//       [--date=2024-05-01]
//
// Reads every run.json below RUNS_DIR (any depth), writes report.md,
// report.csv, report.tex, report.json, report.html and TABLE_lr_sweep.svg to
// --output_dir (default RUNS_DIR/report) and prints the Markdown to stdout.
// The date line comes from --date, else from SOURCE_DATE_EPOCH (seconds,
// as reproducible builds use it), else the current time; everything else in
// the outputs depends only on the records. Relative paths are taken relative
// to the directory where `bazel run` was started.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/exit_status.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "reports/render.h"

ABSL_FLAG(std::string, output_dir, "",
          "where the report files go; default RUNS_DIR/report");
ABSL_FLAG(std::string, table, "",
          "render only this paper table (table1..table6, table8); default: "
          "every table the records name");
ABSL_FLAG(
    std::string, scale, "",
    "use only records of this scale (mini, small, gpu or paper); default: "
    "all");
ABSL_FLAG(std::vector<std::string>, rows, {},
          "only these variants' rows, comma-separated (what run_experiment "
          "--variants prints); default: the paper's rows and every variant "
          "with records");
ABSL_FLAG(std::string, date, "",
          "the report's 'Generated' line; default: SOURCE_DATE_EPOCH, else "
          "now (UTC)");

namespace bertlab {
namespace {

absl::StatusOr<std::string> GeneratedAt() {
  std::string date = absl::GetFlag(FLAGS_date);
  if (!date.empty()) return date;
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch == nullptr || epoch[0] == '\0') return std::string();
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(epoch, &seconds)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SOURCE_DATE_EPOCH=", epoch, ": expected seconds since 1970"));
  }
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(seconds),
                          absl::UTCTimeZone());
}

absl::Status Run(const std::string& runs_flag) {
  const std::string runs_dir = ResolveUserPath(runs_flag);
  const std::string output_flag = absl::GetFlag(FLAGS_output_dir);
  const std::string output_dir = output_flag.empty()
                                     ? absl::StrCat(runs_dir, "/report")
                                     : ResolveUserPath(output_flag);
  reports::RenderOptions options;
  options.table = absl::GetFlag(FLAGS_table);
  options.scale = absl::GetFlag(FLAGS_scale);
  options.rows = absl::GetFlag(FLAGS_rows);
  ASSIGN_OR_RETURN(options.generated_at, GeneratedAt());
  ASSIGN_OR_RETURN(const reports::RenderResult result,
                   reports::RenderReport(runs_dir, output_dir, options));
  std::cout << result.markdown;
  for (const std::string& path : result.written_files) {
    std::cerr << "render: wrote " << path << "\n";
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("render", [&] {
    absl::SetProgramUsageMessage(
        "RUNS_DIR [--output_dir=DIR] [--table=table5] [--scale=mini] "
        "[--rows=V,...] "
        "[--date=D]\nRenders the run records below RUNS_DIR as tables beside "
        "the paper's.");
    const auto positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() != 2) {
      std::cerr << "render: expected exactly one argument, the runs directory "
                   "(got "
                << positional.size() - 1 << ")\n";
      return 2;
    }
    return bertlab::ExitStatus("render", bertlab::Run(positional[1]));
  });
}
