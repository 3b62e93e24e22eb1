// Bf16: a host-side bfloat16 storage element (its bits, common/half.h
// converts), layout-compatible with CUDA's __nv_bfloat16, for host code that
// holds bf16 tensors without including cuda_bf16.h (see cuda_check.h).
// AsDevice() gives the __nv_bfloat16 pointer the CUDA ops take (and passes a
// float pointer through, for code generic over the storage type).
#ifndef BERTLAB_MODEL_CUDA_BF16_H_
#define BERTLAB_MODEL_CUDA_BF16_H_

#include <cstdint>

struct __nv_bfloat16;

namespace bertlab {

struct alignas(2) Bf16 {
  uint16_t bits;
};
static_assert(sizeof(Bf16) == 2, "Bf16 is two bytes");

inline __nv_bfloat16* AsDevice(Bf16* pointer) {
  return reinterpret_cast<__nv_bfloat16*>(pointer);
}
inline const __nv_bfloat16* AsDevice(const Bf16* pointer) {
  return reinterpret_cast<const __nv_bfloat16*>(pointer);
}
inline float* AsDevice(float* pointer) { return pointer; }
inline const float* AsDevice(const float* pointer) { return pointer; }

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_BF16_H_
