// Directory operations that return a Status where std::filesystem would
// throw std::filesystem_error (which no main catches as a Status) or leave
// an error_code unread. Every error names the path and what is wrong.
#ifndef BERTLAB_COMMON_DIRECTORY_H_
#define BERTLAB_COMMON_DIRECTORY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace bertlab {

// Creates `path` and its missing parents (mkdir -p); OK when it is already a
// directory. Errors, e.g. for --output_dir=/tmp/notes.txt/runs:
//   cannot create directory /tmp/notes.txt/runs: /tmp/notes.txt is not a
//   directory
//   cannot create directory /ro/runs: Read-only file system
absl::Status CreateDirectories(const std::string& path);

// Whether something exists at `path` (symlinks followed). A missing path or
// a parent that is not a directory is false; any other failure (no
// permission to search a parent, a symlink loop) is an error naming `path`.
absl::StatusOr<bool> PathExists(const std::string& path);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_DIRECTORY_H_
