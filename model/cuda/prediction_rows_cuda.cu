// The masked-LM head's row gather / scatter-add; see prediction_rows_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/cuda/prediction_rows_cuda.h"

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
__global__ void GatherKernel(T* rows, const T* sequence,
                             const int32_t* positions, int64_t num_predictions,
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
__global__ void CountKernel(int32_t* first_contributor,
                            int32_t* contributor_count,
                            const int32_t* positions, int64_t num_predictions,
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
__global__ void PlaceKernel(T* sequence, const int32_t* first_contributor,
                            const int32_t* contributor_count, const T* rows,
                            const int32_t* positions, int64_t num_predictions,
                            int64_t hidden) {
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

template <typename T>
void GatherPredictionRows(T* rows, const T* sequence, const int32_t* positions,
                          int64_t num_predictions, int64_t sequence_rows,
                          int64_t hidden, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(num_predictions >= 0 && sequence_rows > 0 && hidden > 0,
                       "GatherPredictionRows: bad shape");
  if (num_predictions == 0) return;
  GatherKernel<<<cuda_kernels::GridFor(num_predictions * hidden),
                 cuda_kernels::kThreads, 0, context.stream()>>>(
      rows, sequence, positions, num_predictions, sequence_rows, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void ScatterPredictionRows(T* sequence, int32_t* first_contributor,
                           int32_t* contributor_count, const T* rows,
                           const int32_t* positions, int64_t num_predictions,
                           int64_t sequence_rows, int64_t hidden,
                           const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(num_predictions >= 0 && sequence_rows > 0 && hidden > 0,
                       "ScatterPredictionRows: bad shape");
  BERTLAB_CUDA_REQUIRE(num_predictions < kNoContributor,
                       "ScatterPredictionRows: too many predictions");
  BERTLAB_CUDA_CHECK(cudaMemsetAsync(
      sequence, 0, sizeof(T) * sequence_rows * hidden, context.stream()));
  if (num_predictions == 0) return;
  BERTLAB_CUDA_CHECK(cudaMemsetAsync(first_contributor, 0x7f,
                                     sizeof(int32_t) * sequence_rows,
                                     context.stream()));
  BERTLAB_CUDA_CHECK(cudaMemsetAsync(
      contributor_count, 0, sizeof(int32_t) * sequence_rows, context.stream()));
  CountKernel<<<cuda_kernels::GridFor(num_predictions), cuda_kernels::kThreads,
                0, context.stream()>>>(first_contributor, contributor_count,
                                       positions, num_predictions,
                                       sequence_rows);
  BERTLAB_CUDA_CHECK_LAUNCH();
  PlaceKernel<<<cuda_kernels::GridFor(num_predictions * hidden),
                cuda_kernels::kThreads, 0, context.stream()>>>(
      sequence, first_contributor, contributor_count, rows, positions,
      num_predictions, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

#define BERTLAB_INSTANTIATE_PREDICTION_ROWS(T)                                 \
  template void GatherPredictionRows<T>(T*, const T*, const int32_t*, int64_t, \
                                        int64_t, int64_t, const CudaContext&); \
  template void ScatterPredictionRows<T>(T*, int32_t*, int32_t*, const T*,     \
                                         const int32_t*, int64_t, int64_t,     \
                                         int64_t, const CudaContext&);
BERTLAB_INSTANTIATE_PREDICTION_ROWS(float)
BERTLAB_INSTANTIATE_PREDICTION_ROWS(__nv_bfloat16)
#undef BERTLAB_INSTANTIATE_PREDICTION_ROWS

}  // namespace cuda
}  // namespace bertlab
