// Philox4x32-10 uniforms sixteen blocks (64 floats) at a time with AVX-512F,
// for PhiloxFillUniformVectorized (philox_fill.h), which uses it where the CPU
// has AVX-512F: _mm512_mul_epu32 makes eight 32x32 -> 64-bit products per
// instruction against SSE2's two. The dropout masks' draws were 5% of a
// BERT-BASE BF16 step's time in its perf profile (tools/bench/README.md).
// Bit for bit the same numbers (philox_fill_test.cc).
//
// This file's function takes the stream already expanded (the ten round keys
// and the counter's constant words), so the AVX-512 translation unit compiles
// no inline function of common/philox.h: the linker could otherwise keep its
// AVX-512 copy for every caller.
#ifndef BERTLAB_MODEL_OPS_PHILOX_FILL_AVX512_H_
#define BERTLAB_MODEL_OPS_PHILOX_FILL_AVX512_H_

#include <stdint.h>

namespace bertlab {
namespace philox_fill_internal {

// Built with AVX-512F (x86-64) and running on a CPU with it.
bool PhiloxAvx512Available();

// The stream of PhiloxFillUniform expanded: round r's key is
// (keys[2 r], keys[2 r + 1]); every block's counter is (block's low word,
// block's high word, step, tensor_id).
struct ExpandedPhiloxStream {
  uint32_t keys[20];
  uint32_t step;
  uint32_t tensor_id;
};

// out[64 g + 4 i + w] = word w of block first_block + 16 g + i, as a uniform
// float (bits >> 8) * 2^-24, for g < groups; call only when
// PhiloxAvx512Available().
void PhiloxGroupsAvx512(const ExpandedPhiloxStream& stream,
                        uint64_t first_block, uint64_t groups, float* out);

}  // namespace philox_fill_internal
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_PHILOX_FILL_AVX512_H_
