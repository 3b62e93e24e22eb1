// Compiled with -mavx512f -ffp-contract=off on x86-64 (model/ops/BUILD): only
// the inline functions of softmax_row_kernels.h and vector_math.h, which live
// in the AVX-512 inline namespace, are used here.
#include "model/ops/softmax_row_kernels.h"
#include "model/ops/softmax_row_simd.h"

namespace bertlab {

bool SoftmaxRowAvx512Available() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

double SoftmaxRowAvx512(float* out, const float* in, int64_t cols,
                        float* row_max) {
  return softmax_internal::SoftmaxRow(out, in, cols, row_max);
}

}  // namespace bertlab
