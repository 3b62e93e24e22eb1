// Averaging accumulated gradients on the GPU, host side: checks and launches;
// the kernels are gradient_accumulation_kernels.cuh (shared with
// gradient_accumulation_emulated_test); see gradient_accumulation_cuda.h.
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/optim/gradient_accumulation_cuda.h"
#include "model/optim/gradient_accumulation_kernels.cuh"

namespace bertlab {
namespace cuda {

void AverageAccumulatedGradients(int64_t num_micro_batches, int64_t size,
                                 float* grads, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(num_micro_batches >= 1,
                       "AverageAccumulatedGradients: num_micro_batches < 1");
  BERTLAB_CUDA_REQUIRE(size >= 0, "AverageAccumulatedGradients: size < 0");
  if (num_micro_batches == 1 || size == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(size), cuda_kernels::kThreads, 0,
                 context.stream(), DivideKernel)
  (grads, size, static_cast<float>(num_micro_batches));
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
