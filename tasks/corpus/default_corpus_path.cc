#include "tasks/corpus/default_corpus_path.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"

namespace bertlab {
namespace {

// The workspace's name in runfiles paths (WORKSPACE: workspace(name = ...)).
constexpr char kWorkspace[] = "bertlab";

bool IsReadable(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return false;
  std::fclose(file);
  return true;
}

}  // namespace

std::string FindDefaultCorpus(const char* argv0) {
  std::vector<std::string> candidates = {kDefaultCorpusRunfile};
  if (const char* runfiles = std::getenv("RUNFILES_DIR")) {
    candidates.push_back(
        absl::StrCat(runfiles, "/", kWorkspace, "/", kDefaultCorpusRunfile));
  }
  if (argv0 != nullptr) {
    candidates.push_back(absl::StrCat(argv0, ".runfiles/", kWorkspace, "/",
                                      kDefaultCorpusRunfile));
  }
  for (const std::string& candidate : candidates) {
    if (!IsReadable(candidate)) continue;
    // Absolute, so that a process started in another directory (a job of
    // --jobs, a Slurm array task) reads the same file.
    std::error_code error;
    const std::filesystem::path absolute =
        std::filesystem::absolute(candidate, error);
    return error ? candidate : absolute.lexically_normal().string();
  }
  return "";
}

}  // namespace bertlab
