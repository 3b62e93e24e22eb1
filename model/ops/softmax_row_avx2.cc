// Compiled with -mavx2 on x86-64 (model/ops/BUILD): only
// the inline functions of softmax_row_kernels.h and vector_math.h, which live
// in the AVX2 inline namespace, are used here.
#include "model/ops/softmax_row_kernels.h"
#include "model/ops/softmax_row_simd.h"

namespace bertlab {

bool SoftmaxRowAvx2Available() {
#if defined(__AVX2__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

double SoftmaxRowAvx2(float* out, const float* in, int64_t cols,
                      float* row_max) {
  return softmax_internal::SoftmaxRow(out, in, cols, row_max);
}

}  // namespace bertlab
