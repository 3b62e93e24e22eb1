#include "common/file_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <future>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

std::string LockPath(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  return absl::StrCat(root != nullptr ? root : "/tmp", "/file_lock_test_", name,
                      ".lock");
}

TEST(FileLockTest, ASecondHolderIsRefusedUntilTheFirstReleases) {
  const std::string path = LockPath("exclusive");
  {
    absl::StatusOr<FileLock> first = FileLock::Acquire(path);
    ASSERT_TRUE(first.ok()) << first.status();
    absl::StatusOr<std::optional<FileLock>> second = FileLock::TryAcquire(path);
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_FALSE(second->has_value());
  }
  absl::StatusOr<std::optional<FileLock>> again = FileLock::TryAcquire(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->has_value());
}

TEST(FileLockTest, AWaiterIsToldWhoHoldsItAndGetsItAfterwards) {
  const std::string path = LockPath("wait");
  std::optional<FileLock> held(FileLock::Acquire(path).value());
  std::promise<std::string> told;
  std::future<std::string> holder = told.get_future();
  std::thread waiter([&] {
    absl::StatusOr<FileLock> lock = FileLock::Acquire(
        path, [&](const std::string& who) { told.set_value(who); });
    EXPECT_TRUE(lock.ok()) << lock.status();
  });
  // The waiter has found the lock taken (this returns only then).
  EXPECT_EQ(holder.get(), absl::StrCat("pid ", ::getpid()));
  held.reset();
  waiter.join();
}

TEST(FileLockTest, AMovedLockStaysHeld) {
  const std::string path = LockPath("moved");
  FileLock lock = FileLock::Acquire(path).value();
  FileLock moved = std::move(lock);
  EXPECT_EQ(moved.path(), path);
  EXPECT_FALSE(FileLock::TryAcquire(path).value().has_value());
}

// kill -9 leaves no stale lock: the kernel drops it with the process.
TEST(FileLockTest, AKilledHolderLeavesNoLockBehind) {
  const std::string path = LockPath("killed");
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    absl::StatusOr<FileLock> lock = FileLock::Acquire(path);
    const char byte = lock.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y');
  EXPECT_FALSE(FileLock::TryAcquire(path).value().has_value());
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(FileLock::TryAcquire(path).value().has_value());
}

TEST(FileLockTest, AnUnwritableLockFileIsAnErrorNamingIt) {
  const std::string path = LockPath("missing_dir") + "/no/such/dir/x.lock";
  absl::StatusOr<FileLock> lock = FileLock::Acquire(path);
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(lock.status().message(), HasSubstr(path));
}

}  // namespace
}  // namespace bertlab
