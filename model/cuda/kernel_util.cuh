// Host-side launch helpers of the CUDA ops (nvcc only), over the device
// helpers of kernel_util_device.cuh (which g++ also compiles, under the host
// SIMT emulator): ToFloat / FromFloat, GridFor, WarpSum / BlockSum, and
// ColumnSumsKernel and BroadcastRowsKernel, launched here by LaunchColumnSums
// and LaunchBroadcastRows.
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
  BERTLAB_LAUNCH(grid, block, 0, stream, ColumnSumsKernel)
  (sums, rows, columns, value);
}

// BroadcastRowsKernel over a (rows, columns) out, enqueued on `stream`.
template <typename Out, typename In>
void LaunchBroadcastRows(Out* out, const In* bias, int64_t rows,
                         int64_t columns, cudaStream_t stream) {
  const int64_t total = rows * columns;
  if (total == 0) return;
  BERTLAB_LAUNCH(GridFor(total), kThreads, 0, stream, BroadcastRowsKernel)
  (out, bias, rows, columns);
}

}  // namespace cuda_kernels
}  // namespace bertlab

#endif  // BERTLAB_MODEL_CUDA_KERNEL_UTIL_CUH_
