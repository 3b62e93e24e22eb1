// BERT input embeddings on the GPU, host side: argument checks and launches
// (the kernels are embedding_kernels.cuh); see embedding_cuda.h for the
// deterministic, CPU-order backward.
#include <cuda_bf16.h>

#include <cstdint>

#include "model/cuda/context.h"
#include "model/cuda/cuda_check.h"
#include "model/cuda/kernel_util.cuh"
#include "model/ops/embedding_cuda.h"
#include "model/ops/embedding_kernels.cuh"

namespace bertlab {
namespace cuda {

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
  BERTLAB_LAUNCH(cuda_kernels::GridFor(total), cuda_kernels::kThreads, 0,
                 context.stream(), EmbeddingForwardKernel)
  (out, input_ids, token_type_ids, word, position, token_type, batch * seq_len,
   seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template <typename T>
void EmbeddingBackward(float* d_word, float* d_position, float* d_token_type,
                       const T* d_out, const int32_t* input_ids,
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
  BERTLAB_CUDA_REQUIRE(vocab_size <= INT32_MAX && type_vocab_size <= INT32_MAX,
                       "EmbeddingBackward: vocabulary beyond int32 ids");
  const TableGradient word{d_word, input_ids, static_cast<uint32_t>(vocab_size),
                           KeyBits(vocab_size)};
  const TableGradient token_type{d_token_type, token_type_ids,
                                 static_cast<uint32_t>(type_vocab_size),
                                 KeyBits(type_vocab_size)};
  BERTLAB_LAUNCH(TableGradientGrid(hidden), kTableThreads, 0, context.stream(),
                 TableGradientKernel)
  (word, token_type, d_out, rows, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
  BERTLAB_LAUNCH(cuda_kernels::GridFor(seq_len * hidden),
                 cuda_kernels::kThreads, 0, context.stream(),
                 PositionGradientKernel)
  (d_position, d_out, batch, seq_len, hidden);
  BERTLAB_CUDA_CHECK_LAUNCH();
}

template void EmbeddingForward<float>(float*, const int32_t*, const int32_t*,
                                      const float*, const float*, const float*,
                                      int64_t, int64_t, int64_t, int64_t,
                                      int64_t, int64_t, const CudaContext&);
template void EmbeddingForward<__nv_bfloat16>(
    __nv_bfloat16*, const int32_t*, const int32_t*, const __nv_bfloat16*,
    const __nv_bfloat16*, const __nv_bfloat16*, int64_t, int64_t, int64_t,
    int64_t, int64_t, int64_t, const CudaContext&);
template void EmbeddingBackward<float>(float*, float*, float*, const float*,
                                       const int32_t*, const int32_t*, int64_t,
                                       int64_t, int64_t, int64_t, int64_t,
                                       int64_t, const CudaContext&);
template void EmbeddingBackward<__nv_bfloat16>(float*, float*, float*,
                                               const __nv_bfloat16*,
                                               const int32_t*, const int32_t*,
                                               int64_t, int64_t, int64_t,
                                               int64_t, int64_t, int64_t,
                                               const CudaContext&);

}  // namespace cuda
}  // namespace bertlab
