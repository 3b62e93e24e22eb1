// Mean squared error on the GPU, host side: checks and launches; the kernels
// are mse_loss_kernels.cuh (shared with mse_loss_emulated_test); see
// mse_loss_cuda.h.
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/mse_loss_cuda.h"
#include "model/ops/mse_loss_kernels.cuh"

namespace bertlab {
namespace cuda {

void MseLossForward(float* loss, const float* predictions, const float* targets,
                    int64_t rows, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 1, "MseLossForward: rows must be >= 1");
  BERTLAB_LAUNCH(1, 1, 0, context.stream(), MseForwardKernel)
  (loss, predictions, targets, rows);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void MseLossBackward(float* d_predictions, const float* predictions,
                     const float* targets, int64_t rows, float d_loss,
                     const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(rows >= 1, "MseLossBackward: rows must be >= 1");
  // As the CPU: the factor in float, 2 * d_loss / rows.
  const float scale = 2.0f * d_loss / static_cast<float>(rows);
  BERTLAB_LAUNCH(cuda_kernels::GridFor(rows), cuda_kernels::kThreads, 0,
                 context.stream(), MseBackwardKernel)
  (d_predictions, predictions, targets, rows, scale);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
