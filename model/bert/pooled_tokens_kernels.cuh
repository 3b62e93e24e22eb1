// The kernel source of pooled_tokens_cuda.cu: the pooler's row gather and
// add-back. The .cu launches them; pooled_tokens_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from pooled_tokens_cuda.cu, and
// by g++ under the host SIMT emulator (model/cuda/testing/simt_emulator.h) for
// pooled_tokens_emulated_test. The definitions sit in an unnamed namespace, as
// they did inside the .cu: include this file from one translation unit per
// binary.
#ifndef BERTLAB_MODEL_BERT_POOLED_TOKENS_KERNELS_CUH_
#define BERTLAB_MODEL_BERT_POOLED_TOKENS_KERNELS_CUH_

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

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
template <typename T>
BERTLAB_KERNEL_UNBOUNDED GatherKernel(T* rows, const T* sequence,
                                      const int32_t* positions, int64_t batch,
                                      int64_t seq_len, int64_t hidden) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden;
    const int64_t h = i % hidden;
    rows[i] = sequence[PooledRow(positions, b, seq_len) * hidden + h];
  }
}

template <typename T>
BERTLAB_KERNEL_UNBOUNDED AddKernel(T* sequence, const T* rows,
                                   const int32_t* positions, int64_t batch,
                                   int64_t seq_len, int64_t hidden) {
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * hidden;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / hidden;
    const int64_t h = i % hidden;
    T& target = sequence[PooledRow(positions, b, seq_len) * hidden + h];
    target = cuda_kernels::FromFloat<T>(cuda_kernels::ToFloat(target) +
                                        cuda_kernels::ToFloat(rows[i]));
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_BERT_POOLED_TOKENS_KERNELS_CUH_
