// Averaging accumulated gradients; see gradient_accumulation_cuda.h.
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/gradient_accumulation_cuda.h"
#include "model/cuda/kernel_util.cuh"

namespace bertlab {
namespace cuda {
namespace {

__global__ void DivideKernel(float* grads, int64_t size, float divisor) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < size;
       i += cuda_kernels::GridStride()) {
    grads[i] = __fdiv_rn(grads[i], divisor);
  }
}

}  // namespace

void AverageAccumulatedGradients(int64_t num_micro_batches, int64_t size,
                                 float* grads, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(num_micro_batches >= 1,
                       "AverageAccumulatedGradients: num_micro_batches < 1");
  BERTLAB_CUDA_REQUIRE(size >= 0, "AverageAccumulatedGradients: size < 0");
  if (num_micro_batches == 1 || size == 0) return;
  DivideKernel<<<cuda_kernels::GridFor(size), cuda_kernels::kThreads, 0,
                 context.stream()>>>(grads, size,
                                     static_cast<float>(num_micro_batches));
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
