#include "common/half.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace bertlab {
namespace {

bool IsHalfNan(uint16_t half) {
  return (half & 0x7C00u) == 0x7C00u && (half & 0x03FFu) != 0;
}

bool IsBf16Nan(uint16_t bf16) {
  return (bf16 & 0x7F80u) == 0x7F80u && (bf16 & 0x007Fu) != 0;
}

// The value of a half bit pattern, computed independently in double.
double ReferenceHalfValue(uint16_t half) {
  const double sign = (half & 0x8000u) ? -1.0 : 1.0;
  const int exponent = (half >> 10) & 0x1F;
  const int mantissa = half & 0x03FF;
  if (exponent == 0x1F) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

float FloatFromBits(uint32_t bits) { return half_internal::BitsToFloat(bits); }

TEST(Bf16Test, KnownPatterns) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16(-2.0f), 0xC000);
  EXPECT_EQ(FloatToBf16(0.0f), 0x0000);
  EXPECT_EQ(FloatToBf16(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(FloatToBf16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(Bf16ToFloat(0x4049), 3.140625f);
}

TEST(Bf16Test, RoundsToNearestTiesToEven) {
  // 1 + 2^-8 is halfway between 1 (even) and 1 + 2^-7: rounds down.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x3F808000)), 0x3F80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: rounds up.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x3F818000)), 0x3F82);
  // Just above and below the tie.
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0x3F807FFF)), 0x3F80);
  // The largest float rounds up to infinity.
  EXPECT_EQ(FloatToBf16(std::numeric_limits<float>::max()), 0x7F80);
}

TEST(Bf16Test, NanStaysQuietNan) {
  EXPECT_TRUE(IsBf16Nan(FloatToBf16(std::numeric_limits<float>::quiet_NaN())));
  // A signalling NaN whose payload lives only in the low 16 bits would
  // truncate to infinity without the quiet bit.
  const uint16_t converted = FloatToBf16(FloatFromBits(0x7F800001));
  EXPECT_TRUE(IsBf16Nan(converted));
  EXPECT_EQ(converted & 0x0040u, 0x0040u);
  EXPECT_EQ(FloatToBf16(FloatFromBits(0xFF800001)) & 0x8000u, 0x8000u);
}

TEST(Bf16Test, EveryPatternRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const uint16_t bf16 = static_cast<uint16_t>(bits);
    const float value = Bf16ToFloat(bf16);
    if (IsBf16Nan(bf16)) {
      EXPECT_TRUE(std::isnan(value)) << bits;
      EXPECT_TRUE(IsBf16Nan(FloatToBf16(value))) << bits;
    } else {
      EXPECT_EQ(FloatToBf16(value), bf16) << bits;
    }
  }
}

TEST(HalfTest, KnownPatterns) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);               // largest finite half
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1023.0f, -24)),
            0x03FF);  // largest subnormal
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x8001), -std::ldexp(1.0f, -24));
}

TEST(HalfTest, OverflowRoundsToInfinity) {
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7BFF);  // below the tie
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // the tie goes to even (inf)
  EXPECT_EQ(FloatToHalf(-65520.0f), 0xFC00);
  EXPECT_EQ(FloatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::max()), 0x7C00);
}

TEST(HalfTest, RoundsToNearestTiesToEven) {
  // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10: rounds down.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 0x3C01 (odd) and 0x3C02: rounds up.
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(FloatToHalf(FloatFromBits(0x3F801001)), 0x3C01);  // above the tie
  // Mantissa carry into the exponent: 2 - 2^-12 rounds up to 2.
  EXPECT_EQ(FloatToHalf(2.0f - std::ldexp(1.0f, -12)), 0x4000);
  // Subnormal ties: 2^-25 goes to 0, 3 * 2^-25 to 2 * 2^-24, 1.5 * 2^-24 ...
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(FloatToHalf(std::ldexp(5.0f, -25)), 0x0002);
  // ... and just above 2^-25 rounds up to the smallest subnormal.
  EXPECT_EQ(FloatToHalf(FloatFromBits(0x33000001)), 0x0001);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(FloatToHalf(-std::ldexp(1.0f, -26)), 0x8000);
  // The largest subnormal plus half a step rounds up to the smallest normal.
  EXPECT_EQ(FloatToHalf(std::ldexp(2047.0f, -25)), 0x0400);
}

TEST(HalfTest, NanStaysQuietNan) {
  const uint16_t converted =
      FloatToHalf(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(IsHalfNan(converted));
  EXPECT_EQ(converted & 0x0200u, 0x0200u);
  EXPECT_TRUE(IsHalfNan(FloatToHalf(FloatFromBits(0x7F800001))));
  EXPECT_EQ(FloatToHalf(FloatFromBits(0xFFC00000)) & 0x8000u, 0x8000u);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7C01)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0xFE00)));
}

TEST(HalfTest, EveryPatternRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const uint16_t half = static_cast<uint16_t>(bits);
    const float value = HalfToFloat(half);
    if (IsHalfNan(half)) {
      EXPECT_TRUE(std::isnan(value)) << bits;
      EXPECT_TRUE(IsHalfNan(FloatToHalf(value))) << bits;
      continue;
    }
    EXPECT_EQ(static_cast<double>(value), ReferenceHalfValue(half)) << bits;
    EXPECT_EQ(std::signbit(value), (half & 0x8000u) != 0) << bits;
    EXPECT_EQ(FloatToHalf(value), half) << bits;
  }
}

#ifdef __FLT16_MAX__
// GCC and Clang on x86-64 provide _Float16, whose conversion from float is
// IEEE round-to-nearest-even: an independent reference across the float range.
TEST(HalfTest, MatchesCompilerFloat16OnASweepOfFloats) {
  // A stride coprime with 2^32 visits every exponent and many mantissas.
  constexpr uint32_t kStride = 4093;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += kStride) {
    const float value = FloatFromBits(static_cast<uint32_t>(bits));
    if (std::isnan(value)) continue;
    const _Float16 reference = static_cast<_Float16>(value);
    uint16_t reference_bits;
    memcpy(&reference_bits, &reference, sizeof(reference_bits));
    ASSERT_EQ(FloatToHalf(value), reference_bits) << "float bits " << bits;
  }
}
#endif

}  // namespace
}  // namespace bertlab
