// Compiled with -mavx2 on x86-64 (model/ops/BUILD); intrinsics only (see the
// header for why).
#include "model/ops/philox_fill_avx2.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace bertlab {
namespace philox_fill_internal {

bool PhiloxAvx2Available() {
#if defined(__AVX2__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

#if defined(__AVX2__)
namespace {

// Philox4x32's round multipliers (common/philox.h).
constexpr uint32_t kMultiplier0 = 0xD2511F53u;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
// The odd 32-bit lanes of a 256-bit register, as a vpblendd immediate.
constexpr int kOddLanes = 0xAA;

// (hi, lo) of a * multiplier for each 32-bit lane of a: hi from the even
// lanes' 64-bit products and the odd lanes' (shifted down first), blended; lo
// is one vpmulld, which on Zen 3 beat the shift and blend that would take it
// from the same products (8% of the kernel's time).
void MulHiLo(__m256i a, __m256i multiplier, __m256i* hi, __m256i* lo) {
  const __m256i even = _mm256_mul_epu32(a, multiplier);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), multiplier);
  *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, kOddLanes);
  *lo = _mm256_mullo_epi32(a, multiplier);
}

// PhiloxBitsToUniform: (bits >> 8) * 2^-24, exact in float.
__m256 ToUniform(__m256i bits) {
  return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(bits, 8)),
                       _mm256_set1_ps(1.0f / 16777216.0f));
}

// Eight blocks into out[0, 32) in element order. Lane 4 h + i (128-bit half
// h) computes block 2 i + h, so that after the in-lane transpose below each
// register holds two consecutive blocks and no instruction crosses the
// halves. The 64-bit indices of the blocks of lanes 0, 2, 4, 6 are
// even_lanes' and those of lanes 1, 3, 5, 7 odd_lanes'.
void EightBlocks(const ExpandedPhiloxStream& stream, __m256i even_lanes,
                 __m256i odd_lanes, float* out) {
  __m256i c0 = _mm256_blend_epi32(even_lanes, _mm256_slli_epi64(odd_lanes, 32),
                                  kOddLanes);
  __m256i c1 = _mm256_blend_epi32(_mm256_srli_epi64(even_lanes, 32), odd_lanes,
                                  kOddLanes);
  __m256i c2 = _mm256_set1_epi32(static_cast<int32_t>(stream.step));
  __m256i c3 = _mm256_set1_epi32(static_cast<int32_t>(stream.tensor_id));
  const __m256i m0 = _mm256_set1_epi32(static_cast<int32_t>(kMultiplier0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int32_t>(kMultiplier1));
  for (int round = 0; round < 10; ++round) {
    __m256i hi0, lo0, hi1, lo1;
    MulHiLo(c0, m0, &hi0, &lo0);
    MulHiLo(c2, m1, &hi1, &lo1);
    const __m256i k0 =
        _mm256_set1_epi32(static_cast<int32_t>(stream.keys[2 * round]));
    const __m256i k1 =
        _mm256_set1_epi32(static_cast<int32_t>(stream.keys[2 * round + 1]));
    c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
    c1 = lo1;
    c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
    c3 = lo0;
  }
  // Register w holds word w of each lane's block. A 4 x 4 transpose inside
  // each half gives, for i = 0 .. 3, lane i's four words in the low half
  // (block 2 i) and lane 4 + i's in the high half (block 2 i + 1): out[8 i,
  // 8 i + 8).
  const __m256 w0 = ToUniform(c0), w1 = ToUniform(c1);
  const __m256 w2 = ToUniform(c2), w3 = ToUniform(c3);
  const __m256 s0 = _mm256_unpacklo_ps(w0, w1), s1 = _mm256_unpackhi_ps(w0, w1);
  const __m256 s2 = _mm256_unpacklo_ps(w2, w3), s3 = _mm256_unpackhi_ps(w2, w3);
  _mm256_storeu_ps(out, _mm256_shuffle_ps(s0, s2, 0x44));
  _mm256_storeu_ps(out + 8, _mm256_shuffle_ps(s0, s2, 0xEE));
  _mm256_storeu_ps(out + 16, _mm256_shuffle_ps(s1, s3, 0x44));
  _mm256_storeu_ps(out + 24, _mm256_shuffle_ps(s1, s3, 0xEE));
}

}  // namespace

void PhiloxGroupsAvx2(const ExpandedPhiloxStream& stream, uint64_t first_block,
                      uint64_t groups, float* out) {
  // Block indices in vectors, not through memory: eight scalar stores read
  // back as one vector load stall its store forwarding (6% of the kernel's
  // time on Zen 3).
  const __m256i first = _mm256_set1_epi64x(static_cast<int64_t>(first_block));
  __m256i even_lanes = _mm256_add_epi64(first, _mm256_setr_epi64x(0, 4, 1, 5));
  __m256i odd_lanes = _mm256_add_epi64(first, _mm256_setr_epi64x(2, 6, 3, 7));
  const __m256i eight = _mm256_set1_epi64x(8);
  for (uint64_t group = 0; group < groups; ++group) {
    EightBlocks(stream, even_lanes, odd_lanes, out + 32 * group);
    even_lanes = _mm256_add_epi64(even_lanes, eight);
    odd_lanes = _mm256_add_epi64(odd_lanes, eight);
  }
}
#else
// Never called: PhiloxAvx2Available() is false in this build.
void PhiloxGroupsAvx2(const ExpandedPhiloxStream&, uint64_t, uint64_t, float*) {
  __builtin_trap();
}
#endif

}  // namespace philox_fill_internal
}  // namespace bertlab
