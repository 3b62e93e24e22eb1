// The masked-LM head's row gather / scatter-add, host side: checks and
// launches; the kernels are prediction_rows_kernels.cuh (shared with
// prediction_rows_emulated_test); see prediction_rows_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>
#include <cstdio>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/heads/prediction_rows_cuda.h"
#include "model/heads/prediction_rows_kernels.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void GatherPredictionRows(T* rows, const T* sequence, const int32_t* positions,
                          int64_t num_predictions, int64_t sequence_rows,
                          int64_t hidden, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(num_predictions >= 0 && sequence_rows > 0 && hidden > 0,
                       "GatherPredictionRows: bad shape");
  if (num_predictions == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(num_predictions * hidden),
                 cuda_kernels::kThreads, 0, context.stream(), GatherKernel)
  (rows, sequence, positions, num_predictions, sequence_rows, hidden);
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
  BERTLAB_LAUNCH(cuda_kernels::GridFor(num_predictions), cuda_kernels::kThreads,
                 0, context.stream(), CountKernel)
  (first_contributor, contributor_count, positions, num_predictions,
   sequence_rows);
  BERTLAB_CUDA_CHECK_LAUNCH();
  BERTLAB_LAUNCH(cuda_kernels::GridFor(num_predictions * hidden),
                 cuda_kernels::kThreads, 0, context.stream(), PlaceKernel)
  (sequence, first_contributor, contributor_count, rows, positions,
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
