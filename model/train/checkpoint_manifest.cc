#include "model/train/checkpoint_manifest.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/file.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "nlohmann/json.hpp"

namespace bertlab {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kFormat[] = "bertlab.checkpoint_manifest";
constexpr int kVersion = 1;

absl::StatusOr<int64_t> FileSize(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat ", path));
  }
  return static_cast<int64_t>(info.st_size);
}

}  // namespace

absl::Status WriteCheckpointManifest(const std::string& dir,
                                     const std::vector<std::string>& files) {
  Json list = Json::array();
  for (const std::string& name : files) {
    const std::string path = absl::StrCat(dir, "/", name);
    ASSIGN_OR_RETURN(const int64_t bytes, FileSize(path));
    ASSIGN_OR_RETURN(const std::string sha256, Sha256FileHex(path));
    list.push_back({{"name", name}, {"bytes", bytes}, {"sha256", sha256}});
  }
  Json manifest = Json::object();
  manifest["format"] = kFormat;
  manifest["version"] = kVersion;
  manifest["files"] = std::move(list);
  return WriteFileAtomically(absl::StrCat(dir, "/", kCheckpointManifestFile),
                             manifest.dump(2) + "\n");
}

absl::Status VerifyCheckpointManifest(const std::string& dir,
                                      const std::vector<std::string>& files) {
  const std::string path = absl::StrCat(dir, "/", kCheckpointManifestFile);
  ASSIGN_OR_RETURN(const std::string text, ReadFileToString(path));
  const auto corrupt = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(path, ": ", what));
  };
  Json manifest;
  try {
    manifest = Json::parse(text);
  } catch (const std::exception& error) {
    return corrupt(absl::StrCat("malformed JSON: ", error.what()));
  }
  if (!manifest.is_object() || manifest.value("format", "") != kFormat ||
      !manifest.contains("version") || manifest["version"] != kVersion ||
      !manifest.contains("files") || !manifest["files"].is_array()) {
    return corrupt(absl::StrCat("not a version ", kVersion, " ", kFormat));
  }
  std::set<std::string> expected(files.begin(), files.end());
  std::set<std::string> listed;
  for (const Json& entry : manifest["files"]) {
    if (!entry.is_object() || !entry.contains("name") ||
        !entry["name"].is_string() || !entry.contains("bytes") ||
        !entry["bytes"].is_number_integer() || !entry.contains("sha256") ||
        !entry["sha256"].is_string()) {
      return corrupt(absl::StrCat("malformed entry ", entry.dump()));
    }
    const std::string name = entry["name"].get<std::string>();
    if (expected.count(name) == 0) {
      return corrupt(absl::StrCat("lists ", name,
                                  ", which is not a file of a checkpoint"));
    }
    if (!listed.insert(name).second) {
      return corrupt(absl::StrCat("lists ", name, " twice"));
    }
    const std::string file = absl::StrCat(dir, "/", name);
    absl::StatusOr<int64_t> bytes = FileSize(file);
    if (!bytes.ok()) {
      return absl::DataLossError(
          absl::StrCat(file, ": listed in the manifest but unreadable: ",
                       bytes.status().message()));
    }
    const int64_t listed_bytes = entry["bytes"].get<int64_t>();
    if (*bytes != listed_bytes) {
      return absl::DataLossError(
          absl::StrCat(file, ": ", *bytes, " bytes, the manifest says ",
                       listed_bytes, " (truncated or replaced)"));
    }
    ASSIGN_OR_RETURN(const std::string sha256, Sha256FileHex(file));
    const std::string listed_sha256 = entry["sha256"].get<std::string>();
    if (sha256 != listed_sha256) {
      return absl::DataLossError(absl::StrCat(
          file, ": SHA-256 ", sha256, " differs from the manifest's ",
          listed_sha256, " (the file changed after it was written)"));
    }
  }
  std::vector<std::string> missing;
  for (const std::string& name : expected) {
    if (listed.count(name) == 0) missing.push_back(name);
  }
  if (!missing.empty()) {
    return corrupt(
        absl::StrCat("does not list ", absl::StrJoin(missing, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace bertlab
