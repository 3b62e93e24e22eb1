#include "reports/render.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/test_records.h"

namespace bertlab {
namespace reports {
namespace {

using testing::FixtureRun;
using ::testing::HasSubstr;
using testing::WriteRecord;

std::string FreshDir(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void WriteSweep(const std::string& runs_dir) {
  FixtureRun run;
  for (const std::string variant : {"no_nsp", "full"}) {
    for (const double learning_rate : {5e-5, 2e-5, 3e-5}) {
      for (int restart = 0; restart < 3; ++restart) {
        run.variant = variant;
        run.learning_rate = learning_rate;
        run.restart = restart;
        run.metrics = {{"accuracy", 70 + 1e5 * learning_rate + restart}};
        WriteRecord(runs_dir, run);
      }
    }
  }
}

std::string Read(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(RenderReportTest, WritesEveryFormat) {
  const std::string runs = FreshDir("runs_all");
  WriteSweep(runs);
  RenderOptions options;
  options.generated_at = "2024-05-01";
  const auto result = RenderReport(runs, runs + "/report", options);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<std::string> names;
  for (const std::string& path : result->written_files) {
    names.push_back(std::filesystem::path(path).filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "report.md", "report.csv", "report.tex", "report.json",
                       "report.html", "table5_lr_sweep.svg"}));
  EXPECT_EQ(Read(runs + "/report/report.md"), result->markdown);
  // 5e-5 has the best mean (75, 76, 77) and is the grid's largest rate (†).
  EXPECT_THAT(result->markdown,
              HasSubstr("| BERT (L4/H256, mini) | n/a (paper 84.4) | n/a "
                        "(paper 88.4) | 76.0 ± 1.0† (med 76.0, n=3; paper "
                        "86.7, -10.7) |"));
  EXPECT_THAT(result->markdown, HasSubstr("- Generated: 2024-05-01\n"));
  // Rendering again over the runs dir ignores the report inside it.
  EXPECT_TRUE(RenderReport(runs, runs + "/report", options).ok());
}

// Same records -> byte-identical outputs; the date is the only other input.
TEST(RenderReportTest, DeterministicExceptForTheDate) {
  const std::string runs = FreshDir("runs_det");
  WriteSweep(runs);
  const std::string out_a = FreshDir("out_a");
  const std::string out_b = FreshDir("out_b");
  RenderOptions options;
  options.generated_at = "DATE-A";
  const auto a = RenderReport(runs, out_a, options);
  options.generated_at = "DATE-B";
  const auto b = RenderReport(runs, out_b, options);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->written_files.size(), b->written_files.size());
  for (size_t i = 0; i < a->written_files.size(); ++i) {
    const std::string text_a = Read(a->written_files[i]);
    const std::string text_b = Read(b->written_files[i]);
    EXPECT_EQ(absl::StrReplaceAll(text_a, {{"DATE-A", "DATE"}}),
              absl::StrReplaceAll(text_b, {{"DATE-B", "DATE"}}))
        << a->written_files[i];
  }
}

TEST(RenderReportTest, ErrorsSayWhere) {
  const std::string runs = FreshDir("runs_empty");
  auto result = RenderReport(runs, runs + "/report", RenderOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(
      result.status().message(),
      HasSubstr("no run records (files named run.json) found below " + runs));

  FixtureRun run;
  nlohmann::json json = testing::RecordJson(run);
  json.erase("primary_metric");
  const std::string path = WriteRecord(runs, run, json);
  result = RenderReport(runs, runs + "/report", RenderOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              HasSubstr(path + ": field \"primary_metric\": missing"));
}

}  // namespace
}  // namespace reports
}  // namespace bertlab
