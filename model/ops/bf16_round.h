// Rounding float matrices to bfloat16 for the bf16 GEMM engine
// (cpu_gemm_engine.h): each element exactly as common/half.h's FloatToBf16
// rounds it (nearest, ties to even; overflow to infinity; NaN stays a quiet
// NaN), written branch-free so the compiler vectorises the loop.
#ifndef BERTLAB_MODEL_OPS_BF16_ROUND_H_
#define BERTLAB_MODEL_OPS_BF16_ROUND_H_

#include <cstdint>

namespace bertlab {

// destination (rows, cols), packed = round(source (rows, cols), stored with
// leading dimension ld >= cols). On the calling thread.
void RoundMatrixToBf16(int64_t rows, int64_t cols, const float* source,
                       int64_t ld, uint16_t* destination);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_BF16_ROUND_H_
