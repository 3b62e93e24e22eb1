// The keep rule of inverted dropout (model/ops/dropout.h) applied to values
// whose uniform draws are already made:
//   out[j] = uniforms[j] >= rate ? in[j] * scale : 0,   j in [0, count)
// Dropout and the attention-probability dropout share it. The float overload
// runs four lanes at a time with the same compare and product per element, so
// it is bit-identical to the generic one. out may alias in.
#ifndef BERTLAB_MODEL_OPS_DROPOUT_MASK_H_
#define BERTLAB_MODEL_OPS_DROPOUT_MASK_H_

#include <cstdint>

#include "model/ops/vector_math.h"

namespace bertlab {

template <typename T>
void ApplyDropoutMask(T* out, const T* in, const float* uniforms, int64_t count,
                      float rate, T scale) {
  for (int64_t j = 0; j < count; ++j) {
    out[j] = uniforms[j] >= rate ? in[j] * scale : T(0);
  }
}

inline void ApplyDropoutMask(float* out, const float* in, const float* uniforms,
                             int64_t count, float rate, float scale) {
  using vector_math::FloatVector;
  using vector_math::kLanes;
  const FloatVector rates = vector_math::Splat(rate);
  const FloatVector zeros = vector_math::Splat(0.0f);
  int64_t j = 0;
  for (; j + kLanes <= count; j += kLanes) {
    const FloatVector kept = vector_math::Load(in + j) * scale;
    vector_math::Store(out + j,
                       vector_math::Load(uniforms + j) >= rates ? kept : zeros);
  }
  ApplyDropoutMask<float>(out + j, in + j, uniforms + j, count - j, rate,
                          scale);
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_DROPOUT_MASK_H_
