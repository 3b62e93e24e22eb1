// Checks (default) or rewrites (--update) the README's result blocks
// against the committed reports (readme_results.h):
//
//   bazel run //reports:readme_results [-- --update]
//       [--readme=README.md] [--results_dir=results]
//
// Relative paths are taken relative to the directory where `bazel run` was
// started; the defaults are the workspace's README.md and results/.
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/exit_status.h"
#include "common/file.h"
#include "common/status_macros.h"
#include "common/user_path.h"
#include "nlohmann/json.hpp"
#include "reports/readme_results.h"

ABSL_FLAG(std::string, readme, "",
          "the README to check or update; default: the workspace's README.md");
ABSL_FLAG(std::string, results_dir, "",
          "where the committed reports are (results/<table>/<scale>/report/"
          "report.json); default: the workspace's results/");
ABSL_FLAG(bool, update, false,
          "rewrite the blocks from the reports instead of checking them");

namespace bertlab {
namespace {

std::string WorkspacePath(const std::string& flag, const char* name) {
  if (!flag.empty()) return ResolveUserPath(flag);
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  return workspace == nullptr ? std::string(name)
                              : absl::StrCat(workspace, "/", name);
}

absl::Status Run() {
  const std::string readme_path =
      WorkspacePath(absl::GetFlag(FLAGS_readme), "README.md");
  const std::string results_dir =
      WorkspacePath(absl::GetFlag(FLAGS_results_dir), "results");
  ASSIGN_OR_RETURN(const std::string readme, ReadFileToString(readme_path));
  const reports::LoadCommittedReport load =
      [&](const std::string& name) -> absl::StatusOr<nlohmann::json> {
    const std::string path =
        absl::StrCat(results_dir, "/", name, "/report/report.json");
    ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
    nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
    }
    return json;
  };
  if (!absl::GetFlag(FLAGS_update)) {
    const absl::Status checked = reports::CheckReadmeResults(readme, load);
    if (!checked.ok()) {
      return absl::Status(checked.code(),
                          absl::StrCat(readme_path, ": ", checked.message()));
    }
    std::cerr << "readme_results: " << readme_path
              << " matches the committed reports\n";
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const std::string updated,
                   reports::UpdateReadmeResults(readme, load),
                   _.Prepend(readme_path, ": "));
  RETURN_IF_ERROR(WriteFileAtomically(readme_path, updated));
  std::cerr << "readme_results: rewrote the result blocks of " << readme_path
            << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace bertlab

int main(int argc, char** argv) {
  return bertlab::RunMain("readme_results", [&] {
    absl::SetProgramUsageMessage(
        "[--update] [--readme=README.md] [--results_dir=results]\nChecks the "
        "README's result blocks against the committed reports, or rewrites "
        "them.");
    const auto positional = absl::ParseCommandLine(argc, argv);
    if (positional.size() != 1) {
      std::cerr << "readme_results: takes no positional arguments\n";
      return 2;
    }
    return bertlab::ExitStatus("readme_results", bertlab::Run());
  });
}
