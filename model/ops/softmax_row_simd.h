// The float softmax row (softmax_row_kernels.h) built for AVX2 and AVX-512F,
// which cross_entropy_cpu.cc prefers, widest first, to the baseline build.
// In a left-to-right pre-training's perf profile (mini encoder, 8,000-word
// vocabulary, 2,048 predicted positions a step) the baseline softmax was 13%
// of the time. Bit-identical to the baseline build.
#ifndef BERTLAB_MODEL_OPS_SOFTMAX_ROW_SIMD_H_
#define BERTLAB_MODEL_OPS_SOFTMAX_ROW_SIMD_H_

#include <stdint.h>

namespace bertlab {

// Built for the instruction set (x86-64) and running on a CPU with it.
bool SoftmaxRowAvx2Available();
bool SoftmaxRowAvx512Available();

// softmax_internal::SoftmaxRow in that build; call only when its
// Available() is true.
double SoftmaxRowAvx2(float* out, const float* in, int64_t cols,
                      float* row_max);
double SoftmaxRowAvx512(float* out, const float* in, int64_t cols,
                        float* row_max);

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_SOFTMAX_ROW_SIMD_H_
