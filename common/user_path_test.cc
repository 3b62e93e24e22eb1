#include "common/user_path.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

TEST(UserPathTest, RelativePathsFollowBuildWorkingDirectory) {
  ASSERT_EQ(setenv("BUILD_WORKING_DIRECTORY", "/home/user/project", 1), 0);
  EXPECT_EQ(ResolveUserPath("data/b.json"), "/home/user/project/data/b.json");
  EXPECT_EQ(ResolveUserPath("/abs/b.json"), "/abs/b.json");
  EXPECT_EQ(ResolveUserPath(""), "");
}

TEST(UserPathTest, OutsideBazelRunPathsAreUnchanged) {
  ASSERT_EQ(unsetenv("BUILD_WORKING_DIRECTORY"), 0);
  EXPECT_EQ(ResolveUserPath("data/b.json"), "data/b.json");
  ASSERT_EQ(setenv("BUILD_WORKING_DIRECTORY", "", 1), 0);
  EXPECT_EQ(ResolveUserPath("data/b.json"), "data/b.json");
}

}  // namespace
}  // namespace bertlab
