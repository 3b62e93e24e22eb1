#include "common/directory.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

namespace fs = std::filesystem;

// The nearest of `path` and its parents that exists but is not a
// directory, or "" when there is none.
std::string NonDirectoryOnTheWay(const fs::path& path) {
  for (fs::path p = path; !p.empty(); p = p.parent_path()) {
    std::error_code error;
    const fs::file_status status = fs::status(p, error);
    if (fs::exists(status) && !fs::is_directory(status)) return p.string();
    if (p == p.parent_path()) break;
  }
  return "";
}

}  // namespace

absl::Status CreateDirectories(const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError("cannot create a directory: empty path");
  }
  std::error_code error;
  fs::create_directories(path, error);
  if (!error && fs::is_directory(path, error)) return absl::OkStatus();
  const std::string blocker = NonDirectoryOnTheWay(path);
  if (!blocker.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create directory ", path, ": ", blocker,
        blocker == path ? " exists and" : "", " is not a directory"));
  }
  const std::string message =
      absl::StrCat("cannot create directory ", path, ": ",
                   error ? error.message() : std::string("it did not appear"));
  if (error == std::errc::permission_denied ||
      error == std::errc::operation_not_permitted ||
      error == std::errc::read_only_file_system) {
    return absl::PermissionDeniedError(message);
  }
  return absl::FailedPreconditionError(message);
}

absl::StatusOr<bool> PathExists(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && status.type() != fs::file_type::not_found) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot look at ", path, ": ", error.message()));
  }
  return fs::exists(status);
}

}  // namespace bertlab
