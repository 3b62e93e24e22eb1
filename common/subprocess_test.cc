#include "common/subprocess.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

TEST(RunCommand, ArgumentsReachTheProgramVerbatimWithoutAShell) {
  // Through a shell each of these would be expanded, split or run.
  const std::string tricky = "o'brien $(touch /tmp/pwned) \"a b\" ;|*";
  absl::StatusOr<CommandResult> result = RunCommand({"printf", "%s\n", tricky});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0);
  EXPECT_EQ(result->stdout_text, tricky + "\n");
}

TEST(RunCommand, ExitCodeAndStderrDiscarded) {
  absl::StatusOr<CommandResult> result =
      RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_EQ(result->stdout_text, "out\n");
}

TEST(RunCommand, AProgramThatCannotStartIsAnError) {
  absl::StatusOr<CommandResult> result =
      RunCommand({"/nonexistent/program", "x"});
  EXPECT_EQ(result.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(result.status().message(),
              HasSubstr("cannot run /nonexistent/program"));
  EXPECT_EQ(RunCommand({}).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace bertlab
