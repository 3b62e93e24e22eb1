#include "common/exit_status.h"

#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;
using ::testing::internal::CaptureStderr;
using ::testing::internal::GetCapturedStderr;

TEST(ExitStatusTest, OkIsZeroAndAnErrorIsOneWithItsMessage) {
  EXPECT_EQ(ExitStatus("tool", absl::OkStatus()), 0);
  CaptureStderr();
  EXPECT_EQ(ExitStatus("tool", absl::NotFoundError("x.txt: missing")), 1);
  EXPECT_EQ(GetCapturedStderr(), "tool: x.txt: missing\n");
}

TEST(RunMainTest, PassesStatusesAndExitCodesThrough) {
  EXPECT_EQ(RunMain("tool", [] { return absl::OkStatus(); }), 0);
  EXPECT_EQ(RunMain("tool", [] { return 2; }), 2);
  CaptureStderr();
  EXPECT_EQ(RunMain("tool", [] { return absl::InvalidArgumentError("bad"); }),
            1);
  EXPECT_EQ(GetCapturedStderr(), "tool: bad\n");
}

TEST(RunMainTest, AStdExceptionIsAnInternalErrorWithExitStatusOne) {
  CaptureStderr();
  const int code = RunMain("tool", []() -> absl::Status {
    throw std::filesystem::filesystem_error(
        "cannot create directories", "/a/file/x",
        std::make_error_code(std::errc::not_a_directory));
  });
  const std::string err = GetCapturedStderr();
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr("tool: internal error: "));
  EXPECT_THAT(err, HasSubstr("cannot create directories"));
  EXPECT_THAT(err, HasSubstr("/a/file/x"));
}

TEST(RunMainTest, BadAllocSaysOutOfMemory) {
  CaptureStderr();
  EXPECT_EQ(RunMain("tool", []() -> int { throw std::bad_alloc(); }), 1);
  EXPECT_THAT(GetCapturedStderr(),
              HasSubstr("tool: internal error: out of memory ("));
}

TEST(RunMainTest, AnythingElseThrownIsCaughtToo) {
  CaptureStderr();
  EXPECT_EQ(RunMain("tool", []() -> int { throw 42; }), 1);
  EXPECT_EQ(GetCapturedStderr(),
            "tool: internal error: an exception that is not a "
            "std::exception\n");
}

// An exception that escapes a thread calls std::terminate, which main's
// try block cannot see: the handler RunMain installs reports it.
TEST(RunMainDeathTest, AnExceptionInAnotherThreadExitsWithOne) {
  EXPECT_EXIT(RunMain("tool",
                      [] {
                        std::thread([] {
                          throw std::runtime_error("boom in a worker");
                        }).join();
                        return absl::OkStatus();
                      }),
              ::testing::ExitedWithCode(1),
              "tool: internal error: boom in a worker");
}

}  // namespace
}  // namespace bertlab
