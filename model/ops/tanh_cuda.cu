// Elementwise tanh on the GPU; see tanh_cuda.h.
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/tanh_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

__global__ void TanhKernel(float* out, const float* in, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    out[i] = tanhf(in[i]);
  }
}

__global__ void TanhBackwardKernel(float* d_in, const float* d_out,
                                   const float* out, int64_t n) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < n;
       i += cuda_kernels::GridStride()) {
    d_in[i] = d_out[i] * (1.0f - out[i] * out[i]);
  }
}

}  // namespace

void TanhForward(float* out, const float* in, int64_t n,
                 const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "TanhForward: n < 0");
  if (n == 0) return;
  TanhKernel<<<cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
               context.stream()>>>(out, in, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void TanhBackward(float* d_in, const float* d_out, const float* out, int64_t n,
                  const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(n >= 0, "TanhBackward: n < 0");
  if (n == 0) return;
  TanhBackwardKernel<<<cuda_kernels::GridFor(n), cuda_kernels::kThreads, 0,
                       context.stream()>>>(d_in, d_out, out, n);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
