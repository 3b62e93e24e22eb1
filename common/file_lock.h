// An exclusive lock between processes, for what two commands may work on at
// once: an experiment's run directories and the shared cache
// (experiments/run/runner.h).
//
// It is flock(2) on a lock file. The kernel drops the lock when its holder
// closes the file or dies, kill -9 included, so a crash never leaves a stale
// lock to clean up. The holder writes "pid N" into the file, which a waiter
// quotes in its message (only informative: the lock is the flock, not the
// text). flock locks belong to an open file description, so two FileLocks on
// one path exclude each other inside one process as well: never take a lock
// the same process already holds.
//
//   ASSIGN_OR_RETURN(FileLock lock,
//                    FileLock::Acquire(dir + ".lock", [&](const std::string&
//                    holder) { std::cerr << "waiting for " << dir << "\n"; }));
//   ... work on dir; the destructor releases the lock ...
#ifndef BERTLAB_COMMON_FILE_LOCK_H_
#define BERTLAB_COMMON_FILE_LOCK_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace bertlab {

class FileLock {
 public:
  // Takes the lock on `lock_path`, creating the file (not its directory)
  // when it is missing. While another holder has it, calls on_wait once with
  // what the file says about the holder ("pid 1234", or "" when it says
  // nothing yet), then waits for as long as it takes. Errors name the path.
  static absl::StatusOr<FileLock> Acquire(
      const std::string& lock_path,
      const std::function<void(const std::string& holder)>& on_wait = nullptr);

  // Takes the lock only when it is free; std::nullopt while another holder
  // has it.
  static absl::StatusOr<std::optional<FileLock>> TryAcquire(
      const std::string& lock_path);

  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();  // releases the lock

  const std::string& path() const { return path_; }

 private:
  FileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void Release();

  std::string path_;
  int fd_ = -1;
};

}  // namespace bertlab

#endif  // BERTLAB_COMMON_FILE_LOCK_H_
