#include "experiments/run/job_pool.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace experiments {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class JobPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        std::getenv("TEST_TMPDIR"), "/",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_EQ(std::system(
                  ("rm -rf '" + dir_ + "' && mkdir -p '" + dir_ + "'").c_str()),
              0);
  }

  // A job that runs `script` in /bin/sh, logging to <dir>/<name>.log.
  Job Shell(const std::string& name, const std::string& script,
            std::vector<std::string> needs = {}) const {
    return Job{name,
               "job " + name,
               {"/bin/sh", "-c", script},
               std::move(needs),
               dir_ + "/" + name + ".log"};
  }

  std::string Read(const std::string& file) const {
    absl::StatusOr<std::string> text = ReadFileToString(dir_ + "/" + file);
    return text.ok() ? *text : "<absent>";
  }

  static JobPoolOptions Quiet(int max_running) {
    JobPoolOptions options;
    options.max_running = max_running;
    options.progress = false;
    return options;
  }

  std::string dir_;
};

TEST_F(JobPoolTest, AJobStartsOnlyAfterTheJobsItNeedsSucceeded) {
  const std::string order = dir_ + "/order";
  // With two slots, b and c could start at once; b and c need a, d needs b.
  const std::vector<Job> jobs = {
      Shell("a", "sleep 0.3; echo a >> " + order),
      Shell("b", "echo b >> " + order, {"a"}),
      Shell("c", "sleep 1; echo c >> " + order, {"a"}),
      Shell("d", "echo d >> " + order, {"b"}),
  };
  absl::StatusOr<JobPoolResult> result = RunJobs(jobs, Quiet(2));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->failures, IsEmpty());
  EXPECT_THAT(result->succeeded, UnorderedElementsAre("a", "b", "c", "d"));
  // b is quick, so d runs while c sleeps.
  EXPECT_EQ(Read("order"), "a\nb\nd\nc\n");
}

TEST_F(JobPoolTest, NeverRunsMoreThanTheLimitAtOnce) {
  // Each job counts the jobs running beside it (itself included) while it
  // runs.
  std::vector<Job> jobs;
  for (int i = 0; i < 5; ++i) {
    jobs.push_back(
        Shell(absl::StrCat("j", i),
              absl::StrCat("touch ", dir_, "/running.", i, "; ls ", dir_,
                           " | grep -c '^running' >> ", dir_,
                           "/counts; sleep 1; rm ", dir_, "/running.", i)));
  }
  absl::StatusOr<JobPoolResult> result = RunJobs(jobs, Quiet(2));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->succeeded.size(), 5u);
  int most = 0;
  for (absl::string_view line :
       absl::StrSplit(Read("counts"), '\n', absl::SkipEmpty())) {
    int count = 0;
    ASSERT_TRUE(absl::SimpleAtoi(line, &count)) << line;
    most = std::max(most, count);
  }
  EXPECT_EQ(most, 2);
}

TEST_F(JobPoolTest, AFailureEndsOnlyItselfAndTheJobsThatNeedIt) {
  const std::vector<Job> jobs = {
      Shell("bad", "echo first; echo the reason; exit 3"),
      Shell("after_bad", "touch " + dir_ + "/after_bad_ran", {"bad"}),
      Shell("good", "echo fine"),
      Shell("killed", "kill -9 $$"),
  };
  absl::StatusOr<JobPoolResult> result = RunJobs(jobs, Quiet(2));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->succeeded, ElementsAre("good"));
  ASSERT_EQ(result->failures.size(), 3u);
  // In the order the jobs were given.
  EXPECT_EQ(result->failures[0].label, "job bad");
  EXPECT_EQ(result->failures[0].reason, "exited with status 3");
  EXPECT_EQ(result->failures[0].log_file, dir_ + "/bad.log");
  EXPECT_EQ(result->failures[0].log_tail, "first\nthe reason");
  EXPECT_EQ(result->failures[1].label, "job after_bad");
  EXPECT_EQ(result->failures[1].reason,
            "not started: it needs job bad, which failed");
  EXPECT_EQ(Read("after_bad_ran"), "<absent>");
  EXPECT_EQ(result->failures[2].label, "job killed");
  EXPECT_THAT(result->failures[2].reason, HasSubstr("killed by signal 9"));
  EXPECT_EQ(Read("good.log"), "fine\n");
}

