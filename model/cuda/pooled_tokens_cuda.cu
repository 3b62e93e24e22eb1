// The pooler's row gather / scatter-add; see pooled_tokens_cuda.h.
#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/cuda/pooled_tokens_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

__device__ __forceinline__ int64_t PooledRow(const int32_t* positions,
                                             int64_t b, int64_t seq_len) {
  const int64_t t = positions == nullptr ? 0 : positions[b];
  if (t < 0 || t >= seq_len) __trap();
  return b * seq_len + t;
}

// One thread per (b, h).
__global__ void GatherKernel(float* rows, const float* sequence,
                             const int32_t* positions, int64_t batch,
                             int64_t seq_len, int64_t hidden) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden;
    const int64_t h = i % hidden;
    rows[i] = sequence[PooledRow(positions, b, seq_len) * hidden + h];
  }
}

__global__ void AddKernel(float* sequence, const float* rows,
                          const int32_t* positions, int64_t batch,
                          int64_t seq_len, int64_t hidden) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden;
    const int64_t h = i % hidden;
    sequence[PooledRow(positions, b, seq_len) * hidden + h] += rows[i];
  }
}

}  // namespace

void GatherPooledTokens(float* rows, const float* sequence,
                        const int32_t* positions, int64_t batch,
                        int64_t seq_len, int64_t hidden,
                        const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0 && hidden >= 0,
                       "GatherPooledTokens: bad shape");
  if (batch * hidden == 0) return;
  GatherKernel<<<cuda_kernels::GridFor(batch * hidden), cuda_kernels::kThreads,
                 0, context.stream()>>>(rows, sequence, positions, batch,
                                        seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

void AddToPooledTokens(float* sequence, const float* rows,
                       const int32_t* positions, int64_t batch, int64_t seq_len,
                       int64_t hidden, const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len > 0 && hidden >= 0,
                       "AddToPooledTokens: bad shape");
  if (batch * hidden == 0) return;
  AddKernel<<<cuda_kernels::GridFor(batch * hidden), cuda_kernels::kThreads, 0,
              context.stream()>>>(sequence, rows, positions, batch, seq_len,
                                  hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace bertlab
