#include "experiments/pretraining_corpus.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace bertlab {
namespace experiments {
namespace {

namespace fs = std::filesystem;

bool HasWildcard(const std::string& name) {
  return name.find_first_of("*?[") != std::string::npos;
}

// The files `pattern` names (relative to data_dir; wildcards in any of its
// components, a directory's matching directories, the last one's files), in
// sorted order.
absl::StatusOr<std::vector<std::string>> Expand(const std::string& field,
                                                const std::string& pattern,
                                                const std::string& data_dir) {
  const fs::path relative = fs::path(pattern).lexically_normal();
  if (!HasWildcard(pattern)) {
    const fs::path full = (fs::path(data_dir) / relative).lexically_normal();
    std::error_code error;
    if (!fs::is_regular_file(full, error)) {
      return absl::NotFoundError(absl::StrCat(
          field, " (\"", pattern, "\") is not a file under --data_dir=",
          data_dir, " (", full.string(), ")"));
    }
    return std::vector<std::string>{full.string()};
  }
  std::vector<fs::path> level = {fs::path(data_dir).lexically_normal()};
  const std::vector<fs::path> components(relative.begin(), relative.end());
  for (size_t c = 0; c < components.size(); ++c) {
    const bool last = c + 1 == components.size();
    const std::string name = components[c].string();
    std::vector<fs::path> next;
    for (const fs::path& directory : level) {
      std::error_code error;
      if (!HasWildcard(name)) {
        const fs::path path = directory / name;
        if (last ? fs::is_regular_file(path, error)
                 : fs::is_directory(path, error)) {
          next.push_back(path);
        }
        continue;
      }
      if (!fs::is_directory(directory, error) || error) continue;
      for (const fs::directory_entry& entry :
           fs::directory_iterator(directory, error)) {
        std::error_code ignored;
        if (fnmatch(name.c_str(), entry.path().filename().c_str(),
                    FNM_PERIOD) == 0 &&
            (last ? entry.is_regular_file(ignored)
                  : entry.is_directory(ignored))) {
          next.push_back(entry.path());
        }
      }
      if (error) {
        return absl::NotFoundError(
            absl::StrCat(field, " (\"", pattern, "\"): cannot list ",
                         directory.string(), ": ", error.message()));
      }
    }
    level = std::move(next);
  }
  if (level.empty()) {
    return absl::NotFoundError(
        absl::StrCat(field, " (\"", pattern,
                     "\") matches no file under --data_dir=", data_dir));
  }
  std::vector<std::string> matches;
  for (const fs::path& path : level) matches.push_back(path.string());
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace

absl::StatusOr<PretrainingData> EffectiveCorpus(const PretrainingData& data,
                                                const std::string& data_dir) {
  PretrainingData effective = data;
  effective.clear_with_data_dir();
  // FillDefaults makes an empty with_data_dir: no sources means none.
  if (!data_dir.empty() && data.with_data_dir().sources_size() > 0) {
    effective.clear_format();
    effective.clear_corpus_files();
    effective.clear_sources();
    const auto& sources = data.with_data_dir().sources();
    for (int i = 0; i < sources.size(); ++i) {
      PretrainingData::Source* source = effective.add_sources();
      source->set_format(sources[i].format());
      for (int j = 0; j < sources[i].files_size(); ++j) {
        ASSIGN_OR_RETURN(
            const std::vector<std::string> files,
            Expand(absl::StrCat("pretraining.data.with_data_dir.sources[", i,
                                "].files[", j, "]"),
                   sources[i].files(j), data_dir));
        for (const std::string& file : files) source->add_files(file);
      }
    }
  }
  if (effective.sources_size() == 1) {
    PretrainingData::Source only = effective.sources(0);
    effective.clear_sources();
    effective.set_format(only.format());
    *effective.mutable_corpus_files() = std::move(*only.mutable_files());
  }
  return effective;
}

absl::Status UseEffectiveCorpus(const std::string& data_dir,
                                std::vector<ResolvedRun>* runs) {
  for (ResolvedRun& run : *runs) {
    PretrainingData* data = run.spec.mutable_pretraining()->mutable_data();
    ASSIGN_OR_RETURN(*data, EffectiveCorpus(*data, data_dir),
                     _.Prepend("variant ", run.name, ": "));
  }
  return absl::OkStatus();
}

}  // namespace experiments
}  // namespace bertlab
