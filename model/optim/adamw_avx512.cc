// Compiled with -mavx512f -ffp-contract=off on x86-64 (model/optim/BUILD):
// adamw_kernel.h's update, 8 doubles a vector.
#include "model/optim/adamw_kernel.h"
#include "model/optim/adamw_simd.h"

namespace bertlab {

bool AdamWAvx512Available() {
#if defined(__AVX512F__)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void AdamWUpdateAvx512(const adamw_internal::StepConstants& constants,
                       double decay, int64_t begin, int64_t end,
                       const float* grads, float* m, float* v, float* params) {
  adamw_internal::UpdateFloat(constants, decay, begin, end, grads, m, v,
                              params);
}

}  // namespace bertlab
