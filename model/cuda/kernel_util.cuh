// Host-side launch helpers of the CUDA ops (nvcc only), over the device
// helpers of kernel_util_device.cuh (which g++ also compiles, under the host
// SIMT emulator): ToFloat / FromFloat, GridFor, WarpSum / BlockSum, and
// ColumnSumsKernel, launched here by LaunchColumnSums.
#ifndef BERTLAB_MODEL_CUDA_KERNEL_UTIL_CUH_
#define BERTLAB_MODEL_CUDA_KERNEL_UTIL_CUH_

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "model/cuda/kernel_util_device.cuh"

namespace bertlab {
namespace cuda_kernels {

template <typename Value, typename Out>
void LaunchColumnSums(Out* sums, int64_t rows, int64_t columns,
                      const Value& value, cudaStream_t stream) {
  if (columns == 0) return;
  const dim3 block(kColumnSumColumns, kColumnSumLanes);
  const unsigned int grid = static_cast<unsigned int>(
      (columns + kColumnSumColumns - 1) / kColumnSumColumns);
  ColumnSumsKernel<<<grid, block, 0, stream>>>(sums, rows, columns, value);
}

}  // namespace cuda_kernels
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_KERNEL_UTIL_CUH_
