// Compiled with -mavx2 -ffp-contract=off on x86-64 (model/optim/BUILD):
// adamw_kernel.h's update, 4 doubles a vector.
#include "model/optim/adamw_simd.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace bertlab {

#if defined(__AVX2__)
namespace {

struct Avx2Doubles {
  using D = __m256d;
  static constexpr int64_t kLanes = 4;
  static D Load(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
  static void Store(float* p, D x) { _mm_storeu_ps(p, _mm256_cvtpd_ps(x)); }
  static D Set(double x) { return _mm256_set1_pd(x); }
  static D Add(D a, D b) { return _mm256_add_pd(a, b); }
  static D Sub(D a, D b) { return _mm256_sub_pd(a, b); }
  static D Mul(D a, D b) { return _mm256_mul_pd(a, b); }
  static D Div(D a, D b) { return _mm256_div_pd(a, b); }
  static D Sqrt(D x) { return _mm256_sqrt_pd(x); }
};

}  // namespace

bool AdamWAvx2Available() { return __builtin_cpu_supports("avx2"); }

void AdamWUpdateAvx2(const adamw_internal::StepConstants& constants,
                     double decay, int64_t begin, int64_t end,
                     const float* grads, float* m, float* v, float* params) {
  adamw_internal::UpdateFloatLanes<Avx2Doubles>(constants, decay, begin, end,
                                                grads, m, v, params);
}

#else

bool AdamWAvx2Available() { return false; }

void AdamWUpdateAvx2(const adamw_internal::StepConstants& constants,
                     double decay, int64_t begin, int64_t end,
                     const float* grads, float* m, float* v, float* params) {
  adamw_internal::UpdateScalar(constants, decay, begin, end, grads, m, v,
                               params);
}

#endif

}  // namespace bertlab
