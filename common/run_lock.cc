#include "common/run_lock.h"

#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "common/directory.h"
#include "common/status_macros.h"

namespace bertlab {

std::string LockFileOf(const std::string& dir) {
  std::string path = std::filesystem::path(dir).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path + ".lock";
}

absl::StatusOr<FileLock> LockRunDirectory(const std::string& dir,
                                          absl::string_view what) {
  const std::string lock_path = LockFileOf(dir);
  const std::string parent =
      std::filesystem::path(lock_path).parent_path().string();
  if (!parent.empty()) RETURN_IF_ERROR(CreateDirectories(parent));
  return FileLock::Acquire(lock_path, [&](const std::string& holder) {
    std::cerr << "experiment: waiting for " << what << " (" << dir
              << "): another process"
              << (holder.empty() ? std::string()
                                 : absl::StrCat(" (", holder, ")"))
              << " is working on it\n";
  });
}

}  // namespace bertlab
