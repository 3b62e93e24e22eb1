// The pooler's row gather / scatter-add, host side: checks and launches; the
// kernels are pooled_tokens_kernels.cuh (shared with
// pooled_tokens_emulated_test); see pooled_tokens_cuda.h.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/bert/pooled_tokens_cuda.h"
#include "model/bert/pooled_tokens_kernels.cuh"
#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"

namespace bertlab {
namespace cuda {

template <typename T>
void GatherPooledTokens(T* rows, const T* sequence, const int32_t* positions,
                        int64_t batch, int64_t seq_len, int64_t hidden,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0 && hidden >= 0,
                       "GatherPooledTokens: bad shape");
  if (batch * hidden == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(batch * hidden), cuda_kernels::kThreads,
                 0, context.stream(), GatherKernel)
  (rows, sequence, positions, batch, seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void AddToPooledTokens(T* sequence, const T* rows, const int32_t* positions,
                       int64_t batch, int64_t seq_len, int64_t hidden,
                       const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0 && hidden >= 0,
                       "AddToPooledTokens: bad shape");
  if (batch * hidden == 0) return;
  BERTLAB_LAUNCH(cuda_kernels::GridFor(batch * hidden), cuda_kernels::kThreads,
                 0, context.stream(), AddKernel)
  (sequence, rows, positions, batch, seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

#define BERTLAB_INSTANTIATE_POOLED_TOKENS(T)                                 \
  template void GatherPooledTokens<T>(T*, const T*, const int32_t*, int64_t, \
                                      int64_t, int64_t, const CudaContext&); \
  template void AddToPooledTokens<T>(T*, const T*, const int32_t*, int64_t,  \
                                     int64_t, int64_t, const CudaContext&);

BERTLAB_INSTANTIATE_POOLED_TOKENS(float)
BERTLAB_INSTANTIATE_POOLED_TOKENS(__nv_bfloat16)

#undef BERTLAB_INSTANTIATE_POOLED_TOKENS

}  // namespace cuda
}  // namespace bertlab
