#include "model/ops/philox_fill.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"

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
}

TEST(PhiloxFillTest, BlockCountersCarryIntoTheHighWord) {
  // Blocks 2^32 - 2 .. 2^32 + 5: the counter's low word wraps inside a group.
  const PhiloxStream stream{/*seed=*/42, /*step=*/0, /*tensor_id=*/1};
  const uint64_t first = ((uint64_t{1} << 32) - 2) * 4 + 3;
  ExpectSameAsScalarFill(stream, first, 37);
}

}  // namespace
}  // namespace bertlab
