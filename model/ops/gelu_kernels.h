// GELU's float kernels (model/ops/gelu.h), kLanes elements at a time through
// model/ops/vector_math.h, evaluating the same forms as the scalar code in
// gelu_cpu.cc (Phi via erfc, the sigmoid form of tanh) to a few 1e-7
// relative. gelu_cpu.cc compiles them for the baseline (4 lanes),
// gelu_avx2.cc for AVX2 (8 lanes) and gelu_avx512.cc for AVX-512F (16); like
// vector_math they live in the instruction set's inline namespace, so the
// builds never merge, and they give bit-identical results (the same
// operations per lane).
#ifndef BERTLAB_MODEL_OPS_GELU_KERNELS_H_
#define BERTLAB_MODEL_OPS_GELU_KERNELS_H_

#include <stdint.h>

#include "model/ops/vector_math.h"

namespace bertlab {
namespace gelu_internal {
inline namespace BERTLAB_VECTOR_ISA {

using vector_math::FloatVector;

inline constexpr float kSqrt2OverPi = 0.79788456080286535588f;
inline constexpr float kTanhCubic = 0.044715f;
inline constexpr float kThreeTanhCubic = 0.134145f;  // 3 * kTanhCubic

inline FloatVector GeluErf(FloatVector x) {
  return x * vector_math::NormalCdf(x);
}

inline FloatVector GeluErfDerivative(FloatVector x) {
  return vector_math::NormalCdf(x) + x * vector_math::NormalPdf(x);
}

inline FloatVector Sigmoid(FloatVector z) {
  return 1.0f / (1.0f + vector_math::Exp(-z));
}

inline FloatVector TanhArgument(FloatVector x) {
  return kSqrt2OverPi * (x + kTanhCubic * x * x * x);
}

inline FloatVector GeluTanh(FloatVector x) {
  return x * Sigmoid(2.0f * TanhArgument(x));
}

inline FloatVector GeluTanhDerivative(FloatVector x) {
  const FloatVector u = TanhArgument(x);
  const FloatVector s = Sigmoid(2.0f * u);
  const FloatVector one_minus_s = Sigmoid(-2.0f * u);
  const FloatVector du_dx = kSqrt2OverPi * (1.0f + kThreeTanhCubic * x * x);
  return s + 2.0f * x * s * one_minus_s * du_dx;
}

// out[i] = map(in[i], other[i]) over [begin, end), whole vectors then a padded
// tail. out may alias in or other.
template <typename Map>
void MapVectors(float* out, const float* in, const float* other, int64_t begin,
                int64_t end, const Map& map) {
  using vector_math::kLanes;
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    vector_math::Store(
        out + i, map(vector_math::Load(in + i), vector_math::Load(other + i)));
  }
  if (i < end) {
    vector_math::StorePartial(out + i,
                              map(vector_math::LoadPartial(in + i, end - i),
                                  vector_math::LoadPartial(other + i, end - i)),
                              end - i);
  }
}

// out[i] = gelu(in[i]) for i in [begin, end); tanh_form picks GeluForm::kTanh.
inline void ForwardRange(float* out, const float* in, int64_t begin,
                         int64_t end, bool tanh_form) {
  if (tanh_form) {
    MapVectors(out, in, in, begin, end,
               [](FloatVector x, FloatVector) { return GeluTanh(x); });
  } else {
    MapVectors(out, in, in, begin, end,
               [](FloatVector x, FloatVector) { return GeluErf(x); });
  }
}

// d_in[i] = d_out[i] * gelu'(in[i]) for i in [begin, end).
inline void BackwardRange(float* d_in, const float* d_out, const float* in,
                          int64_t begin, int64_t end, bool tanh_form) {
  if (tanh_form) {
    MapVectors(d_in, d_out, in, begin, end, [](FloatVector dy, FloatVector x) {
      return dy * GeluTanhDerivative(x);
    });
  } else {
    MapVectors(d_in, d_out, in, begin, end, [](FloatVector dy, FloatVector x) {
      return dy * GeluErfDerivative(x);
    });
  }
}

}  // namespace BERTLAB_VECTOR_ISA
}  // namespace gelu_internal
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_GELU_KERNELS_H_
