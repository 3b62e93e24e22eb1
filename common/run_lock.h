// The lock that keeps two processes (two run_experiment commands on one
// output or cache directory) from working on one run directory, cache entry
// or prepared data directory at once: the second waits for the first to
// finish it, then finds it done and uses it (experiments/run/runner.h; the
// prepared corpus of tasks/pretraining_data, the split SQuAD files of
// tasks/finetune).
#ifndef BERTLAB_COMMON_RUN_LOCK_H_
#define BERTLAB_COMMON_RUN_LOCK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/file_lock.h"

namespace bertlab {

// The lock file of a run directory or cache entry: `dir` + ".lock", beside
// it, so that it exists before the directory does and never mixes with its
// contents.
std::string LockFileOf(const std::string& dir);

// Takes the lock of `dir` (creating the directory's parent). While another
// process holds it, prints once on stderr
//   experiment: waiting for <what> (<dir>): another process (pid N) is
//   working on it
// and waits. Check whether the work is done only after this returns.
absl::StatusOr<FileLock> LockRunDirectory(const std::string& dir,
                                          absl::string_view what);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_RUN_LOCK_H_
