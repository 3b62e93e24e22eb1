// Residual add on the GPU, host side: checks and launches; the kernels are
// residual_kernels.cuh (shared with residual_emulated_test); see
// residual_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/residual_cuda.h"
#include "model/ops/residual_kernels.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void ResidualAddForward(T* out, const T* a, const T* b, int64_t n,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "ResidualAddForward: n < 0");
  if (n == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                 context.stream(), AddKernel)
  (out, a, b, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void ResidualAddBackward(T* d_a, T* d_b, const T* d_out, int64_t n,
                         const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "ResidualAddBackward: n < 0");
  if (n == 0) return;
  for (T* target : {d_a, d_b}) {
    if (target != nullptr && target != d_out) {
      BERTLAB_CUDA_CHECK(cudaMemcpyAsync(target, d_out, n * sizeof(T),
                                         cudaMemcpyDeviceToDevice,
                                         context.stream()));
    }
  }
}

template void ResidualAddForward<float>(float*, const float*, const float*,
                                        int64_t, const CudaContext&);
template void ResidualAddForward<__nv_bfloat16>(__nv_bfloat16*,
                                                const __nv_bfloat16*,
                                                const __nv_bfloat16*, int64_t,
                                                const CudaContext&);
template void ResidualAddBackward<float>(float*, float*, const float*, int64_t,
                                         const CudaContext&);
template void ResidualAddBackward<__nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*,
                                                 const __nv_bfloat16*, int64_t,
                                                 const CudaContext&);

}  // namespace cuda
}  // namespace bertlab
