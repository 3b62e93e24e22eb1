// Compiled with -mavx512f -ffp-contract=off on x86-64 (model/ops/BUILD); the
// same rule as gelu_avx2.cc: only the inline functions of gelu_kernels.h and
// vector_math.h, which live in the AVX-512 inline namespace, are used here.
#include "model/ops/gelu_avx512.h"

#include "model/ops/gelu_kernels.h"

namespace bertlab {

bool GeluAvx512Available() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void GeluForwardRangeAvx512(float* out, const float* in, int64_t begin,
                            int64_t end, bool tanh_form) {
  gelu_internal::ForwardRange(out, in, begin, end, tanh_form);
}

void GeluBackwardRangeAvx512(float* d_in, const float* d_out, const float* in,
                             int64_t begin, int64_t end, bool tanh_form) {
  gelu_internal::BackwardRange(d_in, d_out, in, begin, end, tanh_form);
}

}  // namespace bertlab
