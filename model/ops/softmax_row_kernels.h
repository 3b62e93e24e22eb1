// The float softmax of one row (cross_entropy_cpu.cc's SoftmaxRow: attention's
// probabilities and the language-model loss over the vocabulary), kLanes
// elements at a time through model/ops/vector_math.h. Compiled for the
// baseline (4 lanes) in cross_entropy_cpu.cc, for AVX2 (8) in
// softmax_row_avx2.cc and for AVX-512F (16) in softmax_row_avx512.cc; in the
// instruction set's inline namespace like vector_math, so the builds never
// merge. They give bit-identical results: the maximum does not depend on the
// order, every lane runs the same operations, and InterleavedSum adds in
// four partial sums whatever the lane width.
#ifndef BERTLAB_MODEL_OPS_SOFTMAX_ROW_KERNELS_H_
#define BERTLAB_MODEL_OPS_SOFTMAX_ROW_KERNELS_H_

#include <stdint.h>

#include "model/ops/vector_math.h"

namespace bertlab {
namespace softmax_internal {
inline namespace BERTLAB_VECTOR_ISA {

// max_c in[c] (cols >= 1) as kLanes lane maxima: the maximum of finite
// values does not depend on the order. (A NaN makes the whole row NaN either
// way.)
inline float RowMax(const float* in, int64_t cols) {
  using vector_math::FloatVector;
  using vector_math::kLanes;
  float max_value = in[0];
  int64_t c = 0;
  if (cols >= kLanes) {
    FloatVector maxima = vector_math::Load(in);
    for (c = kLanes; c + kLanes <= cols; c += kLanes) {
      const FloatVector next = vector_math::Load(in + c);
      maxima = maxima < next ? next : maxima;
    }
    float lanes[kLanes];
    vector_math::Store(lanes, maxima);
    for (float lane : lanes) max_value = max_value < lane ? lane : max_value;
  }
  for (; c < cols; ++c) max_value = max_value < in[c] ? in[c] : max_value;
  return max_value;
}

// out = softmax(in) over one row of cols >= 1; sets *row_max and returns
// sum_c exp(in_c - max) (>= 1: the max term is exp(0)), for the caller's
// log. The exponentials are vector_math::Exp (within 2 ulp of expf), the
// sum is in double.
inline double SoftmaxRow(float* out, const float* in, int64_t cols,
                         float* row_max) {
  using vector_math::kLanes;
  const int64_t whole = cols - cols % kLanes;
  const float max_value = RowMax(in, cols);
  for (int64_t c = 0; c < whole; c += kLanes) {
    vector_math::Store(out + c,
                       vector_math::Exp(vector_math::Load(in + c) - max_value));
  }
  if (whole < cols) {
    vector_math::StorePartial(
        out + whole,
        vector_math::Exp(vector_math::LoadPartial(in + whole, cols - whole) -
                         max_value),
        cols - whole);
  }
  const double sum = vector_math::InterleavedSum(
      cols, [&](int64_t c) { return static_cast<double>(out[c]); });
  const float inverse = static_cast<float>(1.0 / sum);
  for (int64_t c = 0; c < whole; c += kLanes) {
    vector_math::Store(out + c, vector_math::Load(out + c) * inverse);
  }
  for (int64_t c = whole; c < cols; ++c) out[c] *= inverse;
  *row_max = max_value;
  return sum;
}

}  // namespace BERTLAB_VECTOR_ISA
}  // namespace softmax_internal
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_SOFTMAX_ROW_KERNELS_H_
