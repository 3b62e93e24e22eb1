#include <cmath>
#include <cstdint>

#include "common/check.h"
#include "common/parallel.h"
#include "model/ops/gelu.h"
#include "model/ops/gelu_avx2.h"
#include "model/ops/gelu_avx512.h"
#include "model/ops/gelu_kernels.h"

namespace bertlab {
namespace {

// erf/tanh per element: a few thousand elements amortise a chunk.
constexpr int64_t kMinChunk = 1 << 13;

constexpr double kSqrtHalf = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kTanhCubic = 0.044715;

// Phi(x) = erfc(-x / sqrt(2)) / 2 has no cancellation for negative x, where
// 1 + erf(x / sqrt(2)) loses every digit in float (x < -4 or so).
template <typename T>
T GeluErf(T x) {
  return T(0.5) * x * std::erfc(-x * T(kSqrtHalf));
}

template <typename T>
T GeluErfDerivative(T x) {
  const T cdf = T(0.5) * std::erfc(-x * T(kSqrtHalf));
  const T pdf = T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}

template <typename T>
T TanhArgument(T x) {
  return T(kSqrt2OverPi) * (x + T(kTanhCubic) * x * x * x);
}

// 0.5 (1 + tanh(u)) = sigmoid(2u) = 1 / (1 + exp(-2u)): no cancellation when
// tanh(u) is near -1. exp overflowing to inf gives exactly 0, never NaN.
template <typename T>
T Sigmoid(T z) {
  return T(1) / (T(1) + std::exp(-z));
}

template <typename T>
T GeluTanh(T x) {
  return x * Sigmoid(T(2) * TanhArgument(x));
}

// With s = sigmoid(2u): 0.5 (1 - tanh(u)^2) = 2 s (1 - s), and
// 1 - s = sigmoid(-2u) is computed directly rather than by cancellation.
template <typename T>
T GeluTanhDerivative(T x) {
  const T u = TanhArgument(x);
  const T s = Sigmoid(T(2) * u);
  const T one_minus_s = Sigmoid(T(-2) * u);
  const T du_dx = T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCubic) * x * x);
  return s + T(2) * x * s * one_minus_s * du_dx;
}

}  // namespace

// The float path: model/ops/gelu_kernels.h, 16 lanes at a time where the CPU
// has AVX-512F, 8 where it has AVX2, else the baseline build's 4; all three
// give identical results.
void GeluForwardFloatRange(float* out, const float* in, int64_t begin,
                           int64_t end, GeluForm form) {
  static const bool kAvx512 = GeluAvx512Available();
  static const bool kAvx2 = GeluAvx2Available();
  const bool tanh_form = form == GeluForm::kTanh;
  if (kAvx512) {
    GeluForwardRangeAvx512(out, in, begin, end, tanh_form);
  } else if (kAvx2) {
    GeluForwardRangeAvx2(out, in, begin, end, tanh_form);
  } else {
    gelu_internal::ForwardRange(out, in, begin, end, tanh_form);
  }
}

void GeluBackwardFloatRange(float* d_in, const float* d_out, const float* in,
                            int64_t begin, int64_t end, GeluForm form) {
  static const bool kAvx512 = GeluAvx512Available();
  static const bool kAvx2 = GeluAvx2Available();
  const bool tanh_form = form == GeluForm::kTanh;
  if (kAvx512) {
    GeluBackwardRangeAvx512(d_in, d_out, in, begin, end, tanh_form);
  } else if (kAvx2) {
    GeluBackwardRangeAvx2(d_in, d_out, in, begin, end, tanh_form);
  } else {
    gelu_internal::BackwardRange(d_in, d_out, in, begin, end, tanh_form);
  }
}

template <typename T>
void GeluForward(T* out, const T* in, int64_t n, GeluForm form) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    if (form == GeluForm::kErf) {
      for (int64_t i = begin; i < end; ++i) out[i] = GeluErf(in[i]);
    } else {
      for (int64_t i = begin; i < end; ++i) out[i] = GeluTanh(in[i]);
    }
  });
}

template <>
void GeluForward<float>(float* out, const float* in, int64_t n, GeluForm form) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    GeluForwardFloatRange(out, in, begin, end, form);
  });
}

template <typename T>
void GeluBackward(T* d_in, const T* d_out, const T* in, int64_t n,
                  GeluForm form) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    if (form == GeluForm::kErf) {
      for (int64_t i = begin; i < end; ++i) {
        d_in[i] = d_out[i] * GeluErfDerivative(in[i]);
      }
    } else {
      for (int64_t i = begin; i < end; ++i) {
        d_in[i] = d_out[i] * GeluTanhDerivative(in[i]);
      }
    }
  });
}

template <>
void GeluBackward<float>(float* d_in, const float* d_out, const float* in,
                         int64_t n, GeluForm form) {
  CHECK_GE(n, 0);
  ParallelFor(0, n, kMinChunk, [&](int64_t begin, int64_t end) {
    GeluBackwardFloatRange(d_in, d_out, in, begin, end, form);
  });
}

template void GeluForward<double>(double*, const double*, int64_t, GeluForm);
template void GeluBackward<double>(double*, const double*, const double*,
                                   int64_t, GeluForm);

}  // namespace bertlab
