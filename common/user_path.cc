#include "common/user_path.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace bertlab {

std::string ResolveUserPath(absl::string_view path) {
  const char* working_directory = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || working_directory == nullptr ||
      working_directory[0] == '\0') {
    return std::string(path);
  }
  return absl::StrCat(working_directory, "/", path);
}

}  // namespace bertlab
