#include "model/train/training_log.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "common/file.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/", name);
}

TEST(MetricsLogTest, StartsEmptyOrKeepsTheLinesUpToTheResumedStep) {
  const std::string path = TempPath("metrics.jsonl");
  {
    absl::StatusOr<std::unique_ptr<MetricsLog>> log =
        MetricsLog::Open(path, -1);
    ASSERT_TRUE(log.ok()) << log.status();
    for (int step : {0, 10, 20, 30}) {
      ASSERT_TRUE(
          (*log)
              ->Append(absl::StrCat(R"({"type":"train","step":)", step, "}"))
              .ok());
    }
  }
  // A line cut short by a kill.
  absl::StatusOr<std::string> text = ReadFileToString(path);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(WriteFileAtomically(path, *text + R"({"type":"tr)").ok());
  {
    absl::StatusOr<std::unique_ptr<MetricsLog>> log =
        MetricsLog::Open(path, 20);
    ASSERT_TRUE(log.ok()) << log.status();
    ASSERT_TRUE((*log)->Append(R"({"type":"start","step":20})").ok());
  }
  EXPECT_EQ(*ReadFileToString(path),
            "{\"type\":\"train\",\"step\":0}\n"
            "{\"type\":\"train\",\"step\":10}\n"
            "{\"type\":\"train\",\"step\":20}\n"
            "{\"type\":\"start\",\"step\":20}\n");
  {
    absl::StatusOr<std::unique_ptr<MetricsLog>> log =
        MetricsLog::Open(path, -1);
    ASSERT_TRUE(log.ok());
  }
  EXPECT_EQ(*ReadFileToString(path), "");
}

TEST(FormatDurationTest, Formats) {
  EXPECT_EQ(FormatDuration(45.2), "45s");
  EXPECT_EQ(FormatDuration(200), "3m20s");
  EXPECT_EQ(FormatDuration(3720), "1h02m");
  EXPECT_EQ(FormatDuration(-1), "?");
}

}  // namespace
}  // namespace bertlab