TEST_F(JobPoolTest, TheLogTailIsTheLastLinesOnly) {
  const std::vector<Job> jobs = {
      Shell("long",
            "for i in 1 2 3 4 5 6 7; do echo line $i; done; "
            "printf 'step 1\\rstep 2\\r'; exit 1"),
  };
  absl::StatusOr<JobPoolResult> result = RunJobs(jobs, Quiet(1));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->failures.size(), 1u);
  // kJobFailureTailLines of them; a progress display's '\r' ends a line.
  EXPECT_EQ(result->failures[0].log_tail,
            "line 5\nline 6\nline 7\nstep 1\nstep 2");
}

TEST_F(JobPoolTest, ACommandThatCannotStartIsAFailure) {
  Job missing{"missing",
              "job missing",
              {dir_ + "/no-such-program"},
              {},
              dir_ + "/missing.log"};
  Job no_log = Shell("no_log", "true");
  no_log.log_file = dir_ + "/no-such-dir/no_log.log";
  absl::StatusOr<JobPoolResult> result = RunJobs({missing, no_log}, Quiet(1));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->failures.size(), 2u);
  EXPECT_EQ(result->failures[0].reason, "exited with status 127");
  EXPECT_THAT(result->failures[0].log_tail,
              HasSubstr("cannot execute " + dir_ + "/no-such-program"));
  EXPECT_THAT(result->failures[1].reason,
              HasSubstr("cannot open its log " + no_log.log_file));
}

TEST_F(JobPoolTest, ABadListIsRefusedBeforeAnythingRuns) {
  const std::string mark = "touch " + dir_ + "/ran";
  const auto refused = [&](const std::vector<Job>& jobs, int max_running,
                           const std::string& message) {
    absl::StatusOr<JobPoolResult> result = RunJobs(jobs, Quiet(max_running));
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(result.status().message(), HasSubstr(message));
  };
  refused({Shell("a", mark), Shell("a", mark)}, 1, "two jobs are named \"a\"");
  refused({Shell("a", mark, {"b"}), Shell("b", mark)}, 1,
          "job a needs \"b\", which is not an earlier job");
  refused({Shell("a", mark, {"a"})}, 1, "which is not an earlier job");
  refused({Shell("a", mark)}, 0, "jobs at once must be at least 1, got 0");
  Job empty = Shell("empty", mark);
  empty.argv.clear();
  refused({Shell("a", mark), empty}, 1, "job job empty has no command");
  EXPECT_EQ(Read("ran"), "<absent>");
}

TEST_F(JobPoolTest, TheDisplayNamesEveryStartAndEnd) {
  JobPoolOptions options;
  options.max_running = 1;
  options.prefix = "test";
  ::testing::internal::CaptureStderr();
  absl::StatusOr<JobPoolResult> result =
      RunJobs({Shell("ok", "true"), Shell("bad", "exit 2")}, options);
  const std::string display = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(display, HasSubstr("test: [0/2] started job ok\n"));
  EXPECT_THAT(display, HasSubstr("test: [1/2] finished job ok in 0 s\n"));
  EXPECT_THAT(display, HasSubstr("test: [2/2] FAILED job bad: exited with "
                                 "status 2 (log: " +
                                 dir_ + "/bad.log)\n"));
}

TEST_F(JobPoolTest, NoJobsIsNothingToDo) {
  absl::StatusOr<JobPoolResult> result = RunJobs({}, Quiet(3));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->succeeded, IsEmpty());
  EXPECT_THAT(result->failures, IsEmpty());
}

}  // namespace
}  // namespace experiments
}  // namespace bertlab
