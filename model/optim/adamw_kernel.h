// AdamW's per-element update (model/optim/adamw.h), written once for the
// scalar loop and for the vector builds (adamw_avx2.cc, adamw_avx512.cc).
// Every build evaluates the same double-precision operations in the same
// order, each rounded once (no FMA contraction: the vector builds are
// compiled with -ffp-contract=off), and division and square root are
// correctly rounded in every build, so the updates are bit-identical
// (adamw_test.cc checks it).
#ifndef BERTLAB_MODEL_OPTIM_ADAMW_KERNEL_H_
#define BERTLAB_MODEL_OPTIM_ADAMW_KERNEL_H_

#include <stdint.h>

#include <cmath>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace bertlab {
namespace adamw_internal {

// One step's constants (AdamW<T>::Step).
struct StepConstants {
  double beta1 = 0, one_minus_beta1 = 0;
  double beta2 = 0, one_minus_beta2 = 0;
  double m_divisor = 1, v_divisor = 1;  // bias corrections; 1 without
  double epsilon = 0;
  double lr = 0;
};

// The functions below are compiled into the scalar build and both vector
// builds, so each build's copy lives in an inline namespace of its own (as
// model/ops/vector_math.h does): the linker can never hand the scalar caller
// the AVX-512 copy of a template both instantiate.
#if defined(__AVX512F__)
#define BERTLAB_ADAMW_ISA avx512
#elif defined(__AVX2__)
#define BERTLAB_ADAMW_ISA avx2
#else
#define BERTLAB_ADAMW_ISA baseline
#endif

inline namespace BERTLAB_ADAMW_ISA {

// Elements [begin, end) of one weight-decay span: decay is the span's
// weight decay (0 for LayerNorm and biases).
template <typename T>
inline void UpdateScalar(const StepConstants& c, double decay, int64_t begin,
                         int64_t end, const T* grads, T* m, T* v, T* params) {
  for (int64_t i = begin; i < end; ++i) {
    const double g = grads[i];
    m[i] = static_cast<T>(c.beta1 * m[i] + c.one_minus_beta1 * g);
    v[i] = static_cast<T>(c.beta2 * v[i] + c.one_minus_beta2 * g * g);
    const double m_hat = static_cast<double>(m[i]) / c.m_divisor;
    const double v_hat = static_cast<double>(v[i]) / c.v_divisor;
    const double param = params[i];
    const double update =
        m_hat / (std::sqrt(v_hat) + c.epsilon) + decay * param;
    params[i] = static_cast<T>(param - c.lr * update);
  }
}

// The same update, V::kLanes floats at a time, then the scalar loop for the
// tail. V: the instruction set's doubles (D) with Load (floats widened),
// Store (rounded to float), Set, Add, Mul, Div and Sqrt.
// kCorrected false: the divisors are 1 (no bias correction, BERT's rule),
// and x / 1 is x exactly, so the two divisions are left out; the vector
// units' divider is what bounds this loop.
template <typename V, bool kCorrected>
inline void UpdateFloatLanesImpl(const StepConstants& c, double decay,
                                 int64_t begin, int64_t end, const float* grads,
                                 float* m, float* v, float* params) {
  using D = typename V::D;
  const D beta1 = V::Set(c.beta1), one_minus_beta1 = V::Set(c.one_minus_beta1);
  const D beta2 = V::Set(c.beta2), one_minus_beta2 = V::Set(c.one_minus_beta2);
  const D m_divisor = V::Set(c.m_divisor), v_divisor = V::Set(c.v_divisor);
  const D epsilon = V::Set(c.epsilon), lr = V::Set(c.lr),
          decay_v = V::Set(decay);
  int64_t i = begin;
  for (; i + V::kLanes <= end; i += V::kLanes) {
    const D g = V::Load(grads + i);
    V::Store(m + i,
             V::Add(V::Mul(beta1, V::Load(m + i)), V::Mul(one_minus_beta1, g)));
    V::Store(v + i, V::Add(V::Mul(beta2, V::Load(v + i)),
                           V::Mul(V::Mul(one_minus_beta2, g), g)));
    // Read back as float, as the scalar loop does.
    const D m_hat =
        kCorrected ? V::Div(V::Load(m + i), m_divisor) : V::Load(m + i);
    const D v_hat =
        kCorrected ? V::Div(V::Load(v + i), v_divisor) : V::Load(v + i);
    const D param = V::Load(params + i);
    const D update = V::Add(V::Div(m_hat, V::Add(V::Sqrt(v_hat), epsilon)),
                            V::Mul(decay_v, param));
    V::Store(params + i, V::Sub(param, V::Mul(lr, update)));
  }
  UpdateScalar(c, decay, i, end, grads, m, v, params);
}

template <typename V>
inline void UpdateFloatLanes(const StepConstants& c, double decay,
                             int64_t begin, int64_t end, const float* grads,
                             float* m, float* v, float* params) {
  if (c.m_divisor == 1.0 && c.v_divisor == 1.0) {
    UpdateFloatLanesImpl<V, false>(c, decay, begin, end, grads, m, v, params);
  } else {
    UpdateFloatLanesImpl<V, true>(c, decay, begin, end, grads, m, v, params);
  }
}

// The instruction set's doubles for UpdateFloatLanes, in the file compiled
// for it (adamw_avx512.cc with -mavx512f, adamw_avx2.cc with -mavx2): float
// lanes widened on load and rounded to float on store.
#if defined(__AVX512F__)
struct IsaDoubles {
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
#elif defined(__AVX2__)
struct IsaDoubles {
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
#endif

// The float update in the widest build this file is compiled for; the
// scalar loop in one compiled for neither.
inline void UpdateFloat(const StepConstants& c, double decay, int64_t begin,
                        int64_t end, const float* grads, float* m, float* v,
                        float* params) {
#if defined(__AVX512F__) || defined(__AVX2__)
  UpdateFloatLanes<IsaDoubles>(c, decay, begin, end, grads, m, v, params);
#else
  UpdateScalar(c, decay, begin, end, grads, m, v, params);
#endif
}

}  // namespace BERTLAB_ADAMW_ISA
}  // namespace adamw_internal
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPTIM_ADAMW_KERNEL_H_
