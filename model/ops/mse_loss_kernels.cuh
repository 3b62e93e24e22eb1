// The mean-squared-error kernels; mse_loss_cuda.cu launches them,
// mse_loss_cuda.h says what they compute. One source, compiled by nvcc (from
// mse_loss_cuda.cu) and by g++ under the host SIMT emulator
// (mse_loss_emulated_test); include it from one translation unit per binary.
#ifndef BERTLAB_MODEL_OPS_MSE_LOSS_KERNELS_CUH_
#define BERTLAB_MODEL_OPS_MSE_LOSS_KERNELS_CUH_

#include <cstdint>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

// One thread adds the rows in order in double, as mse_loss_cpu.cc does; the
// explicit roundings keep nvcc from fusing the square into the sum.
BERTLAB_KERNEL_UNBOUNDED MseForwardKernel(float* loss, const float* predictions,
                                          const float* targets, int64_t rows) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  double sum = 0.0;
  for (int64_t row = 0; row < rows; ++row) {
    const double error = __dadd_rn(static_cast<double>(predictions[row]),
                                   -static_cast<double>(targets[row]));
    sum = __dadd_rn(sum, __dmul_rn(error, error));
  }
  *loss = static_cast<float>(sum / static_cast<double>(rows));
}

BERTLAB_KERNEL_UNBOUNDED MseBackwardKernel(float* d_predictions,
                                           const float* predictions,
                                           const float* targets, int64_t rows,
                                           float scale) {
  for (int64_t row =
           static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       row < rows; row += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    d_predictions[row] = __fmul_rn(scale, predictions[row] - targets[row]);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_OPS_MSE_LOSS_KERNELS_CUH_
