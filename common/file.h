// Whole-file reads and crash-safe whole-file writes (POSIX).
//
// WriteFileAtomically follows the usual recipe so that a reader or a crash
// sees either the old contents or the new ones, never a torn file: write a
// temporary file in the target's directory, fsync it, rename(2) it over the
// target, then fsync the directory so the rename itself is durable.
#ifndef BERTLAB_COMMON_FILE_H_
#define BERTLAB_COMMON_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bertlab {

// Returns the contents of the file at `path`. Errors name the path and the
// strerror text (NotFound for a missing file).
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

// Replaces the file at `path` with `contents` atomically. On failure the
// temporary file is removed, an existing target is left untouched, and the
// Status names the path and the strerror text.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Fault hooks for tests of whole commands (a disk that fills up, a kill in
// the middle of a write), read from the environment once per process:
//   BERTLAB_TESTING_ENOSPC_AFTER_BYTES=N  WriteFileAtomically fails with
//       ENOSPC ("No space left on device") once the process has written N
//       bytes through it, as a full disk would;
//   BERTLAB_TESTING_WRITE_DELAY_MS=M  each WriteFileAtomically waits M ms
//       between writing its temporary file and renaming it, so that a
//       kill lands inside multi-file writes such as checkpoints.
// Unset (always, outside such tests) they cost one branch per write.
inline constexpr char kTestingEnospcAfterBytesEnv[] =
    "BERTLAB_TESTING_ENOSPC_AFTER_BYTES";
inline constexpr char kTestingWriteDelayMsEnv[] =
    "BERTLAB_TESTING_WRITE_DELAY_MS";

}  // namespace bertlab

#endif  // BERTLAB_COMMON_FILE_H_
