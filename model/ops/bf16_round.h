// Rounding float matrices to bfloat16 for the bf16 GEMM engine
// (cpu_gemm_engine.h): each element exactly as common/half.h's FloatToBf16
// rounds it (nearest, ties to even; overflow to infinity; NaN stays a quiet
// NaN), written branch-free so the compiler vectorises the loop; on a CPU
// with AVX-512F, by the bit-identical kernel of bf16_round_avx512.h.
#ifndef BERTLAB_MODEL_OPS_BF16_ROUND_H_
#define BERTLAB_MODEL_OPS_BF16_ROUND_H_

#include <cstdint>

namespace bertlab {

// destination (rows, cols), packed = round(source (rows, cols), stored with
// leading dimension ld >= cols). On the calling thread.
void RoundMatrixToBf16(int64_t rows, int64_t cols, const float* source,
                       int64_t ld, uint16_t* destination);

// One row, to[i] = round(from[i]) for i in [0, count), by the portable
// loop whatever the CPU (so tests can hold both kernels to the rule).
void RoundRowToBf16Baseline(const float* from, int64_t count, uint16_t* to);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_BF16_ROUND_H_
