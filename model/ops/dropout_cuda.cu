// Inverted dropout on the GPU with the CPU's Philox mask, host side: checks and
// launches; the kernels are dropout_kernels.cuh (shared with
// dropout_emulated_test); see dropout_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "common/philox.h"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/dropout_cuda.h"
#include "model/ops/dropout_kernels.cuh"

namespace bertlab {
namespace cuda {
namespace {

template <typename T>
void ApplyMask(T* out, const T* in, int64_t n, float rate,
               const PhiloxStream& stream, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "dropout: n < 0");
  BERTLAB_CUDA_REQUIRE(rate >= 0.0f && rate < 1.0f,
                       "dropout rate outside [0, 1)");
  if (n == 0) return;
  if (rate == 0.0f) {
    if (out != in) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(
          out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, context.stream()));
    }
    return;
  }
  // As dropout_cpu.cc: T(1) / (T(1) - T(rate)) in float.
  const float scale = 1.0f / (1.0f - rate);
  BERTLAB_LAUNCH(cuda_kernels::GridFor((n + 3) / 4), cuda_kernels::kThreads, 0,
                 context.stream(), DropoutKernel)
  (out, in, n, rate, scale, stream);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void DropoutForward(T* out, const T* in, int64_t n, float rate,
                    const PhiloxStream& stream, const CudaContext& context) {
  ApplyMask(out, in, n, rate, stream, context);
}

template <typename T>
void DropoutBackward(T* d_in, const T* d_out, int64_t n, float rate,
                     const PhiloxStream& stream, const CudaContext& context) {
  ApplyMask(d_in, d_out, n, rate, stream, context);
}

#define BERTLAB_INSTANTIATE_DROPOUT(T)                                      \
  template void DropoutForward<T>(T*, const T*, int64_t, float,             \
                                  const PhiloxStream&, const CudaContext&); \
  template void DropoutBackward<T>(T*, const T*, int64_t, float,            \
                                   const PhiloxStream&, const CudaContext&);

BERTLAB_INSTANTIATE_DROPOUT(float)
BERTLAB_INSTANTIATE_DROPOUT(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_DROPOUT

}  // namespace cuda
}  // namespace bertlab
