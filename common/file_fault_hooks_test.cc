// The ENOSPC hook of common/file.h: BUILD sets
// BERTLAB_TESTING_ENOSPC_AFTER_BYTES=10 for this test's process.
#include <cstdio>
#include <filesystem>
#include <string>

#include "common/file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

TEST(FileFaultHooksTest, TheDiskFillsUpAfterTheGivenBytes) {
  const std::string dir = ::testing::TempDir() + "/full_disk";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomically(dir + "/a", "hello").ok());  // 5 of 10
  ASSERT_TRUE(WriteFileAtomically(dir + "/b", "old").ok());    // 8 of 10
  const absl::Status full = WriteFileAtomically(dir + "/b", "world!");
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(full.message()),
              HasSubstr("No space left on device"));
  EXPECT_THAT(std::string(full.message()), HasSubstr(dir + "/b.tmp."));
  // Nothing lost: the old contents stay, the temporary file is gone.
  EXPECT_EQ(ReadFileToString(dir + "/b").value(), "old");
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++entries;
    EXPECT_THAT(entry.path().filename().string(), ::testing::AnyOf("a", "b"));
  }
  EXPECT_EQ(entries, 2);
}

}  // namespace
}  // namespace bertlab
