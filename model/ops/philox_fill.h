// PhiloxFillUniformVectorized: the same numbers as common/philox.h's
// PhiloxFillUniform (out[j] = PhiloxUniform(stream, first + j)), bit for bit,
// computed four Philox blocks (16 uniforms) at a time with SSE2, which every
// x86-64 CPU has. Philox's 32x32 -> 64-bit products map onto _mm_mul_epu32,
// two lanes per instruction; the scalar fill spends a 64-bit multiply per
// product, and the dropout masks of a BERT step draw ~10^8 uniforms. Without
// SSE2 (another architecture) it is PhiloxFillUniform itself. Wider kernels
// take whole block-aligned runs where the CPU has them, with the round keys
// computed once per call instead of once per four blocks: sixteen blocks at
// a time with AVX-512F (philox_fill_avx512.h), then eight at a time with AVX2
// (philox_fill_avx2.h: the wide path of CPUs without AVX-512, such as Zen 3);
// SSE2 does the rest.
// philox_fill_test.cc checks the identity against the scalar fill.
#ifndef BERTLAB_MODEL_OPS_PHILOX_FILL_H_
#define BERTLAB_MODEL_OPS_PHILOX_FILL_H_

#include <cstdint>
#include <cstring>

#include "common/philox.h"
#include "model/ops/philox_fill_avx2.h"
#include "model/ops/philox_fill_avx512.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace bertlab {

#if defined(__SSE2__)
namespace philox_fill_internal {

// (hi, lo) of a * multiplier for each 32-bit lane of a.
inline void MulHiLo(__m128i a, __m128i multiplier, __m128i* hi, __m128i* lo) {
  const __m128i kLow = _mm_set_epi32(0, -1, 0, -1);   // low half of each u64
  const __m128i even = _mm_mul_epu32(a, multiplier);  // lanes 0, 2 as u64
  const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), multiplier);
  *lo = _mm_or_si128(_mm_and_si128(even, kLow), _mm_slli_epi64(odd, 32));
  *hi = _mm_or_si128(_mm_srli_epi64(even, 32), _mm_andnot_si128(kLow, odd));
}

// Uniforms of blocks first_block .. first_block + 3 into out[0..16), in
// element order (block-major, then word).
inline void FourBlocks(const PhiloxStream& stream, uint64_t first_block,
                       float* out) {
  using philox_internal::kMultiplier0;
  using philox_internal::kMultiplier1;
  using philox_internal::kWeyl0;
  using philox_internal::kWeyl1;
  uint32_t low[4], high[4];
  for (int lane = 0; lane < 4; ++lane) {
    low[lane] = static_cast<uint32_t>(first_block + lane);
    high[lane] = static_cast<uint32_t>((first_block + lane) >> 32);
  }
  __m128i c0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(low));
  __m128i c1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(high));
  __m128i c2 = _mm_set1_epi32(static_cast<int32_t>(stream.step));
  __m128i c3 = _mm_set1_epi32(static_cast<int32_t>(stream.tensor_id));
  const __m128i m0 = _mm_set1_epi32(static_cast<int32_t>(kMultiplier0));
  const __m128i m1 = _mm_set1_epi32(static_cast<int32_t>(kMultiplier1));
  PhiloxKey key = PhiloxKeyForSeed(stream.seed);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key.k[0] += kWeyl0;
      key.k[1] += kWeyl1;
    }
    __m128i hi0, lo0, hi1, lo1;
    MulHiLo(c0, m0, &hi0, &lo0);
    MulHiLo(c2, m1, &hi1, &lo1);
    const __m128i k0 = _mm_set1_epi32(static_cast<int32_t>(key.k[0]));
    const __m128i k1 = _mm_set1_epi32(static_cast<int32_t>(key.k[1]));
    c0 = _mm_xor_si128(_mm_xor_si128(hi1, c1), k0);
    c1 = lo1;
    c2 = _mm_xor_si128(_mm_xor_si128(hi0, c3), k1);
    c3 = lo0;
  }
  // PhiloxBitsToUniform: (bits >> 8) * 2^-24, exact in float.
  const __m128 kScale = _mm_set1_ps(1.0f / 16777216.0f);
  __m128 w0 = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(c0, 8)), kScale);
  __m128 w1 = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(c1, 8)), kScale);
  __m128 w2 = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(c2, 8)), kScale);
  __m128 w3 = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32(c3, 8)), kScale);
  // Lanes are blocks and registers are words: transpose to element order.
  _MM_TRANSPOSE4_PS(w0, w1, w2, w3);
  _mm_storeu_ps(out, w0);
  _mm_storeu_ps(out + 4, w1);
  _mm_storeu_ps(out + 8, w2);
  _mm_storeu_ps(out + 12, w3);
}

