// BERT input embeddings on the GPU; see embedding_cuda.h for the
// deterministic, CPU-order backward.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/embedding_cuda.h"

namespace bertlab {
namespace cuda {
namespace {

using cuda_kernels::FromFloat;
using cuda_kernels::ToFloat;

template <typename T>
__global__ void EmbeddingForwardKernel(T* out, const int32_t* input_ids,
                                       const int32_t* token_type_ids,
                                       const T* word, const T* position,
                                       const T* token_type, int64_t rows,
                                       int64_t seq_len, int64_t hidden) {
  const int64_t total = rows * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    const int64_t row = i / hidden;
    const int64_t c = i % hidden;
    const float sum = __fadd_rn(
        __fadd_rn(ToFloat(word[input_ids[row] * hidden + c]),
                  ToFloat(token_type[token_type_ids[row] * hidden + c])),
        ToFloat(position[(row % seq_len) * hidden + c]));
    out[i] = FromFloat<T>(sum);
  }
}

// Block `row` of the grid: if ids[row] occurs first at `row`, adds the d_out
// rows of all its occurrences (in row order) onto table[ids[row]]. Threads
// stride over the hidden columns; every thread scans the same ids (broadcast
// loads), so all take the same branches.
template <typename T>
__global__ void ScatterFirstOccurrenceKernel(float* table, const T* d_out,
                                             const int32_t* ids, int64_t rows,
                                             int64_t hidden) {
  const int64_t row = blockIdx.x;
  const int32_t id = ids[row];
  for (int64_t earlier = 0; earlier < row; ++earlier) {
    if (ids[earlier] == id) return;
  }
  float* target = table + static_cast<int64_t>(id) * hidden;
  for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
    float sum = target[c];
    for (int64_t r = row; r < rows; ++r) {
      if (ids[r] == id) sum = __fadd_rn(sum, ToFloat(d_out[r * hidden + c]));
    }
    target[c] = sum;
  }
}

// d_position[t][c] += d_out[b * seq_len + t][c] for b = 0, 1, ... in order.
template <typename T>
__global__ void PositionGradientKernel(float* d_position, const T* d_out,
                                       int64_t batch, int64_t seq_len,
                                       int64_t hidden) {
  const int64_t total = seq_len * hidden;
  for (int64_t i = cuda_kernels::GlobalThread(); i < total;
       i += cuda_kernels::GridStride()) {
    float sum = d_position[i];
    for (int64_t b = 0; b < batch; ++b) {
      sum = __fadd_rn(sum, ToFloat(d_out[b * total + i]));
    }
    d_position[i] = sum;
  }
}

}  // namespace

template <typename T>
void EmbeddingForward(T* out, const int32_t* input_ids,
                      const int32_t* token_type_ids, const T* word,
                      const T* position, const T* token_type, int64_t batch,
                      int64_t seq_len, int64_t hidden, int64_t vocab_size,
                      int64_t max_positions, int64_t type_vocab_size,
                      const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len >= 0 && hidden >= 0 &&
                           vocab_size > 0 && type_vocab_size > 0,
                       "EmbeddingForward: bad sizes");
  BERTLAB_CUDA_REQUIRE(seq_len <= max_positions,
                       "sequence longer than the position table");
  const int64_t total = batch * seq_len * hidden;
  if (total == 0) return;
  EmbeddingForwardKernel<<<cuda_kernels::GridFor(total), cuda_kernels::kThreads,
                           0, context.stream()>>>(
      out, input_ids, token_type_ids, word, position, token_type,
      batch * seq_len, seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

namespace {

template <typename T>
void EmbeddingBackwardImpl(float* d_word, float* d_position,
                           float* d_token_type, const T* d_out,
                           const int32_t* input_ids,
                           const int32_t* token_type_ids, int64_t batch,
                           int64_t seq_len, int64_t hidden, int64_t vocab_size,
                           int64_t max_positions, int64_t type_vocab_size,
                           const CudaContext& context) {
  BERTLAB_CUDA_REQUIRE(batch >= 0 && seq_len >= 0 && hidden >= 0 &&
                           vocab_size > 0 && type_vocab_size > 0,
                       "EmbeddingBackward: bad sizes");
  BERTLAB_CUDA_REQUIRE(seq_len <= max_positions,
                       "sequence longer than the position table");
  BERTLAB_CUDA_REQUIRE(
      d_word != nullptr && d_position != nullptr && d_token_type != nullptr,
      "EmbeddingBackward: null gradient");
  const int64_t rows = batch * seq_len;
  if (rows == 0 || hidden == 0) return;
  BERTLAB_CUDA_REQUIRE(rows <= cuda_kernels::kMaxBlocks * 1024,
                       "EmbeddingBackward: too many rows for one grid");
  ScatterFirstOccurrenceKernel<<<static_cast<unsigned int>(rows),
                                 cuda_kernels::kThreads, 0, context.stream()>>>(
      d_word, d_out, input_ids, rows, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
  ScatterFirstOccurrenceKernel<<<static_cast<unsigned int>(rows),
                                 cuda_kernels::kThreads, 0, context.stream()>>>(
      d_token_type, d_out, token_type_ids, rows, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
  PositionGradientKernel<<<cuda_kernels::GridFor(seq_len * hidden),
                           cuda_kernels::kThreads, 0, context.stream()>>>(
      d_position, d_out, batch, seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void EmbeddingBackward(float* d_word, float* d_position, float* d_token_type,
                       const float* d_out, const int32_t* input_ids,
                       const int32_t* token_type_ids, int64_t batch,
                       int64_t seq_len, int64_t hidden, int64_t vocab_size,
                       int64_t max_positions, int64_t type_vocab_size,
                       const CudaContext& context) {
  EmbeddingBackwardImpl(d_word, d_position, d_token_type, d_out, input_ids,
                        token_type_ids, batch, seq_len, hidden, vocab_size,
                        max_positions, type_vocab_size, context);
}

void EmbeddingBackward(float* d_word, float* d_position, float* d_token_type,
                       const __nv_bfloat16* d_out, const int32_t* input_ids,
                       const int32_t* token_type_ids, int64_t batch,
                       int64_t seq_len, int64_t hidden, int64_t vocab_size,
                       int64_t max_positions, int64_t type_vocab_size,
                       const CudaContext& context) {
  EmbeddingBackwardImpl(d_word, d_position, d_token_type, d_out, input_ids,
                        token_type_ids, batch, seq_len, hidden, vocab_size,
                        max_positions, type_vocab_size, context);
}

template void EmbeddingForward<float>(float*, const int32_t*, const int32_t*,
                                      const float*, const float*, const float*,
                                      int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, const CudaContext&);
template void EmbeddingForward<__nv_bfloat16>(
    __nv_bfloat16*, const int32_t*, const int32_t*, const __nv_bfloat16*,
    const __nv_bfloat16*, const __nv_bfloat16*, int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, const CudaContext&);

}  // namespace cuda
}  // namespace bertlab
