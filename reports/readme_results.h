// The README's result blocks, generated from committed reports so that no
// number in the README can drift from the files behind it. A block is
//
//   <!-- results table5/mini-data -->
//   (generated: the paper's claims of each table in
//    results/table5/mini-data/report/report.json)
//   <!-- /results -->
//
// and holds, per table, the paper's claims with our difference and its 95%
// interval, the paper's difference, the verdict, n (seeds x runs) and, for
// a claim not testable at that scale, the reason. //reports:readme_results
// rewrites the blocks (--update) or checks them (the default; a test runs
// it on the repository's README).
#ifndef BERTLAB_REPORTS_README_RESULTS_H_
#define BERTLAB_REPORTS_README_RESULTS_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace reports {

// Reads results/<name>/report/report.json for a block named <name>.
using LoadCommittedReport =
    std::function<absl::StatusOr<nlohmann::json>(const std::string& name)>;

// The generated lines of block `name` (between its markers, each ending in
// a newline) from its report.json. Errors: a report without tables or
// claims, or fields of the wrong type.
absl::StatusOr<std::string> ResultsBlock(const std::string& name,
                                         const nlohmann::json& report);

// `readme` with every block's lines regenerated. Errors name README lines:
// a block without its end marker, a marker without a name, or the load's
// error for the block's report.
absl::StatusOr<std::string> UpdateReadmeResults(
    absl::string_view readme, const LoadCommittedReport& load);

// OK when every block equals its regenerated lines; otherwise an error that
// names the first README line that differs (its number, what it holds and
// what the committed report gives) and the command that fixes it.
absl::Status CheckReadmeResults(absl::string_view readme,
                                const LoadCommittedReport& load);

}  // namespace reports
}  // namespace bertlab

#endif  // BERTLAB_REPORTS_README_RESULTS_H_
