#include "tasks/shared_data_for_test.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

absl::StatusOr<std::string> FindSharedDataDir(absl::string_view anchor) {
  if (const char* from_env = std::getenv("BERTLAB_SHARED_DATA");
      from_env != nullptr && from_env[0] != '\0') {
    if (!IsDirectory(from_env)) {
      return absl::NotFoundError(absl::StrCat("BERTLAB_SHARED_DATA=", from_env,
                                              " is not a directory"));
    }
    return std::string(from_env);
  }
  // Under `bazel test` the working directory is the runfiles tree, whose
  // files are symbolic links that end in the source tree.
  const std::string anchor_path(anchor);
  char resolved[PATH_MAX];
  if (::realpath(anchor_path.c_str(), resolved) == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot resolve ", anchor_path,
                                            " (", std::strerror(errno),
                                            "); is it in the test's data?"));
  }
  const std::string real_anchor(resolved);
  const std::string suffix = absl::StrCat("/", anchor_path);
  if (!absl::EndsWith(real_anchor, suffix)) {
    return absl::NotFoundError(absl::StrCat("the real path ", real_anchor,
                                            " of ", anchor_path,
                                            " does not end with it"));
  }
  const std::string root =
      real_anchor.substr(0, real_anchor.size() - suffix.size());
  const std::string shared_data = absl::StrCat(root, "/../shared/data");
  if (!IsDirectory(shared_data)) {
    return absl::NotFoundError(
        absl::StrCat("the shared data is missing: no directory ", shared_data,
                     " (../shared/data beside the repository ", root,
                     "); set BERTLAB_SHARED_DATA to its location"));
  }
  return shared_data;
}

}  // namespace bertlab
