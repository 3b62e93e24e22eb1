#include "common/philox.h"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

struct KnownAnswer {
  PhiloxCounter counter;
  PhiloxKey key;
  PhiloxBlock expected;
};

// Random123 tests/kat_vectors, the three "philox4x32 10" lines (columns: CTR,
// KEY, EXPECTED). Also reproduced by an independent Python implementation
// written from the paper while this test was written.
TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  const KnownAnswer answers[] = {
      {{{0x00000000, 0x00000000, 0x00000000, 0x00000000}},
       {{0x00000000, 0x00000000}},
       {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {{0xffffffff, 0xffffffff}},
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {{0xa4093822, 0x299f31d0}},
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const KnownAnswer& answer : answers) {
    const PhiloxBlock block = Philox4x32_10(answer.counter, answer.key);
    for (int word = 0; word < 4; ++word) {
      EXPECT_EQ(block.v[word], answer.expected.v[word])
          << "word " << word << " of counter " << std::hex
          << answer.counter.c[0] << " key " << answer.key.k[0];
    }
  }
}

// Pins the stream convention (key = seed halves, counter = {block lo, block hi,
// step, tensor}); values from the independent Python implementation.
TEST(PhiloxTest, StreamConventionGoldenValues) {
  const PhiloxStream stream{0x0123456789abcdefull, 7, 3};
  EXPECT_EQ(PhiloxBits(stream, 0), 0x776b54beu);
  EXPECT_EQ(PhiloxBits(stream, 5), 0xe3de0126u);
  EXPECT_EQ(PhiloxUniform(stream, 0), 0.46648144721984863f);
  EXPECT_EQ(PhiloxUniform(stream, 5), 0.8901062607765198f);
  // An element whose block index needs the counter's high word.
  const PhiloxStream seed42{42, 0, 0};
  EXPECT_EQ(PhiloxBits(seed42, (uint64_t{1} << 34) + 2), 0x2fe739d4u);
}

TEST(PhiloxTest, BitsToUniformCoversHalfOpenUnitInterval) {
  EXPECT_EQ(PhiloxBitsToUniform(0), 0.0f);
  EXPECT_EQ(PhiloxBitsToUniform(0xff), 0.0f);  // low 8 bits are dropped
  EXPECT_EQ(PhiloxBitsToUniform(0x100), std::ldexp(1.0f, -24));
  EXPECT_EQ(PhiloxBitsToUniform(0x80000000u), 0.5f);
  EXPECT_EQ(PhiloxBitsToUniform(0xffffffffu), 1.0f - std::ldexp(1.0f, -24));
  EXPECT_LT(PhiloxBitsToUniform(0xffffffffu), 1.0f);
}

TEST(PhiloxTest, UniformMomentsAndHistogram) {
  constexpr int kCount = 100000;
  constexpr int kBins = 16;
  std::vector<float> values(kCount);
  PhiloxFillUniform(PhiloxStream{2018, 1, 0}, 0, kCount, values.data());
  double sum = 0;
  double sum_squares = 0;
  std::vector<int> histogram(kBins, 0);
  for (float value : values) {
    ASSERT_GE(value, 0.0f);
    ASSERT_LT(value, 1.0f);
    sum += value;
    sum_squares += static_cast<double>(value) * value;
    ++histogram[static_cast<int>(value * kBins)];
  }
  const double mean = sum / kCount;
  const double variance = sum_squares / kCount - mean * mean;
  // Standard errors for U(0, 1): sqrt(1/12 / n) = 9.1e-4 for the mean and
  // sqrt((1/80 - 1/144) / n) = 2.4e-4 for the variance; allow 5 of each.
  EXPECT_NEAR(mean, 0.5, 5 * 9.2e-4);
  EXPECT_NEAR(variance, 1.0 / 12.0, 5 * 2.4e-4);
  // Chi-square with 15 degrees of freedom: P(chi2 > 45) is about 1e-4.
  const double expected_per_bin = static_cast<double>(kCount) / kBins;
  double chi_square = 0;
  for (int count : histogram) {
    chi_square += (count - expected_per_bin) * (count - expected_per_bin) /
                  expected_per_bin;
  }
  EXPECT_LT(chi_square, 45.0);
}

TEST(PhiloxTest, DifferentSeedStepOrTensorGiveDifferentStreams) {
  const PhiloxStream streams[] = {
      {1, 0, 0}, {2, 0, 0}, {uint64_t{1} << 32 | 1, 0, 0},
      {1, 1, 0}, {1, 0, 1}, {1, 1, 1},
  };
  constexpr int kCount = 64;
  std::set<std::vector<uint32_t>> distinct;
  for (const PhiloxStream& stream : streams) {
    std::vector<uint32_t> bits(kCount);
    for (int i = 0; i < kCount; ++i) bits[i] = PhiloxBits(stream, i);
    distinct.insert(bits);
  }
  EXPECT_EQ(distinct.size(), std::size(streams));
  // Within one stream, blocks differ too (no accidental counter reuse).
  std::set<uint32_t> words;
  for (int i = 0; i < 4096; ++i) words.insert(PhiloxBits(streams[0], i));
  EXPECT_GT(words.size(), 4090u);  // 32-bit birthday collisions are ~0.002
}

TEST(PhiloxTest, SingleElementMatchesBulkFill) {
  const PhiloxStream stream{0xfeedbeefcafe, 12345, 77};
  constexpr uint64_t kCount = 1001;  // not a multiple of 4
  std::vector<float> bulk(kCount);
  PhiloxFillUniform(stream, 0, kCount, bulk.data());
  for (uint64_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(bulk[i], PhiloxUniform(stream, i)) << "element " << i;
  }
  // Fills starting and ending mid-block agree with the whole fill.
  for (uint64_t first : {1, 2, 3, 5, 990}) {
    for (uint64_t count : {0, 1, 2, 3, 7}) {
      std::vector<float> part(count + 1, -1.0f);
      PhiloxFillUniform(stream, first, count, part.data());
      for (uint64_t j = 0; j < count; ++j) {
        ASSERT_EQ(part[j], bulk[first + j]) << "first " << first << " j " << j;
      }
      EXPECT_EQ(part[count], -1.0f) << "wrote past the end";
    }
  }
}

TEST(PhiloxTest, Deterministic) {
  const PhiloxStream stream{99, 3, 4};
  std::vector<float> first(257);
  std::vector<float> second(257);
  PhiloxFillUniform(stream, 0, first.size(), first.data());
  PhiloxFillUniform(stream, 0, second.size(), second.data());
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace bertlab
