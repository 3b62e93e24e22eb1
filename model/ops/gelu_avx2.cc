// Compiled with -mavx2 on x86-64 (model/ops/BUILD). Only the kernels of
// gelu_kernels.h and vector_math.h, whose inline functions live in the AVX2
// inline namespace, may be used here: any other inline function compiled in
// this file could be the copy the linker keeps for every caller.
#include "model/ops/gelu_avx2.h"

#include "model/ops/gelu_kernels.h"

namespace bertlab {

bool GeluAvx2Available() {
#if defined(__AVX2__)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

void GeluForwardRangeAvx2(float* out, const float* in, int64_t begin,
                          int64_t end, bool tanh_form) {
  gelu_internal::ForwardRange(out, in, begin, end, tanh_form);
}

void GeluBackwardRangeAvx2(float* d_in, const float* d_out, const float* in,
                           int64_t begin, int64_t end, bool tanh_form) {
  gelu_internal::BackwardRange(d_in, d_out, in, begin, end, tanh_form);
}

}  // namespace bertlab