// The stream's round keys and constant counter words, for the AVX-512 and
// AVX2 kernels.
inline ExpandedPhiloxStream Expand(const PhiloxStream& stream) {
  ExpandedPhiloxStream expanded;
  PhiloxKey key = PhiloxKeyForSeed(stream.seed);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key.k[0] += philox_internal::kWeyl0;
      key.k[1] += philox_internal::kWeyl1;
    }
    expanded.keys[2 * round] = key.k[0];
    expanded.keys[2 * round + 1] = key.k[1];
  }
  expanded.step = stream.step;
  expanded.tensor_id = stream.tensor_id;
  return expanded;
}

}  // namespace philox_fill_internal

// out[j] = PhiloxUniform(stream, first + j) for j in [0, count).
inline void PhiloxFillUniformVectorized(const PhiloxStream& stream,
                                        uint64_t first, uint64_t count,
                                        float* out) {
  constexpr uint64_t kGroup = 16;      // elements of four blocks
  constexpr uint64_t kAvx2Group = 32;  // elements of eight blocks
  constexpr uint64_t kWideGroup = 64;  // elements of sixteen blocks
  static const bool kAvx512 = philox_fill_internal::PhiloxAvx512Available();
  static const bool kAvx2 = philox_fill_internal::PhiloxAvx2Available();
  uint64_t j = 0;
  // Whole groups of four blocks (block-aligned: first + j is a multiple of
  // 4) straight into out, sixteen blocks at a time with AVX-512, then eight
  // at a time with AVX2; a partial group at either end through a buffer.
  while (j < count) {
    const uint64_t index = first + j;
    const uint64_t block = index / 4;
    const uint64_t skip = index % 4;
    if (kAvx512 && skip == 0 && count - j >= kWideGroup) {
      const uint64_t groups = (count - j) / kWideGroup;
      philox_fill_internal::PhiloxGroupsAvx512(
          philox_fill_internal::Expand(stream), block, groups, out + j);
      j += groups * kWideGroup;
      continue;
    }
    if (kAvx2 && skip == 0 && count - j >= kAvx2Group) {
      const uint64_t groups = (count - j) / kAvx2Group;
      philox_fill_internal::PhiloxGroupsAvx2(
          philox_fill_internal::Expand(stream), block, groups, out + j);
      j += groups * kAvx2Group;
      continue;
    }
    if (skip == 0 && count - j >= kGroup) {
      philox_fill_internal::FourBlocks(stream, block, out + j);
      j += kGroup;
      continue;
    }
    float group[kGroup];
    philox_fill_internal::FourBlocks(stream, block, group);
    const uint64_t take = count - j < kGroup - skip ? count - j : kGroup - skip;
    std::memcpy(out + j, group + skip, sizeof(float) * take);
    j += take;
  }
}

#else  // !defined(__SSE2__)

inline void PhiloxFillUniformVectorized(const PhiloxStream& stream,
                                        uint64_t first, uint64_t count,
                                        float* out) {
  PhiloxFillUniform(stream, first, count, out);
}

#endif  // defined(__SSE2__)

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_PHILOX_FILL_H_
