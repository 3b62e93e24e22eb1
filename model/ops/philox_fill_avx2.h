// Philox4x32-10 uniforms eight blocks (32 floats) at a time with AVX2, for
// PhiloxFillUniformVectorized (philox_fill.h), which uses it where the CPU has
// AVX2: _mm256_mul_epu32 makes four 32x32 -> 64-bit products per instruction
// against SSE2's two, and the round keys come precomputed. That is the wide
// path of CPUs without AVX-512 (the Zen 3 machines, where the dropout masks'
// draws were ~6% of a pre-training step). Bit for bit the same numbers
// (philox_fill_test.cc).
//
// Like philox_fill_avx512.h, it takes the stream already expanded, so the AVX2
// translation unit compiles no inline function of common/philox.h: the linker
// could otherwise keep its AVX2 copy for every caller.
#ifndef BERTLAB_MODEL_OPS_PHILOX_FILL_AVX2_H_
#define BERTLAB_MODEL_OPS_PHILOX_FILL_AVX2_H_

#include <stdint.h>

// For ExpandedPhiloxStream only (a plain struct; no inline functions).
#include "model/ops/philox_fill_avx512.h"

namespace bertlab {
namespace philox_fill_internal {

// Built with AVX2 (x86-64) and running on a CPU with it.
bool PhiloxAvx2Available();

// out[32 g + 4 i + w] = word w of block first_block + 8 g + i, as a uniform
// float (bits >> 8) * 2^-24, for g < groups; call only when
// PhiloxAvx2Available().
void PhiloxGroupsAvx2(const ExpandedPhiloxStream& stream, uint64_t first_block,
                      uint64_t groups, float* out);

}  // namespace philox_fill_internal
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_PHILOX_FILL_AVX2_H_
