// ActivationBuffer<T>: a named DeviceBuffer of activation type T, float (FP32
// mode) or __nv_bfloat16 (BF16 mixed precision), for g++ code that only
// forward-declares __nv_bfloat16 (model/cuda/cuda_check.h says why).
// DeviceBuffer needs a complete element type, so bf16 storage is held as
// model/cuda/bf16.h's layout-compatible Bf16 and handed out as T*. Used by
// the GPU encoder, the heads and the training steps.
#ifndef BERTLAB_MODEL_CUDA_ACTIVATION_BUFFER_H_
#define BERTLAB_MODEL_CUDA_ACTIVATION_BUFFER_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "model/cuda/bf16.h"
#include "model/cuda/device_buffer.h"

namespace bertlab {

template <typename T>
class ActivationBuffer {
  static_assert(std::is_same<T, float>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "float or __nv_bfloat16");

 public:
  using Storage = typename std::conditional<std::is_same<T, float>::value,
                                            float, Bf16>::type;

  ActivationBuffer() = default;
  // size elements of uninitialised device memory (none for size 0).
  ActivationBuffer(std::string name, int64_t size)
      : storage_(std::move(name), size) {}

  T* data() { return reinterpret_cast<T*>(storage_.data()); }
  const T* data() const { return reinterpret_cast<const T*>(storage_.data()); }
  int64_t size() const { return storage_.size(); }
  size_t bytes() const { return storage_.bytes(); }
  // Every byte zero (+0 in both types), asynchronously on `stream`.
  void Zero(cudaStream_t stream) { storage_.Zero(stream); }

 private:
  DeviceBuffer<Storage> storage_;
};

}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_ACTIVATION_BUFFER_H_
