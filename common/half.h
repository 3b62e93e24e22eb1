// Conversions between float and the two 16-bit float formats, as uint16_t bit
// patterns:
//
//   bfloat16: sign, 8 exponent bits, 7 mantissa bits (the top half of a float).
//   half:     IEEE 754 binary16: sign, 5 exponent bits (bias 15), 10 mantissa
//             bits; largest finite 65504, smallest subnormal 2^-24.
//
// float -> 16 bits rounds to nearest, ties to even, as IEEE 754 and CUDA's
// __float2bfloat16 / __float2half do. Values beyond the largest finite number
// round to infinity; NaN stays NaN (quiet, sign and top payload bits kept).
// 16 bits -> float is exact. Everything is inline and usable from CUDA.
#ifndef BERTLAB_COMMON_HALF_H_
#define BERTLAB_COMMON_HALF_H_

#include <cstdint>
#include <cstring>  // the global memcpy, which CUDA device code can call

#include "common/host_device.h"

namespace bertlab {
namespace half_internal {

BERTLAB_HOST_DEVICE inline uint32_t FloatBits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

BERTLAB_HOST_DEVICE inline float BitsToFloat(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}

// Drops the low `shift` bits of `value` (0 < shift < 32), rounding to nearest
// with ties to even.
BERTLAB_HOST_DEVICE inline uint32_t ShiftRightRoundingToEven(uint32_t value,
                                                             int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t remainder = value & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  const bool round_up =
      remainder > halfway || (remainder == halfway && (kept & 1u));
  return kept + (round_up ? 1u : 0u);
}

}  // namespace half_internal

BERTLAB_HOST_DEVICE inline uint16_t FloatToBf16(float value) {
  const uint32_t bits = half_internal::FloatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    // NaN: truncate and set the quiet bit so the payload cannot become zero
    // (which would turn it into infinity).
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  // A carry out of the mantissa correctly bumps the exponent, up to infinity.
  return static_cast<uint16_t>(
      half_internal::ShiftRightRoundingToEven(bits, 16));
}

BERTLAB_HOST_DEVICE inline float Bf16ToFloat(uint16_t bf16) {
  return half_internal::BitsToFloat(static_cast<uint32_t>(bf16) << 16);
}

BERTLAB_HOST_DEVICE inline uint16_t FloatToHalf(float value) {
  const uint32_t bits = half_internal::FloatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {  // NaN: quiet, keep the top payload bits.
    return sign | 0x7E00u | static_cast<uint16_t>((magnitude >> 13) & 0x03FFu);
  }
  // 65520 = 0x477FF000 lies halfway between 65504 (odd mantissa) and 2^16, so
  // it and everything above rounds to infinity.
  if (magnitude >= 0x477FF000u) return sign | 0x7C00u;
  if (magnitude >= 0x38800000u) {  // >= 2^-14: a normal half.
    // Rebias the exponent (127 -> 15) in place, then drop 13 mantissa bits; a
    // carry out of the mantissa correctly bumps the exponent.
    const uint32_t rebiased = magnitude - ((127u - 15u) << 23);
    return sign | static_cast<uint16_t>(
                      half_internal::ShiftRightRoundingToEven(rebiased, 13));
  }
  // Subnormal half m * 2^-24. Below 2^-25 everything rounds to zero; exactly
  // 2^-25 is a tie that rounds to the even 0.
  const int exponent = static_cast<int>(magnitude >> 23);  // biased by 127
  if (exponent < 102) return sign;                         // < 2^-25
  const uint32_t significand = (magnitude & 0x007FFFFFu) | 0x00800000u;
  // value = significand * 2^(exponent - 150), so m = significand >> (126 - e);
  // a rounded m of 1024 is the smallest normal, which is the right encoding.
  return sign | static_cast<uint16_t>(half_internal::ShiftRightRoundingToEven(
                    significand, 126 - exponent));
}

BERTLAB_HOST_DEVICE inline float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  uint32_t mantissa = half & 0x03FFu;
  if (exponent == 0x1Fu) {  // Infinity, or NaN made quiet.
    const uint32_t quiet = mantissa != 0 ? 0x00400000u : 0u;
    return half_internal::BitsToFloat(sign | 0x7F800000u | quiet |
                                      (mantissa << 13));
  }
  if (exponent != 0) {
    return half_internal::BitsToFloat(sign | ((exponent + 127u - 15u) << 23) |
                                      (mantissa << 13));
  }
  if (mantissa == 0) return half_internal::BitsToFloat(sign);
  // Subnormal m * 2^-24: normalise so the leading one becomes implicit.
  int float_exponent = 127 - 14;
  while ((mantissa & 0x0400u) == 0) {
    mantissa <<= 1;
    --float_exponent;
  }
  return half_internal::BitsToFloat(
      sign | (static_cast<uint32_t>(float_exponent) << 23) |
      ((mantissa & 0x03FFu) << 13));
}

}  // namespace bertlab

#endif  // BERTLAB_COMMON_HALF_H_
