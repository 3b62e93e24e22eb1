#include "model/ops/philox_fill.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/ops/philox_fill_avx512.h"

namespace bertlab {
namespace {

void ExpectSameAsScalarFill(const PhiloxStream& stream, uint64_t first,
                            uint64_t count) {
  std::vector<float> expected(count), actual(count + 1, -1.0f);
  PhiloxFillUniform(stream, first, count, expected.data());
  PhiloxFillUniformVectorized(stream, first, count, actual.data());
  ASSERT_EQ(std::memcmp(expected.data(), actual.data(), sizeof(float) * count),
            0)
      << "first " << first << " count " << count;
  EXPECT_EQ(actual[count], -1.0f) << "wrote past the end";
}

TEST(PhiloxFillTest, BitIdenticalToTheScalarFillForEveryOffsetAndLength) {
  const PhiloxStream stream{/*seed=*/0x123456789abcdefULL, /*step=*/77,
                            /*tensor_id=*/5};
  for (uint64_t first = 0; first < 40; ++first) {
    for (uint64_t count = 0; count < 70; ++count) {
      ExpectSameAsScalarFill(stream, first, count);
    }
  }
  ExpectSameAsScalarFill(stream, 12345, 100003);
  // Lengths around the AVX-512 kernel's 64-element groups, at every offset
  // into a block.
  for (uint64_t first = 1000; first < 1004; ++first) {
    for (uint64_t count = 60; count < 200; ++count) {
      ExpectSameAsScalarFill(stream, first, count);
    }
  }
}

// The AVX-512 kernel on its own (the fill above uses it only where the CPU
// has AVX-512F), sixteen blocks per group, against the scalar blocks.
TEST(PhiloxFillTest, Avx512GroupsAreTheScalarBlocks) {
  if (!philox_fill_internal::PhiloxAvx512Available()) {
    GTEST_SKIP() << "no AVX-512F on this CPU";
  }
  const PhiloxStream stream{/*seed=*/0xfedcba9876543210ULL, /*step=*/3,
                            /*tensor_id=*/9};
  for (const uint64_t first_block :
       {uint64_t{0}, uint64_t{5}, (uint64_t{1} << 32) - 7}) {
    std::vector<float> expected(3 * 64), actual(3 * 64 + 1, -1.0f);
    PhiloxFillUniform(stream, first_block * 4, expected.size(),
                      expected.data());
    philox_fill_internal::PhiloxGroupsAvx512(
        philox_fill_internal::Expand(stream), first_block, 3, actual.data());
    EXPECT_EQ(std::memcmp(expected.data(), actual.data(),
                          sizeof(float) * expected.size()),
              0)
        << "first block " << first_block;
    EXPECT_EQ(actual.back(), -1.0f) << "wrote past the end";
  }
}

TEST(PhiloxFillTest, BlockCountersCarryIntoTheHighWord) {
  // Blocks 2^32 - 2 .. 2^32 + 5: the counter's low word wraps inside a group.
  const PhiloxStream stream{/*seed=*/42, /*step=*/0, /*tensor_id=*/1};
  const uint64_t first = ((uint64_t{1} << 32) - 2) * 4 + 3;
  ExpectSameAsScalarFill(stream, first, 37);
}

}  // namespace
}  // namespace bertlab
