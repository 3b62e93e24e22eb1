#include "model/ops/philox_fill.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/philox.h"
#include "gtest/gtest.h"
#include "model/ops/philox_fill_avx2.h"
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

// Streams that differ in every counter and key word the kernels take.
std::vector<PhiloxStream> SeveralStreams() {
  return {PhiloxStream{/*seed=*/0, /*step=*/0, /*tensor_id=*/0},
          PhiloxStream{/*seed=*/0x123456789abcdefULL, /*step=*/77,
                       /*tensor_id=*/5},
          PhiloxStream{/*seed=*/0xffffffffffffffffULL, /*step=*/0xffffffffu,
                       /*tensor_id=*/0xffffffffu},
          PhiloxStream{/*seed=*/0x9e3779b97f4a7c15ULL, /*step=*/123456,
                       /*tensor_id=*/31}};
}

// Block indices where the kernels' counters are interesting: small, odd, the
// low word wrapping inside a group, above 2^32 blocks, near 2^62 (the last
// block an element index reaches).
std::vector<uint64_t> InterestingFirstBlocks() {
  return {0,
          1,
          3,
          5,
          8,
          (uint64_t{1} << 32) - 7,
          (uint64_t{1} << 32) - 1,
          uint64_t{1} << 32,
          (uint64_t{1} << 33) + 3,
          (uint64_t{1} << 40) + 12345,
          (uint64_t{1} << 62) - 100};
}

// The AVX2 kernel on its own (the fill uses it only where the CPU has AVX2,
// and where it also has AVX-512F, only for what the sixteen-block groups
// leave), eight blocks per group, against the scalar blocks.
TEST(PhiloxFillTest, Avx2GroupsAreTheScalarBlocks) {
  if (!philox_fill_internal::PhiloxAvx2Available()) {
    GTEST_SKIP() << "no AVX2 on this CPU";
  }
  for (const PhiloxStream& stream : SeveralStreams()) {
    for (const uint64_t first_block : InterestingFirstBlocks()) {
      for (const uint64_t groups : {0, 1, 2, 5}) {
        std::vector<float> expected(groups * 32),
            actual(groups * 32 + 1, -1.0f);
        PhiloxFillUniform(stream, first_block * 4, expected.size(),
                          expected.data());
        philox_fill_internal::PhiloxGroupsAvx2(
            philox_fill_internal::Expand(stream), first_block, groups,
            actual.data());
        EXPECT_EQ(std::memcmp(expected.data(), actual.data(),
                              sizeof(float) * expected.size()),
                  0)
            << "seed " << stream.seed << " step " << stream.step << " tensor "
            << stream.tensor_id << " first block " << first_block << " groups "
            << groups;
        EXPECT_EQ(actual.back(), -1.0f) << "wrote past the end";
      }
    }
  }
}

// The fill through its AVX2 dispatch: every start inside a block and inside
// an eight-block group, lengths around whole groups (the partial blocks and
// SSE2 groups at either end), at every interesting block index and stream.
TEST(PhiloxFillTest, Avx2FillIsTheScalarFillAtEveryOffset) {
  if (!philox_fill_internal::PhiloxAvx2Available()) {
    GTEST_SKIP() << "no AVX2 on this CPU";
  }
  for (const PhiloxStream& stream : SeveralStreams()) {
    for (const uint64_t first_block : InterestingFirstBlocks()) {
      for (uint64_t skip = 0; skip < 33; ++skip) {
        for (const uint64_t count :
             {0,  1,  3,  15, 16, 17,  31,  32,  33,  47,  48,
              63, 64, 65, 95, 96, 100, 127, 128, 129, 200, 257}) {
          ExpectSameAsScalarFill(stream, first_block * 4 + skip, count);
        }
      }
    }
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
