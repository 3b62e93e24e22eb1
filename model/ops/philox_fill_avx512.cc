// Compiled with -mavx512f on x86-64 (model/ops/BUILD); intrinsics only (see
// the header for why).
#include "model/ops/philox_fill_avx512.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace bertlab {
namespace philox_fill_internal {

bool PhiloxAvx512Available() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

#if defined(__AVX512F__)
namespace {

// Philox4x32's round multipliers (common/philox.h).
constexpr uint32_t kMultiplier0 = 0xD2511F53u;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
// The odd 32-bit lanes of a 512-bit register.
constexpr __mmask16 kOddLanes = 0xAAAA;

// (hi, lo) of a * multiplier for each 32-bit lane of a: the even lanes'
// 64-bit products, then the odd lanes' (shifted down first), blended.
void MulHiLo(__m512i a, __m512i multiplier, __m512i* hi, __m512i* lo) {
  const __m512i even = _mm512_mul_epu32(a, multiplier);
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), multiplier);
  *lo = _mm512_mask_blend_epi32(kOddLanes, even, _mm512_slli_epi64(odd, 32));
  *hi = _mm512_mask_blend_epi32(kOddLanes, _mm512_srli_epi64(even, 32), odd);
}

// PhiloxBitsToUniform: (bits >> 8) * 2^-24, exact in float.
__m512 ToUniform(__m512i bits) {
  return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(bits, 8)),
                       _mm512_set1_ps(1.0f / 16777216.0f));
}

// Blocks first_block .. first_block + 15 into out[0, 64) in element order.
void SixteenBlocks(const ExpandedPhiloxStream& stream, uint64_t first_block,
                   float* out) {
  alignas(64) uint32_t low[16], high[16];
  for (int lane = 0; lane < 16; ++lane) {
    low[lane] = static_cast<uint32_t>(first_block + lane);
    high[lane] = static_cast<uint32_t>((first_block + lane) >> 32);
  }
  __m512i c0 = _mm512_load_si512(low);
  __m512i c1 = _mm512_load_si512(high);
  __m512i c2 = _mm512_set1_epi32(static_cast<int32_t>(stream.step));
  __m512i c3 = _mm512_set1_epi32(static_cast<int32_t>(stream.tensor_id));
  const __m512i m0 = _mm512_set1_epi32(static_cast<int32_t>(kMultiplier0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int32_t>(kMultiplier1));
  for (int round = 0; round < 10; ++round) {
    __m512i hi0, lo0, hi1, lo1;
    MulHiLo(c0, m0, &hi0, &lo0);
    MulHiLo(c2, m1, &hi1, &lo1);
    const __m512i k0 =
        _mm512_set1_epi32(static_cast<int32_t>(stream.keys[2 * round]));
    const __m512i k1 =
        _mm512_set1_epi32(static_cast<int32_t>(stream.keys[2 * round + 1]));
    c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), k0);
    c1 = lo1;
    c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), k1);
    c3 = lo0;
  }
  // Register w holds word w of the sixteen blocks (lane i: block i). First a
  // 4 x 4 transpose inside each 128-bit lane L, so t_i holds block 4 L + i's
  // four words there ...
  const __m512 w0 = ToUniform(c0), w1 = ToUniform(c1);
  const __m512 w2 = ToUniform(c2), w3 = ToUniform(c3);
  const __m512 s0 = _mm512_unpacklo_ps(w0, w1), s1 = _mm512_unpackhi_ps(w0, w1);
  const __m512 s2 = _mm512_unpacklo_ps(w2, w3), s3 = _mm512_unpackhi_ps(w2, w3);
  const __m512 t0 = _mm512_shuffle_ps(s0, s2, 0x44);
  const __m512 t1 = _mm512_shuffle_ps(s0, s2, 0xEE);
  const __m512 t2 = _mm512_shuffle_ps(s1, s3, 0x44);
  const __m512 t3 = _mm512_shuffle_ps(s1, s3, 0xEE);
  // ... then a 4 x 4 transpose of the 128-bit lanes: output register L holds
  // blocks 4 L .. 4 L + 3, i.e. (t0, t1, t2, t3) of lane L.
  const __m512 u0 = _mm512_shuffle_f32x4(t0, t1, 0x44);
  const __m512 u1 = _mm512_shuffle_f32x4(t2, t3, 0x44);
  const __m512 u2 = _mm512_shuffle_f32x4(t0, t1, 0xEE);
  const __m512 u3 = _mm512_shuffle_f32x4(t2, t3, 0xEE);
  _mm512_storeu_ps(out, _mm512_shuffle_f32x4(u0, u1, 0x88));
  _mm512_storeu_ps(out + 16, _mm512_shuffle_f32x4(u0, u1, 0xDD));
  _mm512_storeu_ps(out + 32, _mm512_shuffle_f32x4(u2, u3, 0x88));
  _mm512_storeu_ps(out + 48, _mm512_shuffle_f32x4(u2, u3, 0xDD));
}

}  // namespace

void PhiloxGroupsAvx512(const ExpandedPhiloxStream& stream,
                        uint64_t first_block, uint64_t groups, float* out) {
  for (uint64_t group = 0; group < groups; ++group) {
    SixteenBlocks(stream, first_block + 16 * group, out + 64 * group);
  }
}
#else
// Never called: PhiloxAvx512Available() is false in this build.
void PhiloxGroupsAvx512(const ExpandedPhiloxStream&, uint64_t, uint64_t,
                        float*) {
  __builtin_trap();
}
#endif

}  // namespace philox_fill_internal
}  // namespace bertlab
