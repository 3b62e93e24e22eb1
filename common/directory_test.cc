#include "common/directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

std::string TestRoot(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string dir =
      absl::StrCat(root != nullptr ? root : "/tmp", "/directory_test_", name);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

TEST(CreateDirectoriesTest, MakesMissingParentsAndAcceptsAnExistingOne) {
  const std::string dir = TestRoot("make") + "/a/b/c";
  ASSERT_TRUE(CreateDirectories(dir).ok());
  struct stat info;
  ASSERT_EQ(::stat(dir.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_TRUE(CreateDirectories(dir).ok());
}

TEST(CreateDirectoriesTest, NamesTheFileInTheWay) {
  const std::string root = TestRoot("file_in_the_way");
  Touch(root + "/notes.txt");
  const absl::Status status = CreateDirectories(root + "/notes.txt/runs/x");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), absl::StrCat("cannot create directory ", root,
                                           "/notes.txt/runs/x: ", root,
                                           "/notes.txt is not a directory"));
}

TEST(CreateDirectoriesTest, APathThatIsAFileIsRefused) {
  const std::string root = TestRoot("is_a_file");
  Touch(root + "/out");
  const absl::Status status = CreateDirectories(root + "/out");
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("/out exists and is not a directory"));
}

TEST(CreateDirectoriesTest, AnEmptyPathIsAnError) {
  EXPECT_FALSE(CreateDirectories("").ok());
}

TEST(PathExistsTest, TellsFilesDirectoriesAndMissingPathsApart) {
  const std::string root = TestRoot("exists");
  Touch(root + "/file");
  EXPECT_TRUE(PathExists(root).value());
  EXPECT_TRUE(PathExists(root + "/file").value());
  EXPECT_FALSE(PathExists(root + "/missing").value());
  // A parent that is a file: ENOTDIR, which means "not there".
  EXPECT_FALSE(PathExists(root + "/file/below").value());
}

TEST(PathExistsTest, ASymlinkLoopIsAnErrorNamingThePath) {
  const std::string root = TestRoot("loop");
  const std::string link = root + "/loop";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(link.c_str(), link.c_str()), 0);
  const absl::StatusOr<bool> exists = PathExists(link + "/x");
  ASSERT_FALSE(exists.ok());
  EXPECT_THAT(exists.status().message(), HasSubstr(link));
}

}  // namespace
}  // namespace bertlab
