// The rounding of precision_cast_cuda.h's CastFloatToBf16, checked on the CPU
// (the kernel itself needs a GPU): its documented rounding is IEEE round to
// nearest, ties to even (cvt.rn.bf16.f32, no flush of subnormals, overflow to
// infinity), and the GPU tests use common/half.h's FloatToBf16 as its
// reference. This test shows that reference IS that rounding: for a sweep of
// every sign and exponent with the mantissa tails where rounding decides
// (exact, just below / at / just above the halfway point, all ones) plus
// pseudo-random tails, FloatToBf16 returns the bf16 nearest in value, found
// independently by searching the sorted bf16 values in double.
//
// With --config=cuda the test also compiles cuda_bf16.h (g++ can include it,
// see host_headers_test.cc) and checks that CUDA's own host implementation
// of __float2bfloat16_rn gives the same bits on the same sweep, and that
// __bfloat162float agrees with Bf16ToFloat on every pattern. No GPU needed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/half.h"
#include "gtest/gtest.h"

#ifdef BERTLAB_TEST_CUDA_HOST_BF16
#include <cuda_bf16.h>
#endif

namespace bertlab {
namespace {

float FloatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

bool IsBf16Nan(uint16_t bf16) {
  return (bf16 & 0x7F80u) == 0x7F80u && (bf16 & 0x007Fu) != 0;
}

// Every non-negative finite bf16 value in increasing order (bit patterns
// 0x0000 .. 0x7F7F), then 2^128: the "next value" after the largest finite
// bf16 in IEEE's overflow rule, whose pattern 0x7F80 is infinity.
struct Bf16Values {
  std::vector<double> values;
  Bf16Values() {
    for (uint32_t bits = 0; bits < 0x7F80u; ++bits) {
      const int exponent = static_cast<int>(bits >> 7);
      const int mantissa = static_cast<int>(bits & 0x7Fu);
      values.push_back(exponent == 0
                           ? std::ldexp(mantissa, -133)  // subnormal
                           : std::ldexp(128 + mantissa, exponent - 134));
    }
    values.push_back(std::ldexp(1.0, 128));
  }
};

// The bf16 nearest to `value` (not NaN), ties to the even pattern, by value
// alone. Index i of Bf16Values is pattern i, so the pattern is the index.
uint16_t ReferenceRoundToBf16(const Bf16Values& table, float value) {
  const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isinf(value)) return sign | 0x7F80u;
  const std::vector<double>& v = table.values;
  // First value > magnitude; its predecessor is <= magnitude.
  const size_t above = static_cast<size_t>(
      std::upper_bound(v.begin(), v.end(), magnitude) - v.begin());
  if (above == v.size()) return sign | 0x7F80u;  // >= 2^128: not a float
  const size_t below = above - 1;
  if (v[below] == magnitude) return sign | static_cast<uint16_t>(below);
  const double to_below = magnitude - v[below];
  const double to_above = v[above] - magnitude;
  size_t nearest;
  if (to_below != to_above) {
    nearest = to_below < to_above ? below : above;
  } else {
    nearest = (below % 2 == 0) ? below : above;
  }
  return sign | static_cast<uint16_t>(nearest);
}

// Floats whose low 16 bits are where the rounding is decided, for every sign
// and exponent (except the NaN / infinity exponent) and every leading 7-bit
// mantissa: exact, one below / at / one above the halfway point, all ones,
// and a few pseudo-random tails.
std::vector<uint32_t> RoundingSweep() {
  std::vector<uint32_t> bits;
  std::mt19937 engine(2019);
  std::uniform_int_distribution<uint32_t> tail(0, 0xFFFFu);
  for (uint32_t high = 0; high <= 0xFFFFu; ++high) {
    if ((high & 0x7F80u) == 0x7F80u) continue;
    for (uint32_t low : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu,
                         tail(engine), tail(engine)}) {
      bits.push_back((high << 16) | low);
    }
  }
  return bits;
}

TEST(PrecisionCastRoundingTest, FloatToBf16IsRoundToNearestEven) {
  const Bf16Values table;
  int64_t mismatches = 0;
  for (uint32_t bits : RoundingSweep()) {
    const float value = FloatFromBits(bits);
    const uint16_t expected = ReferenceRoundToBf16(table, value);
    const uint16_t actual = FloatToBf16(value);
    if (actual != expected && ++mismatches <= 10) {
      ADD_FAILURE() << "float bits 0x" << std::hex << bits << ": FloatToBf16 0x"
                    << actual << ", nearest-even 0x" << expected;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(PrecisionCastRoundingTest, EdgesOfTheRange) {
  // Halfway between the largest finite bf16 (odd pattern 0x7F7F) and 2^128
  // rounds to the even side: infinity. Just below stays finite.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x7F7F8000u)), 0x7F80u);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x7F7F7FFFu)), 0x7F7Fu);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0xFF7F8000u)), 0xFF80u);
  // Subnormals are rounded, not flushed: halfway between 0 and the smallest
  // bf16 subnormal goes to the even 0, just above it to 0x0001.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x00008000u)), 0x0000u);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x00008001u)), 0x0001u);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x00018000u)), 0x0002u);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x80000000u)), 0x8000u);  // -0
  // A carry out of the mantissa moves to the next binade.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x3FFF8000u)), 0x4000u);
}

TEST(PrecisionCastRoundingTest, NanStaysNan) {
  for (uint32_t bits : {0x7FC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu}) {
    EXPECT_TRUE(IsBf16Nan(FloatToBf16(FloatFromBits(bits)))) << bits;
  }
}

#ifdef BERTLAB_TEST_CUDA_HOST_BF16
uint16_t CudaHostBits(float value) {
  const __nv_bfloat16 converted = __float2bfloat16_rn(value);
  uint16_t bits;
  std::memcpy(&bits, &converted, sizeof(bits));
  return bits;
}

TEST(PrecisionCastRoundingTest, MatchesCudaHostFloat2Bfloat16Rn) {
  int64_t mismatches = 0;
  std::vector<uint32_t> sweep = RoundingSweep();
  for (uint32_t extra : {0x7F800000u, 0xFF800000u, 0x7F7FFFFFu, 0x7F7F8000u}) {
    sweep.push_back(extra);
  }
  for (uint32_t bits : sweep) {
    const float value = FloatFromBits(bits);
    if (CudaHostBits(value) != FloatToBf16(value) && ++mismatches <= 10) {
      ADD_FAILURE() << "float bits 0x" << std::hex << bits << ": CUDA 0x"
                    << CudaHostBits(value) << ", FloatToBf16 0x"
                    << FloatToBf16(value);
    }
  }
  EXPECT_EQ(mismatches, 0);
  // NaN: both give a NaN (CUDA's is the canonical 0x7FFF).
  EXPECT_TRUE(IsBf16Nan(CudaHostBits(FloatFromBits(0x7F800001u))));
}

TEST(PrecisionCastRoundingTest, Bf16ToFloatMatchesCuda) {
  for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
    if (IsBf16Nan(static_cast<uint16_t>(bits))) continue;
    const uint16_t pattern = static_cast<uint16_t>(bits);
    __nv_bfloat16_raw raw;
    raw.x = pattern;
    const __nv_bfloat16 value(raw);
    const float cuda = __bfloat162float(value);
    const float ours = Bf16ToFloat(pattern);
    ASSERT_EQ(std::memcmp(&cuda, &ours, sizeof(float)), 0) << bits;
  }
}
#endif  // BERTLAB_TEST_CUDA_HOST_BF16

}  // namespace
}  // namespace bertlab
