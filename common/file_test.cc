#include "common/file.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A fresh directory under TEST_TMPDIR for one test.
std::string MakeTestDirectory(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string directory =
      absl::StrCat(root != nullptr ? root : "/tmp", "/file_test_", name);
  ::mkdir(directory.c_str(), 0755);
  return directory;
}

std::vector<std::string> ListDirectory(const std::string& directory) {
  std::vector<std::string> names;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

TEST(FileTest, RoundTrip) {
  const std::string directory = MakeTestDirectory("round_trip");
  const std::string path = directory + "/data.bin";
  std::string contents = "hello";
  contents.push_back('\0');
  contents += std::string(200000, 'x');  // larger than one read buffer
  ASSERT_TRUE(WriteFileAtomically(path, contents).ok());
  absl::StatusOr<std::string> read = ReadFileToString(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, contents);
  EXPECT_THAT(ListDirectory(directory), ElementsAre("data.bin"));
}

TEST(FileTest, OverwritesAndWritesEmptyFiles) {
  const std::string path = MakeTestDirectory("overwrite") + "/data.bin";
  ASSERT_TRUE(WriteFileAtomically(path, "old contents").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "").ok());
  absl::StatusOr<std::string> read = ReadFileToString(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "");
}

TEST(FileTest, MissingFileNamesThePath) {
  const std::string path = MakeTestDirectory("missing") + "/no_such_file";
  absl::StatusOr<std::string> read = ReadFileToString(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(), HasSubstr(path));
  EXPECT_THAT(read.status().message(), HasSubstr("No such file or directory"));
}

TEST(FileTest, WriteIntoMissingDirectoryFailsAndLeavesNothing) {
  const std::string directory = MakeTestDirectory("missing_dir");
  const std::string path = directory + "/absent/data.bin";
  absl::Status status = WriteFileAtomically(path, "contents");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
  EXPECT_THAT(ListDirectory(directory), ElementsAre());
}

TEST(FileTest, FailedRenameRemovesTempFileAndKeepsTarget) {
  // rename(2) of a file over a non-empty directory fails after the temporary
  // file has been written, exercising the cleanup path.
  const std::string directory = MakeTestDirectory("failed_rename");
  const std::string target = directory + "/target";
  ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(target + "/kept", "old").ok());

  absl::Status status = WriteFileAtomically(target, "new contents");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot rename"));
  EXPECT_THAT(status.message(), HasSubstr(target));
  EXPECT_THAT(ListDirectory(directory), ElementsAre("target"));
  EXPECT_THAT(ListDirectory(target), ElementsAre("kept"));
  absl::StatusOr<std::string> kept = ReadFileToString(target + "/kept");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(*kept, "old");
}

}  // namespace
}  // namespace bertlab
