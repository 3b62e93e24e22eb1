// Elementwise tanh on the GPU, host side: checks and launches; the kernels are
// tanh_kernels.cuh (shared with tanh_emulated_test); see tanh_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/tanh_cuda.h"
#include "model/ops/tanh_kernels.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void TanhForward(T* out, const T* in, int64_t n, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "TanhForward: n < 0");
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), TanhKernel)
  (out, in, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void TanhBackward(T* d_in, const T* d_out, const T* out, int64_t n,
                  const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "TanhBackward: n < 0");
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), TanhBackwardKernel)
  (d_in, d_out, out, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

#define BERTLAB_INSTANTIATE_TANH(T)                                        \
  template void TanhForward<T>(T*, const T*, int64_t, const CudaContext&); \
  template void TanhBackward<T>(T*, const T*, const T*, int64_t,           \
                                const CudaContext&);

BERTLAB_INSTANTIATE_TANH(float)
BERTLAB_INSTANTIATE_TANH(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_TANH

}  // namespace cuda
}  // namespace bertlab
