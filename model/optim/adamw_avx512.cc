// Compiled with -mavx512f -ffp-contract=off on x86-64 (model/optim/BUILD):
// adamw_kernel.h's update, 8 doubles a vector.
#include "model/optim/adamw_simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace bertlab {

#if defined(__AVX512F__)
namespace {

struct Avx512Doubles {
  using D = __m512d;
  static constexpr int64_t kLanes = 8;
  static D Load(const float* p) { return _mm512_cvtps_pd(_mm256_loadu_ps(p)); }
  static void Store(float* p, D x) { _mm256_storeu_ps(p, _mm512_cvtpd_ps(x)); }
  static D Set(double x) { return _mm512_set1_pd(x); }
  static D Add(D a, D b) { return _mm512_add_pd(a, b); }
  static D Sub(D a, D b) { return _mm512_sub_pd(a, b); }
  static D Mul(D a, D b) { return _mm512_mul_pd(a, b); }
  static D Div(D a, D b) { return _mm512_div_pd(a, b); }
  static D Sqrt(D x) { return _mm512_sqrt_pd(x); }
};

}  // namespace

bool AdamWAvx512Available() { return __builtin_cpu_supports("avx512f"); }

void AdamWUpdateAvx512(const adamw_internal::StepConstants& constants,
                       double decay, int64_t begin, int64_t end,
                       const float* grads, float* m, float* v, float* params) {
  adamw_internal::UpdateFloatLanes<Avx512Doubles>(constants, decay, begin, end,
                                                  grads, m, v, params);
}

#else

bool AdamWAvx512Available() { return false; }

void AdamWUpdateAvx512(const adamw_internal::StepConstants& constants,
                       double decay, int64_t begin, int64_t end,
                       const float* grads, float* m, float* v, float* params) {
  adamw_internal::UpdateScalar(constants, decay, begin, end, grads, m, v,
                               params);
}

#endif

}  // namespace bertlab
