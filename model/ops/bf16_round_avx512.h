// RoundMatrixToBf16's row kernel (bf16_round.h) built for AVX-512F, 16
// floats at a time: the same integer rule as the baseline loop, so the bits
// are identical. bf16_round.cc uses it when the CPU has AVX-512F, which
// every CPU with oneDNN's bf16 matmul has. The perf profile of a BERT-BASE
// BF16 step (tools/bench/README.md) had the baseline rounding at 18% of the
// step's time, the largest cost after the matmuls.
#ifndef BERTLAB_MODEL_OPS_BF16_ROUND_AVX512_H_
#define BERTLAB_MODEL_OPS_BF16_ROUND_AVX512_H_

#include <stdint.h>

namespace bertlab {

// Built with AVX-512F (x86-64) and running on a CPU with it.
bool Bf16RoundAvx512Available();

// to[i] = FloatToBf16(from[i]) for i in [0, count); call only when
// Bf16RoundAvx512Available().
void RoundRowToBf16Avx512(const float* from, int64_t count, uint16_t* to);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_BF16_ROUND_AVX512_H_
