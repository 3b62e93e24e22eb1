#include "common/file_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

absl::Status LockError(const std::string& what, const std::string& path) {
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot ", what, " the lock file ", path, ": ", std::strerror(errno)));
}

absl::StatusOr<int> Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return LockError("open", path);
  return fd;
}

// flock(fd, operation), retried when a signal interrupts it. Returns false
// with errno EWOULDBLOCK when LOCK_NB finds the lock taken.
bool Flock(int fd, int operation) {
  while (::flock(fd, operation) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

// What the holder wrote into the lock file.
std::string Holder(int fd) {
  char text[128];
  const ssize_t n = ::pread(fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return "";
  return std::string(absl::StripAsciiWhitespace(
      absl::string_view(text, static_cast<size_t>(n))));
}

// Records this process as the holder; best effort (the flock is the lock).
void WriteHolder(int fd) {
  const std::string text = absl::StrCat("pid ", ::getpid(), "\n");
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, text.data(), text.size(), 0);
  }
}

}  // namespace

absl::StatusOr<FileLock> FileLock::Acquire(
    const std::string& lock_path,
    const std::function<void(const std::string& holder)>& on_wait) {
  absl::StatusOr<int> fd = Open(lock_path);
  if (!fd.ok()) return fd.status();
  FileLock lock(lock_path, *fd);
  if (!Flock(*fd, LOCK_EX | LOCK_NB)) {
    if (errno != EWOULDBLOCK) return LockError("lock", lock_path);
    if (on_wait) on_wait(Holder(*fd));
    if (!Flock(*fd, LOCK_EX)) return LockError("lock", lock_path);
  }
  WriteHolder(*fd);
  return lock;
}

absl::StatusOr<std::optional<FileLock>> FileLock::TryAcquire(
    const std::string& lock_path) {
  absl::StatusOr<int> fd = Open(lock_path);
  if (!fd.ok()) return fd.status();
  FileLock lock(lock_path, *fd);
  if (!Flock(*fd, LOCK_EX | LOCK_NB)) {
    if (errno != EWOULDBLOCK) return LockError("lock", lock_path);
    return std::optional<FileLock>();
  }
  WriteHolder(*fd);
  return std::optional<FileLock>(std::move(lock));
}

FileLock::FileLock(FileLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    Release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() { Release(); }

void FileLock::Release() {
  if (fd_ < 0) return;
  // Closing the last descriptor of the open file releases the flock.
  ::close(fd_);
  fd_ = -1;
}

}  // namespace bertlab
