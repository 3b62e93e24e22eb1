// The kernel source of prediction_rows_cuda.cu: the masked-LM head's row gather
// and the two passes of its deterministic scatter. The .cu launches them;
// prediction_rows_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from prediction_rows_cuda.cu,
// and by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h)
// for prediction_rows_emulated_test. The definitions sit in an unnamed
// namespace, as they did inside the .cu: include this file from one translation
// unit per binary.
#ifndef BERTLAB_MODEL_HEADS_PREDICTION_ROWS_KERNELS_CUH_
#define BERTLAB_MODEL_HEADS_PREDICTION_ROWS_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

// Larger than any prediction index (M < kNoContributor is REQUIREd): the
// value cudaMemsetAsync(0x7f) writes into each int32.
constexpr int32_t kNoContributor = 0x7f7f7f7f;

__device__ int64_t CheckedPosition(const int32_t* positions, int64_t i,
                                   int64_t sequence_rows) {
  const int32_t position = positions[i];
  if (position < 0 || position >= sequence_rows) {
    printf("prediction_rows_cuda: positions[%lld] = %d outside [0, %lld)\n",
           static_cast<long long>(i), position,
           static_cast<long long>(sequence_rows));
    __trap();
  }
  return position;
}

// One thread per (i, h).
template <typename T>
BERTLAB_KERNEL_UNBOUNDED GatherKernel(T* rows, const T* sequence,
                                      const int32_t* positions,
                                      int64_t num_predictions,
                                      int64_t sequence_rows, int64_t hidden) {
  for (int64_t index = cuda_kernels::GlobalThread();
       index < num_predictions * hidden; index += cuda_kernels::GridStride()) {
    const int64_t i = index / hidden;
    const int64_t h = index % hidden;
    rows[index] =
        sequence[CheckedPosition(positions, i, sequence_rows) * hidden + h];
  }
}

// One thread per prediction i: the integer bookkeeping of the scatter.
BERTLAB_KERNEL_UNBOUNDED CountKernel(int32_t* first_contributor,
                                     int32_t* contributor_count,
                                     const int32_t* positions,
                                     int64_t num_predictions,
                                     int64_t sequence_rows) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < num_predictions;
       i += cuda_kernels::GridStride()) {
    const int64_t position = CheckedPosition(positions, i, sequence_rows);
    atomicMin(first_contributor + position, static_cast<int32_t>(i));
    atomicAdd(contributor_count + position, 1);
  }
}

// One thread per (i, h); only the first contributor of a row writes it.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED PlaceKernel(T* sequence,
                                     const int32_t* first_contributor,
                                     const int32_t* contributor_count,
                                     const T* rows, const int32_t* positions,
                                     int64_t num_predictions, int64_t hidden) {
  for (int64_t index = cuda_kernels::GlobalThread();
       index < num_predictions * hidden; index += cuda_kernels::GridStride()) {
    const int64_t i = index / hidden;
    const int64_t h = index % hidden;
    const int32_t position = positions[i];  // checked by CountKernel
    if (first_contributor[position] != i) continue;
    // 0.0f + x, not x: the CPU adds into a zeroed row, which turns -0 into +0.
    // Sums in float, one rounding for bf16.
    float sum = 0.0f + cuda_kernels::ToFloat(rows[index]);
    if (contributor_count[position] > 1) {
      for (int64_t j = i + 1; j < num_predictions; ++j) {
        if (positions[j] == position) {
          sum += cuda_kernels::ToFloat(rows[j * hidden + h]);
        }
      }
    }
    sequence[static_cast<int64_t>(position) * hidden + h] =
        cuda_kernels::FromFloat<T>(sum);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_PREDICTION_ROWS_KERNELS_CUH_
