#include "common/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Closes now and reports the error that close(2) may return (for writes,
  // the last chance to learn about a failed flush).
  int Close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// The error for a failed system call `what` on `path`, from errno.
absl::Status PosixError(absl::string_view what, const std::string& path) {
  return absl::ErrnoToStatus(errno, absl::StrCat(what, " ", path));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// A name beside `path` that no other writer in this or another process
// picks at the same time (creation uses O_EXCL anyway).
std::string TemporaryPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return absl::StrCat(path, ".tmp.", getpid(), ".", counter.fetch_add(1), ".",
                      now.tv_nsec);
}

// The fault hooks of file.h, read from the environment once.
struct FaultHooks {
  int64_t enospc_after_bytes = -1;  // -1: off
  int64_t delay_ms = 0;
};

const FaultHooks& Hooks() {
  static const FaultHooks hooks = [] {
    FaultHooks read;
    if (const char* bytes = std::getenv(kTestingEnospcAfterBytesEnv)) {
      read.enospc_after_bytes = std::strtoll(bytes, nullptr, 10);
    }
    if (const char* delay = std::getenv(kTestingWriteDelayMsEnv)) {
      read.delay_ms = std::max<int64_t>(0, std::strtoll(delay, nullptr, 10));
    }
    return read;
  }();
  return hooks;
}

// Bytes written through WriteAll by this process, for the ENOSPC hook.
std::atomic<int64_t> bytes_written{0};

// write(2), or a disk that fills up after enospc_after_bytes bytes: the
// write that crosses the limit writes what still fits, the next fails with
// ENOSPC, as a real full disk does.
ssize_t WriteOrFill(int fd, const char* data, size_t size) {
  const int64_t limit = Hooks().enospc_after_bytes;
  if (limit >= 0) {
    const int64_t room = limit - bytes_written.load();
    if (room <= 0) {
      errno = ENOSPC;
      return -1;
    }
    size = std::min<size_t>(size, static_cast<size_t>(room));
  }
  const ssize_t written = ::write(fd, data, size);
  if (written > 0) bytes_written += written;
  return written;
}

absl::Status WriteAll(int fd, absl::string_view contents,
                      const std::string& path) {
  while (!contents.empty()) {
    const ssize_t written = WriteOrFill(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return PosixError("cannot write", path);
    }
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// Everything up to and including the rename; the caller removes `temp_path`
// if this fails.
absl::Status WriteAndRename(const std::string& temp_path,
                            const std::string& path,
                            absl::string_view contents) {
  const int fd =
      ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return PosixError("cannot create temporary file", temp_path);
  FdCloser closer(fd);
  if (absl::Status status = WriteAll(fd, contents, temp_path); !status.ok()) {
    return status;
  }
  if (::fsync(fd) != 0) return PosixError("cannot fsync", temp_path);
  if (closer.Close() != 0) return PosixError("cannot close", temp_path);
  if (Hooks().delay_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(Hooks().delay_ms));
  }
  if (::rename(temp_path.c_str(), path.c_str()) != 0) {
    return PosixError(absl::StrCat("cannot rename ", temp_path, " to"), path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("cannot open", path);
  FdCloser closer(fd);
  struct stat info;
  if (::fstat(fd, &info) != 0) return PosixError("cannot stat", path);
  if (S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", path, ": is a directory"));
  }
  std::string contents;
  if (info.st_size > 0) contents.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0) {
      if (errno == EINTR) continue;
      return PosixError("cannot read", path);
    }
    if (got == 0) break;
    contents.append(buffer, static_cast<size_t>(got));
  }
  return contents;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  const std::string temp_path = TemporaryPathFor(path);
  if (absl::Status status = WriteAndRename(temp_path, path, contents);
      !status.ok()) {
    ::unlink(temp_path.c_str());  // may not exist; nothing more to report
    return status;
  }
  // The data is in place; make the directory entry durable too.
  const std::string directory = DirectoryOf(path);
  const int dir_fd =
      ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    return PosixError(
        absl::StrCat("wrote ", path, " but cannot open its directory"),
        directory);
  }
  FdCloser dir_closer(dir_fd);
  if (::fsync(dir_fd) != 0) {
    return PosixError(
        absl::StrCat("wrote ", path, " but cannot fsync its directory"),
        directory);
  }
  return absl::OkStatus();
}

}  // namespace bertlab
