#include "reports/readme_results.h"

#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/claims.h"
#include "reports/report.h"
#include "reports/report_writers.h"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using testing::AddGrid;
using ::testing::HasSubstr;

nlohmann::json CommittedReport() {
  std::vector<RunRecord> records;
  AddGrid(records, "full", "qnli", {{2e-5, {90, 91, 92}}});
  AddGrid(records, "no_nsp", "qnli", {{2e-5, {85, 86, 87}}});
  AddGrid(records, kNoPretrainingVariant, "qnli", {{2e-5, {50, 51, 52}}});
  ReportOptions options;
  options.generated_at = "DATE";
  absl::StatusOr<Report> report = BuildReport(records, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return nlohmann::json::parse(ToJson(*report));
}

absl::StatusOr<nlohmann::json> Load(const std::string& name) {
  if (name != "table5/mini") {
    return absl::NotFoundError(absl::StrCat("no results/", name));
  }
  return CommittedReport();
}

constexpr char kReadme[] =
    "# Title\n\nSome prose.\n\n<!-- results table5/mini -->\nstale\n"
    "<!-- /results -->\n\nMore prose.\n";

TEST(ReadmeResultsTest, BlockHoldsThePapersClaimsFromTheReport) {
  absl::StatusOr<std::string> block =
      ResultsBlock("table5/mini", CommittedReport());
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_THAT(*block,
              HasSubstr("From `results/table5/mini/report/report.json`"));
  // No NSP 86 against BERT 91 over three restarts: -5.0, reproduced.
  EXPECT_THAT(*block, HasSubstr("| No NSP below BERT on QNLI (Acc) | -5.0 ["));
  EXPECT_THAT(*block, HasSubstr("| -3.5 | reproduced | 1 × 3 / 1 × 3 |  |"));
  // Control claims stay in the report; unmeasured ones are listed.
  EXPECT_THAT(*block,
              ::testing::Not(HasSubstr("above variant no_pretraining")));
  EXPECT_THAT(*block, HasSubstr("Not measured: "));
}

TEST(ReadmeResultsTest, UpdateThenCheckPasses) {
  absl::StatusOr<std::string> updated = UpdateReadmeResults(kReadme, &Load);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_THAT(*updated, HasSubstr("# Title\n\nSome prose.\n\n<!-- results "
                                  "table5/mini -->\nFrom `results/"));
  EXPECT_THAT(*updated, HasSubstr("\n<!-- /results -->\n\nMore prose.\n"));
  EXPECT_THAT(*updated, ::testing::Not(HasSubstr("stale")));
  EXPECT_TRUE(CheckReadmeResults(*updated, &Load).ok());
  // Updating again changes nothing.
  EXPECT_EQ(*UpdateReadmeResults(*updated, &Load), *updated);
}

// A number edited by hand (or left behind by new results) fails the check,
// which names the README line and both texts.
TEST(ReadmeResultsTest, PlantedMismatchIsFound) {
  const std::string good = *UpdateReadmeResults(kReadme, &Load);
  const std::string planted = absl::StrReplaceAll(
      good, {{"| -3.5 | reproduced", "| -3.6 | reproduced"}});
  ASSERT_NE(planted, good);
  const absl::Status status = CheckReadmeResults(planted, &Load);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("(results block \"table5/mini\") "
                                          "differs from the committed report"));
  EXPECT_THAT(status.message(), HasSubstr("README:    | No NSP below BERT"));
  EXPECT_THAT(status.message(), HasSubstr("| -3.6 | reproduced"));
  EXPECT_THAT(status.message(), HasSubstr("| -3.5 | reproduced"));
  // The stale block is a mismatch too, at its first line (line 6).
  EXPECT_THAT(CheckReadmeResults(kReadme, &Load).message(),
              HasSubstr("README line 6 "));
}

TEST(ReadmeResultsTest, MalformedBlocksAreErrors) {
  EXPECT_THAT(
      CheckReadmeResults("a\n<!-- results table5/mini -->\nx\n", &Load)
          .message(),
      HasSubstr("README line 2: results block \"table5/mini\" has no end "
                "marker"));
  EXPECT_THAT(CheckReadmeResults("<!-- results -->\n<!-- /results -->\n", &Load)
                  .message(),
              HasSubstr("README line 1: expected"));
  EXPECT_THAT(CheckReadmeResults(
                  "<!-- results table9/x -->\n<!-- /results -->\n", &Load)
                  .message(),
              HasSubstr("results block \"table9/x\": no results/table9/x"));
  EXPECT_TRUE(CheckReadmeResults("no blocks at all\n", &Load).ok());
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
