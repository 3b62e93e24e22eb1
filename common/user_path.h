// Paths typed by a user on the command line. Under `bazel run` a binary runs
// inside its runfiles tree, not where the user typed the command; Bazel puts
// that directory in BUILD_WORKING_DIRECTORY. ResolveUserPath makes a relative
// path relative to it (and leaves absolute paths, and everything outside
// `bazel run`, alone), so `bazel run //x -- --in=data.txt` reads ./data.txt.
#ifndef BERTLAB_COMMON_USER_PATH_H_
#define BERTLAB_COMMON_USER_PATH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace bertlab {

std::string ResolveUserPath(absl::string_view path);

}  // namespace bertlab

#endif  // BERTLAB_COMMON_USER_PATH_H_
