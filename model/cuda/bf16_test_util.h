// Host-side bf16 vectors for the GPU parity tests: float <-> Bf16 (the
// layout of __nv_bfloat16, model/cuda/bf16.h) through common/half.h's
// round-to-nearest-even conversion, the same rounding as the GPU's
// (precision_cast_rounding_test). Test-only, header-only.
#ifndef BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_
#define BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_

#include <vector>

#include "common/half.h"
#include "model/cuda/bf16.h"

namespace bertlab {

inline std::vector<Bf16> ToBf16(const std::vector<float>& values) {
  std::vector<Bf16> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].bits = FloatToBf16(values[i]);
  }
  return out;
}

inline std::vector<float> FromBf16(const std::vector<Bf16>& values) {
  std::vector<float> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = Bf16ToFloat(values[i].bits);
  }
  return out;
}

// values rounded to bf16 and back: the CPU reference's view of what a bf16
// GPU tensor holds.
inline std::vector<float> RoundToBf16(const std::vector<float>& values) {
  return FromBf16(ToBf16(values));
}

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_BF16_TEST_UTIL_H_
