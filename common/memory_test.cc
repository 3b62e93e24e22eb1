#include "common/memory.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace bertlab {
namespace {

using ::testing::HasSubstr;

TEST(MemoryTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(512), "512 bytes");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(3.0 * (1 << 30)), "3.0 GiB");
  EXPECT_EQ(FormatBytes(4e12 * 1099511627776.0), "4e+12 TiB");
}

TEST(MemoryTest, ThisMachineHasSome) {
  // Every machine this runs on has at least 256 MiB.
  EXPECT_GT(PhysicalMemoryBytes(), int64_t{1} << 28);
  EXPECT_TRUE(CheckFitsInMemory(1 << 20, "a small buffer").ok());
}

TEST(MemoryTest, TooMuchSaysWhatAndHowMuch) {
  const absl::Status status = CheckFitsInMemory(1e30, "a model of 1e29");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      std::string(status.message()),
      HasSubstr("a model of 1e29 needs 9.1e+17 TiB; this machine has "));
}

}  // namespace
}  // namespace bertlab
