// The kernel source of bilstm_rows_cuda.cu: each sequence's length from its
// attention mask, the pooled summary of the BiLSTM's output and its
// gradient; bilstm_rows_cuda.h says what they compute.
//
// One source, compiled twice: by nvcc, included from bilstm_rows_cuda.cu, and
// by g++ under the host SIMT emulator (bilstm_rows_emulated_test and the host
// CUDA build). The definitions sit in an unnamed namespace, as they would
// inside the .cu: include this file from one translation unit per binary.
#ifndef BERTLAB_MODEL_HEADS_BILSTM_ROWS_KERNELS_CUH_
#define BERTLAB_MODEL_HEADS_BILSTM_ROWS_KERNELS_CUH_

#include <cstdint>
#include <cstdio>

#include "model/cuda/kernel_source.cuh"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;

// One thread per sequence (T <= 512 reads).
BERTLAB_KERNEL_UNBOUNDED SequenceLengthsKernel(int32_t* lengths,
                                               const int32_t* attention_mask,
                                               int64_t batch, int64_t seq_len) {
  for (int64_t b = cuda_kernels::GlobalThread(); b < batch;
       b += cuda_kernels::GridStride()) {
    if (attention_mask == nullptr) {
      lengths[b] = static_cast<int32_t>(seq_len);
      continue;
    }
    const int32_t* row = attention_mask + b * seq_len;
    int64_t length = 0;
    while (length < seq_len && row[length] != 0) ++length;
    bool prefix = length >= 1;
    for (int64_t t = length; t < seq_len; ++t) prefix = prefix && row[t] == 0;
    if (!prefix) {
      printf(
          "bilstm_rows_cuda: the attention mask of sequence %lld is not 1s "
          "then 0s with at least one 1; the BiLSTM needs padding at the end\n",
          static_cast<long long>(b));
      __trap();
    }
    lengths[b] = static_cast<int32_t>(length);
  }
}

// pooled[b, j] = output[b, L_b - 1, j] for j < Hd, output[b, 0, j] after.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED BiLstmPoolKernel(T* pooled, const T* output,
                                          const int32_t* lengths, int64_t batch,
                                          int64_t seq_len, int64_t hidden) {
  const int64_t width = 2 * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < batch * width;
       i += cuda_kernels::GridStride()) {
    const int64_t b = i / width, j = i % width;
    const int64_t t = j < hidden ? lengths[b] - 1 : 0;
    pooled[i] = output[(b * seq_len + t) * width + j];
  }
}

// d_output[b, t, j] = d_pooled[b, j] where the pool read it, else 0.
template <typename T>
BERTLAB_KERNEL_UNBOUNDED BiLstmPoolBackwardKernel(
    T* d_output, const T* d_pooled, const int32_t* lengths, int64_t batch,
    int64_t seq_len, int64_t hidden) {
  const int64_t width = 2 * hidden;
  const int64_t total = batch * seq_len * width;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    const int64_t row = i / width, j = i % width;
    const int64_t b = row / seq_len, t = row % seq_len;
    const bool read = j < hidden ? t == lengths[b] - 1 : t == 0;
    d_output[i] = read ? d_pooled[b * width + j] : FromFloat<T>(0.0f);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace bertlab

#endif  // BERTLAB_MODEL_HEADS_BILSTM_ROWS_KERNELS_CUH_
