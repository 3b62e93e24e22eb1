// Compiled with -mavx512f on x86-64 (model/ops/BUILD). Intrinsics only: no
// inline function of another header is compiled here, so the linker can
// never keep an AVX-512 copy of one for callers on other CPUs.
#include "model/ops/bf16_round_avx512.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace bertlab {

bool Bf16RoundAvx512Available() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

#if defined(__AVX512F__)
namespace {

// bf16_round.cc's RoundBitsToBf16 on 16 lanes: (bits + 0x7FFF + kept lsb)
// >> 16, or for NaNs the truncation with the quiet bit set.
__m512i RoundLanes(__m512i bits) {
  const __m512i kept = _mm512_srli_epi32(bits, 16);
  const __m512i lowest_kept_bit = _mm512_and_si512(kept, _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7FFF)),
                       lowest_kept_bit),
      16);
  const __m512i quiet_nan = _mm512_or_si512(kept, _mm512_set1_epi32(0x0040));
  const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF)),
      _mm512_set1_epi32(0x7F800000));
  return _mm512_mask_blend_epi32(is_nan, rounded, quiet_nan);
}

}  // namespace

void RoundRowToBf16Avx512(const float* from, int64_t count, uint16_t* to) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512i bits = _mm512_loadu_si512(from + i);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i),
                        _mm512_cvtepi32_epi16(RoundLanes(bits)));
  }
  if (i < count) {
    const __mmask16 tail = static_cast<__mmask16>((1u << (count - i)) - 1u);
    const __m512i bits = _mm512_maskz_loadu_epi32(tail, from + i);
    _mm512_mask_cvtepi32_storeu_epi16(to + i, tail, RoundLanes(bits));
  }
}
#else
// Never called: Bf16RoundAvx512Available() is false in this build.
void RoundRowToBf16Avx512(const float*, int64_t, uint16_t*) {
  __builtin_trap();
}
#endif

}  // namespace bertlab
